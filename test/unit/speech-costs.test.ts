import { describe, expect, it } from 'vitest';
import { SpeechCosts } from '../../src/core/speech-costs.js';

describe('SpeechCosts', () => {
  it('first guesses a voice never timed, then follows what it took, one slow message moving it a fifth of the way', () => {
    const costs = new SpeechCosts();
    expect(costs.expectedMs('festival', 'cmu_us_slt_arctic_hts')).toBe(1_500);
    expect(costs.expectedMs('flite', 'slt')).toBe(150);
    expect(costs.expectedMs('flite', 'kal')).toBe(60);
    costs.took('flite', 'kal', 40);
    expect(costs.expectedMs('flite', 'kal')).toBe(40);
    costs.took('flite', 'kal', 240);
    expect(costs.expectedMs('flite', 'kal')).toBeCloseTo(80);
    // Each step and voice on its own.
    expect(costs.expectedMs('flite', 'slt')).toBe(150);
    expect(costs.expectedMs('convert', 'kal')).toBe(60);
  });
});
