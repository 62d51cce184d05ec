// The ARI client's options, the originate's parameters and the client's events: what its users
// pass and hear (ari.ts re-exports them).
import type { Logger } from '../lib/log.js';
import type { AriEvent } from './ari-schema.js';

export interface AriClientOptions {
  /** e.g. http://127.0.0.1:8088 (no /ari suffix). */
  baseUrl: string;
  user: string;
  password: string;
  /** The Stasis application name our events come from. */
  app: string;
  logger: Logger;
  requestTimeoutMs?: number;
  /**
   * The only event types Asterisk sends (with ApplicationReplaced), set each time the websocket
   * opens; unset: every event. A call brings ~17 events, of which the dialer reads ~6.
   */
  events?: readonly string[] | undefined;
  /** How often the websocket is pinged; a socket silent for two intervals is dropped. */
  heartbeatMs?: number;
  reconnect?: { initialMs: number; maxMs: number };
}

export interface OriginateParams {
  /** The channel id we choose, so we can match events before the reply arrives. */
  channelId: string;
  /** e.g. PJSIP/+15551234567@trunk */
  endpoint: string;
  appArgs?: string[];
  callerId?: string;
  /** Seconds to ring before giving up (cause 19). */
  timeoutSec?: number;
  /** Channel variables and functions set before dialing, e.g. TIMEOUT(absolute), TALK_DETECT(set). */
  variables?: Record<string, string>;
}

export interface AriClientEvents {
  event: [AriEvent];
  /** The websocket is open; `reconnect` is true when it is not the first time. */
  connected: [{ reconnect: boolean; downMs: number }];
  /** Emitted after a reconnect: events may have been missed, reconcile with listChannels(). */
  reconnected: [{ downMs: number; attempts: number }];
  disconnected: [{ reason: string }];
  /** Another client registered the same app name; this client stops reconnecting. */
  replaced: [];
}
