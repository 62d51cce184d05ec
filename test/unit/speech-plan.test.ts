import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import {
  backlogged,
  burstSynthesis,
  describeSpeechPlan,
  planSpeech,
  RING_ALLOWANCE_MS,
  voiceWhenDue,
} from '../../src/core/speech/speech-plan.js';

describe('planSpeech', () => {
  const WAIT = Number.POSITIVE_INFINITY;

  it('own voice ready before anybody can answer: its own voice, placed at once', () => {
    expect(planSpeech({ ownReadyMs: RING_ALLOWANCE_MS, ownMakingMs: 150, burstReadyMs: 10 })).toEqual({
      voice: 'own',
      holdMs: 0,
    });
  });

  it('own voice late because of the speech queued before it, burst voice on time: the burst voice, placed at once', () => {
    expect(
      planSpeech({ ownReadyMs: RING_ALLOWANCE_MS + 1, ownMakingMs: 150, burstReadyMs: RING_ALLOWANCE_MS }),
    ).toEqual({
      voice: 'burst',
      because: 'late',
      holdMs: 0,
    });
  });

  it('a voice slower than a ring by itself, little queued: its own voice, held until its speech is ready when the phone can first be answered', () => {
    expect(planSpeech({ ownReadyMs: 2_500, ownMakingMs: 2_500, burstReadyMs: 100 })).toEqual({
      voice: 'own',
      holdMs: 2_500 - RING_ALLOWANCE_MS,
    });
    expect(planSpeech({ ownReadyMs: 4_000, ownMakingMs: 2_500, burstReadyMs: 100 })).toEqual({
      voice: 'own',
      holdMs: 4_000 - RING_ALLOWANCE_MS,
    });
    // More queued than a ring gets through: the burst voice.
    expect(planSpeech({ ownReadyMs: 4_100, ownMakingMs: 2_500, burstReadyMs: 100 })).toEqual({
      voice: 'burst',
      because: 'late',
      holdMs: 0,
    });
  });

  it('both late: the sooner of the two, and the call waits for it', () => {
    expect(planSpeech({ ownReadyMs: 9_000, ownMakingMs: 150, burstReadyMs: 3_000 })).toEqual({
      voice: 'burst',
      because: 'late',
      holdMs: WAIT,
    });
    expect(planSpeech({ ownReadyMs: 3_000, ownMakingMs: 150, burstReadyMs: 3_000 })).toEqual({
      voice: 'own',
      holdMs: WAIT,
    });
  });

  it('calls waiting behind: the burst voice when it is cheaper and on time, even though the own voice would be on time too', () => {
    const slt = { ownReadyMs: 200, ownMakingMs: 70, burstReadyMs: 150, burstCheaper: true };
    expect(planSpeech({ ...slt, backlog: true })).toEqual({ voice: 'burst', because: 'backlog', holdMs: 0 });
    expect(planSpeech({ ...slt, backlog: false })).toEqual({ voice: 'own', holdMs: 0 });
    // Festival, slower than a ring by itself: not held while others wait.
    expect(
      planSpeech({ ownReadyMs: 2_500, ownMakingMs: 2_500, burstReadyMs: 100, burstCheaper: true, backlog: true }),
    ).toEqual({
      voice: 'burst',
      because: 'backlog',
      holdMs: 0,
    });
    // The burst voice no cheaper (espeak-ng as the own voice): the own voice.
    expect(
      planSpeech({ ownReadyMs: 200, ownMakingMs: 5, burstReadyMs: 150, burstCheaper: false, backlog: true }),
    ).toEqual({ voice: 'own', holdMs: 0 });
    // The burst voice itself late: the rules without a backlog.
    expect(
      planSpeech({ ownReadyMs: 9_000, ownMakingMs: 70, burstReadyMs: 3_000, burstCheaper: true, backlog: true }),
    ).toEqual({
      voice: 'burst',
      because: 'late',
      holdMs: WAIT,
    });
    expect(planSpeech({ ownReadyMs: 200, ownMakingMs: 70, burstReadyMs: undefined, backlog: true })).toEqual({
      voice: 'own',
      holdMs: 0,
    });
  });

  it('no burst voice: its own voice, waiting when late', () => {
    expect(planSpeech({ ownReadyMs: 9_000, ownMakingMs: 150, burstReadyMs: undefined })).toEqual({
      voice: 'own',
      holdMs: WAIT,
    });
    expect(planSpeech({ ownReadyMs: 100, ownMakingMs: 100, burstReadyMs: undefined })).toEqual({
      voice: 'own',
      holdMs: 0,
    });
  });
});

describe('backlogged', () => {
  it('more calls waiting than the trunk takes in a ring; never without pacing', () => {
    const perRing = (50 * RING_ALLOWANCE_MS) / 1000;
    expect(backlogged(perRing, 50)).toBe(false);
    expect(backlogged(perRing + 1, 50)).toBe(true);
    expect(backlogged(1_000, undefined)).toBe(false);
  });
});

describe('voiceWhenDue', () => {
  it('the burst voice for an alert with more waiting behind it than a ring takes, when cheaper; else its own', () => {
    const perRing = (50 * RING_ALLOWANCE_MS) / 1000;
    expect(voiceWhenDue(perRing + 1, 50, true)).toBe('burst');
    expect(voiceWhenDue(perRing, 50, true)).toBe('own');
    expect(voiceWhenDue(1_000, 50, false)).toBe('own');
    expect(voiceWhenDue(1_000, undefined, true)).toBe('own');
  });
});

describe('burstSynthesis', () => {
  it("English gets flite's burst voice; other languages and a voice that is the burst voice already get none; off gives none", () => {
    expect(burstSynthesis(LANGUAGES.en, undefined, 'kal')).toEqual({ engine: 'flite', voice: 'kal' });
    expect(burstSynthesis(LANGUAGES.en, { engine: 'festival', voice: 'cmu_us_slt_arctic_hts' }, 'kal16')).toEqual({
      engine: 'flite',
      voice: 'kal16',
    });
    expect(burstSynthesis(LANGUAGES.en, { engine: 'flite', voice: 'kal16' }, 'kal16')).toBeUndefined();
    expect(burstSynthesis(LANGUAGES.de, { engine: 'espeak-ng', voice: 'de' }, 'kal16')).toBeUndefined();
    expect(burstSynthesis(LANGUAGES.en, undefined, undefined)).toBeUndefined();
  });
});

describe('describeSpeechPlan', () => {
  it('names the burst voice, gives a hold rounded up to a tenth of a second, and says nothing of the plain cases', () => {
    expect(describeSpeechPlan({ voice: 'burst', because: 'late', holdMs: 0 }, 'kal')).toMatch(
      /^spoken with the burst voice \(kal\): its own would not/,
    );
    expect(describeSpeechPlan({ voice: 'burst', because: 'backlog', holdMs: 0 }, 'kal')).toMatch(
      /^spoken with the burst voice \(kal\): more calls were waiting/,
    );
    expect(describeSpeechPlan({ voice: 'own', holdMs: 20 }, 'slt')).toMatch(/^placed up to 0\.1 s later/);
    expect(describeSpeechPlan({ voice: 'own', holdMs: 1_250 }, 'slt')).toMatch(/^placed up to 1\.3 s later/);
    expect(describeSpeechPlan({ voice: 'own', holdMs: 0 }, 'slt')).toBeUndefined();
    expect(describeSpeechPlan({ voice: 'own', holdMs: Number.POSITIVE_INFINITY }, 'slt')).toBeUndefined();
  });
});
