// The person-or-machine verdict over sequences of talk as TALK_DETECT reports them (times in ms
// since the answer).
import { describe, expect, it } from 'vitest';
import {
  type AudioFlow,
  type AudioGap,
  audioGaps,
  greetingEnded,
  heardPhrases,
  readTalk,
  TALK,
  type TalkPhrase,
} from '../../src/core/calls/talk-verdict.js';

/** Reads the phrases at every 20 ms until a verdict: the verdict, and when it came. */
function verdictOver(phrases: TalkPhrase[], untilMs = 30_000) {
  for (let now = 0; now <= untilMs; now += 20) {
    // Only what Asterisk had reported by then: a phrase is known from its start, its length once it ended (+ the silence that ends it).
    const known = phrases
      .filter((p) => p.startMs <= now)
      .map((p) =>
        p.durationMs !== undefined && p.startMs + p.durationMs + TALK.silenceMs <= now ? p : { startMs: p.startMs },
      );
    const r = readTalk(known, now);
    if ('verdict' in r) return { ...r.verdict, atMs: now };
  }
  return undefined;
}

describe('readTalk: person or machine', () => {
  it('a person: "Hello?" (0.45 s) then listening is a person, once 1.5 s of quiet followed', () => {
    expect(verdictOver([{ startMs: 300, durationMs: 450 }])).toEqual({
      status: 'HUMAN',
      cause: 'HUMAN-1-450',
      atMs: 2_260,
    });
  });

  it('a person who talks over the intro twice ("Hello?" … "Yes?") is still a person', () => {
    expect(
      verdictOver([
        { startMs: 250, durationMs: 500 },
        { startMs: 1_700, durationMs: 400 },
      ])?.status,
    ).toBe('HUMAN');
  });

  it('a person with a longer first phrase ("Hello, this is Alex speaking", 1.8 s) is a person', () => {
    expect(verdictOver([{ startMs: 400, durationMs: 1_800 }])).toMatchObject({
      status: 'HUMAN',
      cause: 'HUMAN-1-1800',
    });
  });

  it('a voicemail greeting that talks on (5 s, pauses shorter than 0.8 s inside): a machine 2.8 s after it began, before it ends', () => {
    const v = verdictOver([{ startMs: 180, durationMs: 5_200 }]);
    expect(v).toMatchObject({ status: 'MACHINE', cause: 'LONGGREETING-2020-2000' });
    expect(v!.atMs).toBeLessThan(180 + 5_200);
  });

  it('a greeting of several short phrases with pauses (Hi … you have reached … leave a message): a machine at the third', () => {
    const v = verdictOver([
      { startMs: 200, durationMs: 900 },
      { startMs: 2_000, durationMs: 1_200 },
      { startMs: 3_900, durationMs: 1_100 },
    ]);
    expect(v).toMatchObject({ status: 'MACHINE', cause: 'MAXWORDS-3-3' });
  });

  it('a short greeting then a beep (its own phrase): a machine by the count, though each is short', () => {
    const v = verdictOver([
      { startMs: 150, durationMs: 1_500 },
      { startMs: 2_500, durationMs: 1_000 },
      { startMs: 4_400, durationMs: 400 },
    ]);
    expect(v?.status).toBe('MACHINE');
  });

  it("a silent phone: not sure at 5 s, and Asterisk's first empty report at the start (talk of 0 ms) is not a word", () => {
    expect(verdictOver([])).toEqual({ status: 'NOTSURE', cause: 'INITIALSILENCE-5000', atMs: 5_000 });
    expect(verdictOver([{ startMs: 5, durationMs: 20 }])).toMatchObject({ status: 'NOTSURE', atMs: 5_000 });
  });

  it('clicks and line noise shorter than 0.1 s are not words', () => {
    expect(
      verdictOver([
        { startMs: 600, durationMs: 60 },
        { startMs: 1_800, durationMs: 40 },
        { startMs: 2_900, durationMs: 80 },
      ])?.status,
    ).toBe('NOTSURE');
  });

  it('a greeting that begins late (at 4 s) is followed past the 5 s mark to its verdict', () => {
    expect(verdictOver([{ startMs: 4_000, durationMs: 6_000 }])).toMatchObject({ status: 'MACHINE', atMs: 6_820 });
  });

  it('no new event: the reading says when to look again (the next moment a verdict could fall)', () => {
    expect(readTalk([], 0)).toEqual({ recheckAtMs: TALK.analysisMs });
    expect(readTalk([{ startMs: 300 }], 400)).toEqual({
      recheckAtMs: 300 + TALK.silenceMs + TALK.maxPersonPhraseMs + 1,
    });
    expect(readTalk([{ startMs: 300, durationMs: 450 }], 1_550)).toEqual({
      recheckAtMs: 300 + 450 + TALK.afterPhraseSilenceMs,
    });
  });
});

describe("readTalk over sequences recorded from Asterisk 22 (test/e2e/voicemail.test.ts, the calls' timelines)", () => {
  it('flite\'s "Hello?" sent from the answer: talk 0.22 s for 0.54 s → a person at 2.26 s', () => {
    expect(verdictOver([{ startMs: 220, durationMs: 540 }])).toEqual({
      status: 'HUMAN',
      cause: 'HUMAN-1-540',
      atMs: 2_260,
    });
  });

  it('a 5.6 s greeting and its 0.4 s beep: talk 0.19 s for 6.00 s → a machine at 2.99 s; the message left at 7.69 s', () => {
    const greeting = [{ startMs: 190, durationMs: 6_000 }];
    expect(verdictOver(greeting)).toMatchObject({ status: 'MACHINE', atMs: 3_000 });
    expect(greetingEnded(greeting, 2_990, 7_680)).toEqual({ recheckAtMs: 7_690 });
    expect(greetingEnded(greeting, 2_990, 7_690)).toBe(true);
  });

  it('µ-law silence from the answer: no talk reported → not sure at 5 s', () => {
    expect(verdictOver([])).toMatchObject({ status: 'NOTSURE', atMs: 5_000 });
  });
});

describe('greetingEnded: when the message may be left', () => {
  it('after the greeting and its beep, 1.5 s of quiet', () => {
    const phrases = [{ startMs: 200, durationMs: 5_600 }];
    expect(greetingEnded(phrases, 3_000, 6_600)).toEqual({ recheckAtMs: 7_300 });
    expect(greetingEnded(phrases, 3_000, 7_300)).toBe(true);
  });

  it('still talking: not yet, but never later than 20 s after the verdict', () => {
    expect(greetingEnded([{ startMs: 200 }], 3_000, 10_000)).toEqual({ recheckAtMs: 23_000 });
    expect(greetingEnded([{ startMs: 200 }], 3_000, 23_000)).toBe(true);
  });

  it('a beep after a pause, as its own phrase, holds the message back until it too has ended', () => {
    const phrases = [{ startMs: 200, durationMs: 4_800 }, { startMs: 5_900 }];
    expect(greetingEnded(phrases, 3_000, 6_000)).toEqual({ recheckAtMs: 23_000 });
    expect(
      greetingEnded(
        [
          { startMs: 200, durationMs: 4_800 },
          { startMs: 5_900, durationMs: 400 },
        ],
        3_000,
        7_100,
      ),
    ).toEqual({ recheckAtMs: 7_800 });
  });
});

/** The flow after readings every 100 ms of a phone that sends `bytesPerMs(t)` payload bytes a ms. */
function flowOver(untilMs: number, bytesPerMs: (atMs: number) => number, everyMs = 100): AudioFlow {
  let flow: AudioFlow = { gaps: [] };
  let bytes = 0;
  for (let at = 0; at <= untilMs; at += everyMs) {
    if (at > 0) for (let t = at - everyMs; t < at; t++) bytes += bytesPerMs(t);
    flow = audioGaps(flow, { atMs: at, bytes });
  }
  return flow;
}

describe('audioGaps: silence suppression seen in the receive counters', () => {
  it('G.711 (8 bytes a ms) is audio; after it stops, a gap from the last reading with audio, going on', () => {
    expect(flowOver(3_000, (t) => (t < 900 ? 8 : 0)).gaps).toEqual([{ fromMs: 900 }]);
  });

  it('comfort noise, even one packet every 20 ms (11 bytes), is no audio', () => {
    expect(flowOver(3_000, (t) => (t < 900 ? 8 : t % 20 === 0 ? 11 : 0)).gaps).toEqual([{ fromMs: 900 }]);
  });

  it('a key pressed (RFC 4733: a 4-byte event every 20 ms, the phone sending no audio meanwhile) is no audio, not talk', () => {
    // A person pressing keys one after another for 2 s after "Hello?": one gap, the verdict's silence.
    expect(flowOver(3_000, (t) => (t < 900 ? 8 : t % 20 === 0 ? 4 : 0)).gaps).toEqual([{ fromMs: 900 }]);
  });

  it('audio again: the gap ends at the last reading without audio (the least it can have been)', () => {
    expect(flowOver(5_000, (t) => (t < 900 || t >= 2_950 ? 8 : 0)).gaps).toEqual([{ fromMs: 900, toMs: 2_900 }]);
  });

  it('a gap shorter than the silence that ends a phrase (lost packets, a pause between words) is forgotten once it ends', () => {
    expect(flowOver(3_000, (t) => (t >= 1_000 && t < 1_500 ? 0 : 8)).gaps).toEqual([]);
  });

  it("the counters starting again from 0 (the phone's stream changed) is audio, not a gap", () => {
    const flow = audioGaps({ last: { atMs: 1_000, bytes: 8_000 }, gaps: [] }, { atMs: 1_100, bytes: 800 });
    expect(flow.gaps).toEqual([]);
  });

  it('a phone silent from the answer: a gap from the first reading', () => {
    expect(flowOver(2_000, () => 0).gaps).toEqual([{ fromMs: 0 }]);
  });
});

describe("heardPhrases: TALK_DETECT's phrases cut by the gaps in the audio", () => {
  it("a phrase still going on (no silence frames came) ended where the audio stopped, once the gap is as long as a phrase's ending silence", () => {
    const gap: AudioGap = { fromMs: 900 };
    expect(heardPhrases([{ startMs: 200 }], [gap], 1_600)).toEqual([{ startMs: 200 }]);
    expect(heardPhrases([{ startMs: 200 }], [gap], 1_700)).toEqual([{ startMs: 200, durationMs: 700 }]);
  });

  it('talk again after a gap: a new phrase from where the audio came back, though TALK_DETECT reports one', () => {
    expect(heardPhrases([{ startMs: 200 }], [{ fromMs: 900, toMs: 2_900 }], 3_500)).toEqual([
      { startMs: 200, durationMs: 700 },
      { startMs: 2_900 },
    ]);
    expect(heardPhrases([{ startMs: 200, durationMs: 3_600 }], [{ fromMs: 900, toMs: 2_900 }], 5_000)).toEqual([
      { startMs: 200, durationMs: 700 },
      { startMs: 2_900, durationMs: 900 },
    ]);
  });

  it('a phrase begun after the last reading with audio is kept (the readings have not caught up with it)', () => {
    expect(heardPhrases([{ startMs: 3_000 }], [{ fromMs: 900 }], 3_050)).toEqual([{ startMs: 3_000 }]);
  });

  it('gaps outside a phrase change nothing', () => {
    const phrases = [{ startMs: 2_000, durationMs: 500 }];
    expect(heardPhrases(phrases, [{ fromMs: 0, toMs: 1_900 }, { fromMs: 2_600 }], 5_000)).toEqual(phrases);
  });
});

describe('readTalk and greetingEnded with a phone that suppresses its silence', () => {
  /** Reads at every 20 ms, with what TALK_DETECT and the counters had told by then. */
  function verdictWithGaps(phrases: TalkPhrase[], bytesPerMs: (atMs: number) => number, untilMs = 30_000) {
    for (let now = 0; now <= untilMs; now += 20) {
      const known = phrases.filter((p) => p.startMs <= now).map((p) => ({ startMs: p.startMs }));
      const r = readTalk(known, now, flowOver(now, bytesPerMs).gaps);
      if ('verdict' in r) return { ...r.verdict, atMs: now };
    }
    return undefined;
  }

  it('"Hello?" (0.2–0.9 s) then no audio: TALK_DETECT never ends the phrase, yet a person at 2.4 s, as with silent audio (2.26 s without suppression for a 0.54 s "Hello?")', () => {
    expect(verdictWithGaps([{ startMs: 200 }], (t) => (t < 900 ? 8 : 0))).toEqual({
      status: 'HUMAN',
      cause: 'HUMAN-1-700',
      atMs: 2_400,
    });
  });

  it('before: the same phone read from TALK_DETECT alone is a machine (LONGGREETING), as issue #45 saw', () => {
    expect(verdictOver([{ startMs: 200 }])).toMatchObject({ status: 'MACHINE', cause: 'LONGGREETING-2020-2000' });
  });

  it("a greeting with pauses (0.5 s) shorter than a phrase's ending silence between its sentences: one phrase, a machine", () => {
    const talking = (t: number) => (t < 7_000 && t % 2_000 < 1_500 ? 8 : 0);
    expect(verdictWithGaps([{ startMs: 100 }], talking)).toMatchObject({ status: 'MACHINE', atMs: 2_920 });
  });

  it('once a machine: its greeting and beep have ended 1.5 s after its audio stopped, not 20 s after the verdict', () => {
    const gaps = flowOver(9_000, (t) => (t < 6_800 ? 8 : 0)).gaps;
    expect(greetingEnded([{ startMs: 100 }], 2_920, 7_500, gaps)).toEqual({ recheckAtMs: 7_600 });
    expect(greetingEnded([{ startMs: 100 }], 2_920, 7_600, gaps)).toEqual({ recheckAtMs: 8_300 });
    expect(greetingEnded([{ startMs: 100 }], 2_920, 8_300, gaps)).toBe(true);
    expect(greetingEnded([{ startMs: 100 }], 2_920, 8_300)).toEqual({ recheckAtMs: 22_920 });
  });

  it("a gap not yet as long as a phrase's ending silence: look again when it will be", () => {
    expect(readTalk([{ startMs: 200 }], 1_200, [{ fromMs: 900 }])).toEqual({ recheckAtMs: 1_700 });
  });
});
