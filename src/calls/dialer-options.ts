// What the dialer is given: the deps every part gets ({ store, events, logger, now }: store/deps.ts),
// its peers (Asterisk, speech) and its limits.
import type { ServiceDeps, Store } from '../store/index.js';
import type { AriCallControl } from '../pbx/index.js';
import type { FinalCall } from './final-call.js';
import type { Endpoint } from '../pbx/index.js';
import type { JapaneseDictionary } from '../speech/index.js';
import type { Tts } from '../speech/index.js';

/**
 * The parts of the store call control uses: the calls' progress, and the patient writer every
 * write of a call step goes through (a database locked by another process never blocks the loop).
 * An account is read only for an alert found queued in the store: the webhook and a test call hand
 * theirs over with the account they read.
 */
export type DialerStore = Pick<Store, 'progress' | 'writes' | 'accounts' | 'held'>;

export interface DialerOptions extends Omit<ServiceDeps, 'store'> {
  store: DialerStore;
  ari: AriCallControl;
  tts: Pick<Tts, 'synthesize'> &
    Partial<Pick<Tts, 'expectedReadyMs' | 'expectedMakingMs' | 'fastestMakingMs' | 'reserve' | 'ahead' | 'progressOf'>>;
  /** Reads kanji for Japanese calls (loaded on the first one); unset: the built-in table of market words. */
  japanese?: JapaneseDictionary | undefined;
  /** The flite voice English calls speak with when speech queued before theirs would make their own late, or calls wait behind theirs (a burst); unset: none. */
  burstVoice?: string | undefined;
  /** Told once of every call that reached a final state (the SMS backup listens here). */
  onFinal: (call: FinalCall) => void;
  /** Told of an alert's first missed call when it is rung again (core/calls/ring-again): the SMS backup goes out then, once. */
  onMissed?: ((call: FinalCall) => void) | undefined;
  /** Where a phone number is dialed. */
  endpointFor: (phone: string) => Endpoint;
  /** Where a call the first trunk did not take goes out once more (the backup trunk), if any. */
  backupEndpointFor?: ((phone: string) => Endpoint) | undefined;
  callerId?: string | undefined;
  ringTimeoutSec: number;
  /** The longest a call may last, ring included: set on the channel, so Asterisk hangs it up even with serve gone. */
  maxCallSec?: number;
  maxConcurrent: number;
  /** New calls a second the provider allows (unset: no pacing). */
  callsPerSecond?: number;
  /** A queued call older than this is not dialed any more (expired at start, failed while running). */
  freshnessMs: number;
  /** Answering-machine detection while the message is spoken (TALK_DETECT, loaded by the managed Asterisk). */
  detectMachine?: boolean;
  /** Told of the time from each answer to its first playback (ms): the metrics' histogram. */
  onFirstSpeech?: ((ms: number) => void) | undefined;
  /** How long to wait for a digit after the prompt before hanging up. */
  digitWaitMs?: number;
  /** How often the database is looked at for calls queued by another process (CLI test calls). */
  pollMs?: number;
  /** The server sends SMS (a gateway set): quiet hours' `sms` mode sends one instead of the call, else holds. */
  sendsSms?: boolean;
  /** A call answered longer than this is hung up (a stuck playback must not hold a line). */
  maxTalkMs?: number;
  /** A fault for the crash tests only: waits after each recorded call step, before anyone is told (call-ledger.ts). */
  faultPauseAfterStep?: (() => Promise<void>) | undefined;
}

/** The options that stay optional once the defaults are filled in (none of them has a default). */
type UnsetByDefault =
  | 'callerId'
  | 'callsPerSecond'
  | 'backupEndpointFor'
  | 'burstVoice'
  | 'onFirstSpeech'
  | 'japanese'
  | 'onMissed'
  | 'faultPauseAfterStep';

/** The options with every default filled in. */
export type DialerSettings = Required<Omit<DialerOptions, UnsetByDefault>> & Pick<DialerOptions, UnsetByDefault>;

export function withDefaults(options: DialerOptions): DialerSettings {
  return {
    detectMachine: false,
    digitWaitMs: 5_000,
    pollMs: 250,
    maxTalkMs: 5 * 60_000,
    maxCallSec: 1_000,
    sendsSms: false,
    ...options,
  };
}
