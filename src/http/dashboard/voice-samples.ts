// The dashboard's "Hear it": the owner's own alert message as a call would speak it, with the
// bounds that keep the speech engine for calls: a message the webhook would take whole (500
// characters), one sample made at a time per account, and the test calls' pace for new messages.
import type { Account } from '../../core/account.js';
import { callSpeech, type CallSpeech } from '../../core/speech/languages.js';
import type { SpeechAids } from '../../core/speech/speakable.js';
import { decideTestPace, HOUR_MS } from '../../core/webhook/limits.js';
import { MAX_MESSAGE_CODE_POINTS } from '../../core/webhook/payload.js';
import { SAMPLE_ALERT } from '../../core/speech/spoken-alerts.js';
import { spokenCall, type SpokenCall } from '../../core/speech/spoken-call.js';
import type { Logger } from '../../lib/log.js';
import type { SpokenAudio } from '../../speech/index.js';

/** The box holds an alert body, plain text or JSON: room for JSON fields around a 500-character message. */
export const MAX_HEAR_BOX_CHARS = 2_000;

/** How long a second request waits to be asked again while a sample is being made. */
const BUSY_RETRY_SECONDS = 2;

/** Past this many accounts in the pace's memory, those idle for an hour are forgotten. */
const SWEEP_AT = 1_000;

export type HearText =
  | { ok: true; phrases: SpokenCall; speech: CallSpeech; message: string; counted: boolean }
  | { ok: false; error: string };

/** What a call would speak for this alert body in the account's language, voice and intro, or why it is refused. */
export function hearText(
  body: string,
  account: Pick<Account, 'language' | 'voice' | 'intro'>,
  aids: SpeechAids = {},
): HearText {
  const length = [...body].length;
  if (length > MAX_HEAR_BOX_CHARS)
    return { ok: false, error: `The text is ${length} characters; paste at most ${MAX_HEAR_BOX_CHARS}.` };
  const speech = callSpeech(account);
  const spoken = spokenCall(body, speech, aids);
  if (!spoken.ok) return { ok: false, error: `The webhook would refuse this: ${spoken.error}` };
  if (spoken.alert.truncated) {
    return {
      ok: false,
      error: `The message is ${spoken.alert.originalLength} characters: at most ${MAX_MESSAGE_CODE_POINTS} are spoken (the webhook cuts the rest). Shorten it to hear it whole.`,
    };
  }
  // The sample every owner is offered is one text a voice, made once and kept: it does not count.
  return {
    ok: true,
    phrases: spoken.phrases,
    speech,
    message: spoken.alert.message,
    counted: spoken.alert.message !== SAMPLE_ALERT,
  };
}

export type SampleResult =
  | { ok: true; audio: SpokenAudio }
  | { ok: false; status: 429; retryAfterSeconds: number; error: string }
  | { ok: false; status: 503; error: string };

type Make = (phrases: SpokenCall, speech: CallSpeech) => Promise<SpokenAudio>;

/**
 * Makes the samples, one at a time per account (a second request meanwhile is answered 429 at
 * once, not queued: nothing waits on the engine), at the test calls' pace (TEST_CALL_LIMITS) for
 * texts not heard in the last hour; hearing a text again (replay, the player's own requests) is
 * free, the speech cache serving it. Kept in this node's memory.
 */
export class VoiceSamples {
  private readonly busy = new Set<string>();
  private readonly heard = new Map<string, Array<{ at: number; key: string }>>();

  constructor(
    private readonly make: Make,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {}

  async sample(userId: string, text: Extract<HearText, { ok: true }>): Promise<SampleResult> {
    if (this.busy.has(userId)) {
      return {
        ok: false,
        status: 429,
        retryAfterSeconds: BUSY_RETRY_SECONDS,
        error: 'A sample is being made for you right now; try again in a moment.',
      };
    }
    const now = this.now();
    const key = JSON.stringify([text.speech.synthesis ?? null, text.phrases]);
    const heard = (this.heard.get(userId) ?? []).filter((h) => h.at > now - HOUR_MS);
    const counts = text.counted && !heard.some((h) => h.key === key);
    if (counts) {
      const pace = decideTestPace(
        now,
        heard.map((h) => h.at),
      );
      if (!pace.allowed) {
        const retry = pace.limit === 'burst' ? pace.retryAfterSeconds : 60;
        return {
          ok: false,
          status: 429,
          retryAfterSeconds: retry,
          error: `Too many new messages to hear; try again in ${retry} seconds (as for test calls).`,
        };
      }
    }
    this.busy.add(userId);
    try {
      const audio = await this.make(text.phrases, text.speech);
      if (counts) heard.push({ at: now, key });
      this.remember(userId, heard, now);
      return { ok: true, audio };
    } catch (error) {
      this.logger.warn('dashboard: the speech sample could not be made', { user_id: userId, error });
      return { ok: false, status: 503, error: 'The sample could not be made just now; try again in a moment.' };
    } finally {
      this.busy.delete(userId);
    }
  }

  private remember(userId: string, heard: Array<{ at: number; key: string }>, now: number): void {
    if (heard.length > 0) this.heard.set(userId, heard);
    else this.heard.delete(userId);
    if (this.heard.size < SWEEP_AT) return;
    for (const [id, list] of this.heard) if (list.every((h) => h.at <= now - HOUR_MS)) this.heard.delete(id);
  }
}
