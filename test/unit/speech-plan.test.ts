import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/core/languages.js';
import { burstSynthesis, planSpeech, RING_ALLOWANCE_MS } from '../../src/core/speech-plan.js';

describe('planSpeech', () => {
  it('own voice ready before anybody can answer: its own voice, placed at once', () => {
    expect(planSpeech({ ownReadyMs: RING_ALLOWANCE_MS, burstReadyMs: 10 })).toEqual({ voice: 'own', waitForSpeech: false });
  });

  it('own voice late, burst voice on time: the burst voice, placed at once', () => {
    expect(planSpeech({ ownReadyMs: RING_ALLOWANCE_MS + 1, burstReadyMs: RING_ALLOWANCE_MS })).toEqual({ voice: 'burst', waitForSpeech: false });
  });

  it('both late: the sooner of the two, and the call waits for it', () => {
    expect(planSpeech({ ownReadyMs: 9_000, burstReadyMs: 3_000 })).toEqual({ voice: 'burst', waitForSpeech: true });
    expect(planSpeech({ ownReadyMs: 3_000, burstReadyMs: 3_000 })).toEqual({ voice: 'own', waitForSpeech: true });
  });

  it('no burst voice: its own voice, waiting when late', () => {
    expect(planSpeech({ ownReadyMs: 9_000, burstReadyMs: undefined })).toEqual({ voice: 'own', waitForSpeech: true });
    expect(planSpeech({ ownReadyMs: 100, burstReadyMs: undefined })).toEqual({ voice: 'own', waitForSpeech: false });
  });
});

describe('burstSynthesis', () => {
  it("English gets flite's burst voice; other languages and a voice that is the burst voice already get none; off gives none", () => {
    expect(burstSynthesis(LANGUAGES.en, undefined, 'kal')).toEqual({ engine: 'flite', voice: 'kal' });
    expect(burstSynthesis(LANGUAGES.en, { engine: 'festival', voice: 'cmu_us_slt_arctic_hts' }, 'kal16')).toEqual({ engine: 'flite', voice: 'kal16' });
    expect(burstSynthesis(LANGUAGES.en, { engine: 'flite', voice: 'kal16' }, 'kal16')).toBeUndefined();
    expect(burstSynthesis(LANGUAGES.de, { engine: 'espeak-ng', voice: 'de' }, 'kal16')).toBeUndefined();
    expect(burstSynthesis(LANGUAGES.en, undefined, undefined)).toBeUndefined();
  });
});
