// Is it a person or a machine? Read from when the phone talks while the message is already being
// spoken: Asterisk's TALK_DETECT reports each phrase the phone sends (its start, then its length once
// SILENCE_MS of silence followed). Pure: the phrases and the time come in, a verdict (or when to
// look again) goes out. Times are in ms since the answer.
//
// TALK_DETECT hears only the audio frames that arrive: a phone with silence suppression (VAD/DTX)
// sends none while its user is silent, or only comfort noise (RFC 3389), so TALK_DETECT never hears
// the silence that ends a phrase. The gaps in the phone's audio, seen in the channel's receive
// counters, are that silence: they cut the phrases TALK_DETECT reports (audioGaps, heardPhrases).

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
  /** While listening, the channel's receive counters are read this often (ms). */
  rtpReadMs: 100,
  /**
   * Audio, not a gap: at least this many payload bytes a ms. G.711 sends 8; a comfort noise packet
   * holds 1 to 11 bytes (at most 0.55 a ms, one every 20 ms), an RFC 4733 digit 4.
   */
  audioBytesPerMs: 2,
} as const;
export type TalkSettings = typeof TALK;

/**
 * A stretch in which the phone sent no audio (nothing, or only comfort noise): silence, whatever
 * TALK_DETECT says. `toMs` is undefined while the phone is still quiet.
 */
export interface AudioGap {
  fromMs: number;
  toMs?: number | undefined;
}

/** One reading of the channel's receive counters: the payload bytes received so far. */
export interface RtpReading {
  atMs: number;
  bytes: number;
}

/** What the readings so far tell: the last one, and the phone's gaps (the last may be going on). */
export interface AudioFlow {
  last?: RtpReading | undefined;
  gaps: readonly AudioGap[];
}

/**
 * The flow with one more reading. A gap is known by its edges only to a reading's interval: it is
 * taken from the last reading with audio to the last one without, the least it can have been, so
 * that nothing the phone said is taken for silence. A gap shorter than a phrase's ending silence
 * is forgotten once it ends: within a phrase, as TALK_DETECT counts it.
 */
export function audioGaps(flow: AudioFlow, reading: RtpReading, s: TalkSettings = TALK): AudioFlow {
  const { last } = flow;
  if (!last) return { last: reading, gaps: flow.gaps };
  // The counters start again from 0 when the phone's stream changes (a new SSRC).
  const bytes = reading.bytes >= last.bytes ? reading.bytes - last.bytes : reading.bytes;
  const audio = bytes >= s.audioBytesPerMs * Math.max(1, reading.atMs - last.atMs);
  const open = flow.gaps.at(-1)?.toMs === undefined ? flow.gaps.at(-1) : undefined;
  if (audio && open) {
    const ended = { fromMs: open.fromMs, toMs: last.atMs };
    const kept = ended.toMs - ended.fromMs >= s.silenceMs ? [ended] : [];
    return { last: reading, gaps: [...flow.gaps.slice(0, -1), ...kept] };
  }
  if (!audio && !open) return { last: reading, gaps: [...flow.gaps, { fromMs: last.atMs }] };
  return { last: reading, gaps: flow.gaps };
}

/**
 * The phrases as the phone said them: TALK_DETECT's, cut where the phone sent no audio for a
 * phrase's ending silence or longer. A phrase still going on at a gap that is still going on
 * ended where the gap began.
 */
export function heardPhrases(
  phrases: readonly TalkPhrase[],
  gaps: readonly AudioGap[],
  nowMs: number,
  s: TalkSettings = TALK,
): TalkPhrase[] {
  const silences = gaps.filter((g) => (g.toMs ?? nowMs) - g.fromMs >= s.silenceMs);
  if (silences.length === 0) return [...phrases];
  const heard: TalkPhrase[] = [];
  for (const p of phrases) {
    const end = p.durationMs === undefined ? undefined : p.startMs + p.durationMs;
    let start: number | undefined = p.startMs;
    for (const g of silences) {
      if (end !== undefined && g.fromMs >= end) break;
      if (g.toMs === undefined) {
        // A phrase begun after the last reading with audio: the readings have not caught up with it yet.
        if (g.fromMs > start) {
          heard.push({ startMs: start, durationMs: g.fromMs - start });
          start = undefined;
        }
        break;
      }
      if (g.toMs <= start) continue;
      if (g.fromMs > start) heard.push({ startMs: start, durationMs: g.fromMs - start });
      start = Math.max(start, g.toMs);
    }
    if (start === undefined) continue;
    if (end === undefined) heard.push({ startMs: start });
    else if (end > start) heard.push({ startMs: start, durationMs: end - start });
  }
  return heard;
}

/** When a gap still going on becomes a phrase's ending silence (a moment to look again), if one is. */
function silenceDueAt(gaps: readonly AudioGap[], nowMs: number, s: TalkSettings): number | undefined {
  const open = gaps.at(-1);
  return open && open.toMs === undefined && nowMs - open.fromMs < s.silenceMs ? open.fromMs + s.silenceMs : undefined;
}

/** The least the phrase has sounded by `nowMs`: while it goes on, its last silenceMs may be silence already. */
function soundedMs(p: TalkPhrase, nowMs: number, s: TalkSettings): number {
  return p.durationMs ?? Math.max(0, nowMs - p.startMs - s.silenceMs);
}

/**
 * The verdict on what the phone sent so far (TALK_DETECT's phrases, cut by the gaps in its audio),
 * or when to look again if nothing new comes.
 */
export function readTalk(
  phrases: readonly TalkPhrase[],
  nowMs: number,
  gaps: readonly AudioGap[] = [],
  s: TalkSettings = TALK,
): TalkReading {
  const reading = readPhrases(heardPhrases(phrases, gaps, nowMs, s), nowMs, s);
  const due = silenceDueAt(gaps, nowMs, s);
  return 'recheckAtMs' in reading && due !== undefined ? { recheckAtMs: Math.min(reading.recheckAtMs, due) } : reading;
}

function readPhrases(phrases: readonly TalkPhrase[], nowMs: number, s: TalkSettings): TalkReading {
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
  talk: readonly TalkPhrase[],
  machineAtMs: number,
  nowMs: number,
  gaps: readonly AudioGap[] = [],
  s: TalkSettings = TALK,
): true | { recheckAtMs: number } {
  const limit = machineAtMs + s.greetingEndMaxMs;
  if (nowMs >= limit) return true;
  const phrases = heardPhrases(talk, gaps, nowMs, s);
  if (phrases.some((p) => p.durationMs === undefined))
    return { recheckAtMs: Math.min(limit, silenceDueAt(gaps, nowMs, s) ?? limit) };
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
