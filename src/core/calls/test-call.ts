// What asking for a test call gives, for the dashboard and the CLI alike. Pure.
import { LANGUAGES } from '../speech/languages.js';
import type { LanguageCode } from '../speech/language-types.js';

/** What a test call says, in the account's language (kept in the history as its message). */
export function testCallMessage(language: LanguageCode): string {
  return LANGUAGES[language].prompts.testCall;
}

export type TestCallResult =
  /** `outboxed`: its call.queued status callback was written with it. */
  | { accepted: true; callId: string; receivedAt: number; outboxed?: boolean }
  | { accepted: false; reason: 'rate_limited'; retryAfterSeconds: number }
  | { accepted: false; reason: 'suspended' };
