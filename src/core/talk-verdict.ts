// Is it a person or a machine? Read from when the phone talks while the message is already being
// spoken: Asterisk's TALK_DETECT reports each phrase the phone sends (its start, then its length once
// SILENCE_MS of silence followed). Pure: the phrases and the time come in, a verdict (or when to
// look again) goes out. Times are in ms since the answer.

export interface TalkPhrase {
  startMs: number;
  /** The phrase's sound, once it ended; undefined while the phone is still talking. */
  durationMs?: number | undefined;
}

export type TalkStatus = 'HUMAN' | 'MACHINE' | 'NOTSURE';

export interface TalkVerdict {
  status: TalkStatus;
  /** Why, in AMD's style (kept on the call as amd_cause): e.g. LONGGREETING-2600-2000, HUMAN-1-450. */
  cause: string;
}

export type TalkReading = { verdict: TalkVerdict } | { recheckAtMs: number };

export const TALK = {
  /** Silence that ends a phrase (TALK_DETECT's first argument): a greeting's pauses between words stay inside one phrase. */
  silenceMs: 800,
  /** A 20 ms frame whose average level (of 32768) is above this is sound (TALK_DETECT's second argument, Asterisk's default). */
  energy: 256,
  /** Shorter is a click or a burst of line noise, not a word. */
  minPhraseMs: 100,
  /** "Hello?", "Hello, this is Alex": a person's first phrase; a longer one is a recorded greeting. */
  maxPersonPhraseMs: 2_000,
  /** A person says "Hello?" and listens to the message: quiet this long after a short phrase is a person. */
  afterPhraseSilenceMs: 1_500,
  /** A person says one thing and listens to the message; a greeting goes on phrase after phrase. */
  maxPhrases: 3,
  /** No verdict after this (a phrase still going is followed to its end): not sure, the message goes on. */
  analysisMs: 5_000,
  /** After a machine's verdict: its greeting and beep have ended after this much silence… */
  greetingEndSilenceMs: 1_500,
  /** …or this long after the verdict, whichever comes first (a greeting that never stops). */
  greetingEndMaxMs: 20_000,
} as const;
export type TalkSettings = typeof TALK;

/** The least the phrase has sounded by `nowMs`: while it goes on, its last silenceMs may be silence already. */
function soundedMs(p: TalkPhrase, nowMs: number, s: TalkSettings): number {
  return p.durationMs ?? Math.max(0, nowMs - p.startMs - s.silenceMs);
}

/** The verdict on what the phone sent so far, or when to look again if nothing new comes. */
export function readTalk(phrases: readonly TalkPhrase[], nowMs: number, s: TalkSettings = TALK): TalkReading {
  const open = phrases.find((p) => p.durationMs === undefined);
  const heard = phrases.filter((p) => soundedMs(p, nowMs, s) >= s.minPhraseMs);
  const longest = Math.max(0, ...heard.map((p) => soundedMs(p, nowMs, s)));
  if (longest > s.maxPersonPhraseMs)
    return decided('MACHINE', `LONGGREETING-${Math.round(longest)}-${s.maxPersonPhraseMs}`);
  if (heard.length >= s.maxPhrases) return decided('MACHINE', `MAXWORDS-${heard.length}-${s.maxPhrases}`);
  if (open) {
    // Still talking: a machine once it has talked too long, unless it falls silent first (a new event).
    return { recheckAtMs: open.startMs + s.silenceMs + s.maxPersonPhraseMs + 1 };
  }
  const last = heard.at(-1);
  if (last) {
    // A greeting's pause between sentences is shorter than a person's listening.
    const quietFrom = last.startMs + (last.durationMs ?? 0) + s.afterPhraseSilenceMs;
    if (nowMs < quietFrom) return { recheckAtMs: quietFrom };
    return decided('HUMAN', `HUMAN-${heard.length}-${Math.round(last.durationMs ?? 0)}`);
  }
  if (nowMs >= s.analysisMs) return decided('NOTSURE', `INITIALSILENCE-${s.analysisMs}`);
  return { recheckAtMs: s.analysisMs };
}

/**
 * After a machine's verdict at `machineAtMs`: has its greeting (and the beep after it) ended, so
 * that the message lands whole on the recording? If not, when to look again.
 */
export function greetingEnded(
  phrases: readonly TalkPhrase[],
  machineAtMs: number,
  nowMs: number,
  s: TalkSettings = TALK,
): true | { recheckAtMs: number } {
  const limit = machineAtMs + s.greetingEndMaxMs;
  if (nowMs >= limit) return true;
  if (phrases.some((p) => p.durationMs === undefined)) return { recheckAtMs: limit };
  const lastSound = Math.max(
    machineAtMs - s.greetingEndSilenceMs,
    ...phrases.map((p) => p.startMs + (p.durationMs ?? 0)),
  );
  const quietFrom = lastSound + s.greetingEndSilenceMs;
  return nowMs >= quietFrom ? true : { recheckAtMs: Math.min(quietFrom, limit) };
}

function decided(status: TalkStatus, cause: string): TalkReading {
  return { verdict: { status, cause } };
}
