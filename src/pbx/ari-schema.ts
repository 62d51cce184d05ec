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
    dialplan: z.object({ context: z.string(), exten: z.string(), priority: z.number() }).loose().optional(),
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

/** GET /channels/{id}/rtp_statistics: what the channel's RTP has received so far (packets, payload bytes), and more. */
export const RtpStatistics = z
  .object({ rxcount: z.number().int().nonnegative(), rxoctetcount: z.number().int().nonnegative() })
  .loose();
export type RtpStatistics = z.infer<typeof RtpStatistics>;

/** An event of `type`: its own fields, with those every event has; other fields are kept. */
function event<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z
    .object({ type: z.literal(type), timestamp: z.string().optional(), application: z.string().optional(), ...shape })
    .loose();
}

export const StasisStart = event('StasisStart', {
  args: z.array(z.string()).default([]),
  channel: Channel,
  replace_channel: Channel.optional(),
});
export const StasisEnd = event('StasisEnd', { channel: Channel });
export const ChannelStateChange = event('ChannelStateChange', { channel: Channel });
export const ChannelDestroyed = event('ChannelDestroyed', {
  channel: Channel,
  cause: z.number().int(),
  cause_txt: z.string(),
  // The SIP response code behind the cause (Asterisk >= 22.7 / 21.12 / 20.17).
  tech_cause: z.number().int().optional(),
});
export const ChannelHangupRequest = event('ChannelHangupRequest', {
  channel: Channel,
  cause: z.number().int().optional(),
  tech_cause: z.number().int().optional(),
  soft: z.boolean().optional(),
});
export const Dial = event('Dial', {
  peer: Channel,
  caller: Channel.optional(),
  dialstatus: z.string(),
  dialstring: z.string().optional(),
});
export const ChannelDtmfReceived = event('ChannelDtmfReceived', {
  channel: Channel,
  digit: z.string(),
  duration_ms: z.number().optional(),
});
// TALK_DETECT on the channel: the phone started talking; it stopped (`duration`: ms of talk).
export const ChannelTalkingStarted = event('ChannelTalkingStarted', { channel: Channel });
export const ChannelTalkingFinished = event('ChannelTalkingFinished', { channel: Channel, duration: z.number() });
export const PlaybackStarted = event('PlaybackStarted', { playback: Playback });
export const PlaybackFinished = event('PlaybackFinished', { playback: Playback });
export const ApplicationReplaced = event('ApplicationReplaced', {});

export const KNOWN_EVENTS = {
  StasisStart,
  StasisEnd,
  ChannelStateChange,
  ChannelDestroyed,
  ChannelHangupRequest,
  Dial,
  ChannelDtmfReceived,
  ChannelTalkingStarted,
  ChannelTalkingFinished,
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

/**
 * Events are parsed without zod's compiled fast path: it is compiled at each schema's first parse,
 * so the first call of a process compiled one per kind of event as its events came, up to 180 ms
 * of the event loop in one turn (#51); a call's few dozen events gain little from it.
 */
const WITHOUT_COMPILING = { jitless: true } as const;

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
  const parsed = schema.safeParse(raw, WITHOUT_COMPILING);
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
    case 'ChannelTalkingStarted':
    case 'ChannelTalkingFinished':
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
