// What the dashboard is built from: the service's parts, and what it shows or offers beside them.
import type { Account } from '../../core/account.js';
import type { SmsGatewaySetting } from '../../core/delivery/sms-truth.js';
import type { TestCallResult } from '../../core/calls/test-call.js';
import type { CallSpeech } from '../../core/speech/languages.js';
import type { JapaneseReader } from '../../core/speech/speakable.js';
import type { SpokenCall } from '../../core/speech/spoken-call.js';
import type { SpokenAudio } from '../../speech/index.js';
import type { ServiceDeps } from '../../store/index.js';
import type { AddressMatcher } from '../../core/connections/address-match.js';
import type { SourceRule } from '../../core/webhook/webhook-sources.js';
import type { LiveLimits } from './live-caps.js';

export interface DashboardDeps extends ServiceDeps {
  /** Base of the webhook URLs shown to owners. */
  publicUrl: string;
  /** The number calls come from (RINGHOOK_CALLER_ID), offered as a contact card. */
  callerId?: string | undefined;
  /** The SMS gateway serve sends with ('none' when absent): what the SMS backup switch may promise. */
  smsGateway?: SmsGatewaySetting;
  /** Places a test call to the account's phone (the dialer); absent when telephony is off. */
  placeTestCall?: (account: Account) => Promise<TestCallResult>;
  /** A call's speech (intro, message, prompt) as one WAV in the account's voice; absent when telephony is off. */
  speechSample?: (phrases: SpokenCall, speech: CallSpeech) => Promise<SpokenAudio>;
  /** The kanji reader for a Japanese account's "Hear it" (loaded on the first ask); absent: the built-in table of market words. */
  readJapanese?: () => Promise<JapaneseReader | undefined>;
  /** The server's allowed alert sources (RINGHOOK_WEBHOOK_SOURCES): the owner's card says they apply. */
  webhookSources?: SourceRule;
  /** Reverse proxies whose X-Forwarded-For names the client (for sign-in throttling by address). */
  trustProxy?: AddressMatcher;
  /** Aborted when the service stops: open live-history streams end so the server can close. */
  shutdown?: AbortSignal;
  /** Caps on open live-history streams (tests lower them). */
  liveLimits?: Partial<LiveLimits>;
  /** Signs the sign-in forms (SecretBox.signInFormKey): every node must have the same. */
  signInFormKey: Buffer;
}
