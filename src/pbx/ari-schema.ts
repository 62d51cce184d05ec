// zod schemas for what ARI sends us: REST replies (models) and websocket events. Pure.
// Objects are `loose`: Asterisk adds fields between versions, and those must not break us.
import { z } from 'zod';

export const CallerId = z.object({ name: z.string(), number: z.string() }).loose();

export const Channel = z
  .object({
    id: z.string(),
    name: z.string(),
    state: z.string(),
    caller: CallerId.optional(),
    connected: CallerId.optional(),
    creationtime: z.string().optional(),
    dialplan: z
      .object({ context: z.string(), exten: z.string(), priority: z.number() })
      .loose()
      .optional(),
    language: z.string().optional(),
  })
  .loose();
export type Channel = z.infer<typeof Channel>;

export const Playback = z
  .object({
    id: z.string(),
    media_uri: z.string(),
    target_uri: z.string(),
    state: z.string(),
    next_media_uri: z.string().optional(),
    language: z.string().optional(),
  })
  .loose();
export type Playback = z.infer<typeof Playback>;

export const AsteriskInfo = z
  .object({
    system: z.object({ version: z.string(), entity_id: z.string().optional() }).loose(),
    status: z.object({ startup_time: z.string(), last_reload_time: z.string() }).loose().optional(),
  })
  .loose();
export type AsteriskInfo = z.infer<typeof AsteriskInfo>;

const base = { timestamp: z.string().optional(), application: z.string().optional() };

export const StasisStart = z
  .object({
    type: z.literal('StasisStart'),
    ...base,
    args: z.array(z.string()).default([]),
    channel: Channel,
    replace_channel: Channel.optional(),
  })
  .loose();
export const StasisEnd = z.object({ type: z.literal('StasisEnd'), ...base, channel: Channel }).loose();
export const ChannelStateChange = z
  .object({ type: z.literal('ChannelStateChange'), ...base, channel: Channel })
  .loose();
export const ChannelDestroyed = z
  .object({
    type: z.literal('ChannelDestroyed'),
    ...base,
    channel: Channel,
    cause: z.number().int(),
    cause_txt: z.string(),
    // The SIP response code behind the cause (Asterisk >= 22.7 / 21.12 / 20.17).
    tech_cause: z.number().int().optional(),
  })
  .loose();
export const ChannelHangupRequest = z
  .object({
    type: z.literal('ChannelHangupRequest'),
    ...base,
    channel: Channel,
    cause: z.number().int().optional(),
    tech_cause: z.number().int().optional(),
    soft: z.boolean().optional(),
  })
  .loose();
export const Dial = z
  .object({
    type: z.literal('Dial'),
    ...base,
    peer: Channel,
    caller: Channel.optional(),
    dialstatus: z.string(),
    dialstring: z.string().optional(),
  })
  .loose();
export const ChannelDtmfReceived = z
  .object({
    type: z.literal('ChannelDtmfReceived'),
    ...base,
    channel: Channel,
    digit: z.string(),
    duration_ms: z.number().optional(),
  })
  .loose();
export const PlaybackStarted = z
  .object({ type: z.literal('PlaybackStarted'), ...base, playback: Playback })
  .loose();
export const PlaybackFinished = z
  .object({ type: z.literal('PlaybackFinished'), ...base, playback: Playback })
  .loose();
export const ApplicationReplaced = z
  .object({ type: z.literal('ApplicationReplaced'), ...base })
  .loose();

export const KNOWN_EVENTS = {
  StasisStart,
  StasisEnd,
  ChannelStateChange,
  ChannelDestroyed,
  ChannelHangupRequest,
  Dial,
  ChannelDtmfReceived,
  PlaybackStarted,
  PlaybackFinished,
  ApplicationReplaced,
} as const;
type Known = { [K in keyof typeof KNOWN_EVENTS]: z.infer<(typeof KNOWN_EVENTS)[K]> };
export type KnownAriEvent = Known[keyof Known];

/** Any event we have no schema for, or a known one that failed validation (`issues` set). */
export interface UnknownAriEvent {
  type: 'Unknown';
  originalType: string | undefined;
  raw: unknown;
  issues?: string;
}
export type AriEvent = KnownAriEvent | UnknownAriEvent;
export type AriEventOf<T extends KnownAriEvent['type']> = Extract<KnownAriEvent, { type: T }>;

/** Turns one decoded websocket message into a typed event; never throws. */
export function parseAriEvent(raw: unknown): AriEvent {
  const type =
    raw && typeof raw === 'object' && typeof (raw as { type?: unknown }).type === 'string'
      ? (raw as { type: string }).type
      : undefined;
  const schema =
    type !== undefined && Object.hasOwn(KNOWN_EVENTS, type)
      ? KNOWN_EVENTS[type as keyof typeof KNOWN_EVENTS]
      : undefined;
  if (!schema) return { type: 'Unknown', originalType: type, raw };
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data as KnownAriEvent;
  return { type: 'Unknown', originalType: type, raw, issues: z.prettifyError(parsed.error) };
}

/** The channel an event is about, when it is about one. */
export function eventChannelId(event: AriEvent): string | undefined {
  switch (event.type) {
    case 'Dial':
      return event.peer.id;
    case 'StasisStart':
    case 'StasisEnd':
    case 'ChannelStateChange':
    case 'ChannelDestroyed':
    case 'ChannelHangupRequest':
    case 'ChannelDtmfReceived':
      return event.channel.id;
    case 'PlaybackStarted':
    case 'PlaybackFinished': {
      const m = /^channel:(.+)$/.exec(event.playback.target_uri);
      return m?.[1];
    }
    default:
      return undefined;
  }
}
