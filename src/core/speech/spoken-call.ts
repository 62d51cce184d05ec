// What a call speaks for one alert body, by the path a call takes: the body parsed as the webhook
// parses it, the account's language and intro, the speech normalizer, the call's script (intro,
// keys, message, prompt). Pure; `ringhook say` and the dashboard's "Hear it" both show this text.
import type { CallSpeech } from './languages.js';
import { parseAlertBody, type Alert, type PayloadErrorCode } from '../webhook/payload.js';
import type { SpeechAids } from './speakable.js';
import { markedShortened, spokenAlertsNoted } from './spoken-alerts.js';

/** The fixed phrases a call may say, in its language. */
export function callPhrases({ intro, language }: CallSpeech): {
  intro: string;
  keys: string;
  prompt: string;
  confirmed: string;
} {
  const { keys, prompt, confirmed } = language.prompts;
  return { intro, keys, prompt, confirmed };
}

/** The phrases an answered call plays, in order: the intro, the keys, the message, the prompt. */
export interface SpokenCall {
  intro: string;
  keys: string;
  message: string;
  prompt: string;
}

export type SpokenBody =
  | { ok: true; phrases: SpokenCall; alert: Alert; notes: string[] }
  | { ok: false; code: PayloadErrorCode; error: string };

/** What a call would speak for this alert body (plain text or JSON), or why the webhook would refuse it. */
export function spokenCall(body: Uint8Array | string, speech: CallSpeech, aids: SpeechAids = {}): SpokenBody {
  const parsed = parseAlertBody(typeof body === 'string' ? new TextEncoder().encode(body) : body, undefined);
  if (!parsed.ok) return { ok: false, code: parsed.code, error: parsed.error };
  const message = spokenAlertsNoted(
    [markedShortened(parsed.alert.message, parsed.alert.truncated)],
    speech.language,
    aids,
  );
  const { keys, prompt } = callPhrases(speech);
  const phrases = { intro: speech.intro, keys, message: message.text, prompt };
  return { ok: true, phrases, alert: parsed.alert, notes: message.notes };
}
