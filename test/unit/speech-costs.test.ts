import { describe, expect, it } from 'vitest';
import { SpeechCosts } from '../../src/core/speech/speech-costs.js';

/** A message of the typical length (40 characters). */
const MSG = 40;

describe('SpeechCosts', () => {
  it('first guesses a voice never timed, then follows what it took: a slower time at once, a quicker one a fifth of the way', () => {
    const costs = new SpeechCosts();
    expect(costs.expectedMs('festival', 'cmu_us_slt_arctic_hts')).toBe(1_500);
    expect(costs.expectedMs('flite', 'slt')).toBe(150);
    expect(costs.expectedMs('flite', 'kal')).toBe(60);
    costs.took('flite', 'kal', 40, MSG);
    expect(costs.expectedMs('flite', 'kal')).toBe(40);
    costs.took('flite', 'kal', 240, MSG);
    expect(costs.expectedMs('flite', 'kal')).toBe(240);
    costs.took('flite', 'kal', 40, MSG);
    expect(costs.expectedMs('flite', 'kal')).toBeCloseTo(80 * 0.8 + 40 * 0.2);
    // Each step and voice on its own.
    expect(costs.expectedMs('flite', 'slt')).toBe(150);
    expect(costs.expectedMs('convert', 'kal')).toBe(60);
  });

  it('a voice not timed since the machine got slower is scaled by how much slower the other jobs have become; timed again, its own time', () => {
    const costs = new SpeechCosts();
    costs.took('flite', 'slt', 70, MSG);
    costs.took('flite', 'kal', 7, MSG);
    expect(costs.expectedMs('flite', 'slt')).toBe(70);
    // A burst: kal four times slower than its best, again and again.
    for (let i = 0; i < 30; i++) costs.took('flite', 'kal', 28, MSG);
    expect(costs.expectedMs('flite', 'kal')).toBeCloseTo(28, 0);
    expect(costs.expectedMs('flite', 'slt')).toBeGreaterThan(4 * 70 * 0.95);
    costs.took('flite', 'slt', 200, MSG);
    expect(costs.expectedMs('flite', 'slt')).toBe(200);
    // Never below its own time when the machine is quieter again; a voice never timed keeps its first guess.
    for (let i = 0; i < 30; i++) costs.took('flite', 'kal', 7, MSG);
    expect(costs.expectedMs('flite', 'slt')).toBe(200);
    expect(costs.expectedMs('festival', 'cmu_us_slt_arctic_hts')).toBe(1_500);
  });

  it('a longer message is not a slower machine: speeds are compared a character at a time', () => {
    const costs = new SpeechCosts();
    costs.took('flite', 'slt', 70, MSG);
    costs.took('flite', 'kal', 7, MSG);
    for (let i = 0; i < 30; i++) costs.took('flite', 'kal', 28, 4 * MSG);
    expect(costs.expectedMs('flite', 'slt')).toBe(70);
  });

  it('the queue is what its jobs take now: a job timed slower re-estimates every job of its voice still queued; each release counts once', () => {
    const costs = new SpeechCosts();
    costs.took('flite', 'kal', 10, MSG);
    const releases = Array.from({ length: 10 }, () => costs.queue('flite', 'kal'));
    const slt = costs.queue('flite', 'slt');
    expect(costs.queuedMs).toBe(10 * 10 + 150);
    costs.took('flite', 'kal', 60, MSG);
    expect(costs.queuedMs).toBe(10 * 60 + 150); // kal at its last 60 ms; slt, never timed, keeps its first guess
    releases[0]!();
    releases[0]!();
    expect(costs.queuedMs).toBe(9 * 60 + 150);
    for (const release of releases) release();
    slt();
    expect(costs.queuedMs).toBe(0);
  });

  it('a voice is compared by its quickest: first timed on a busy machine, it is not taken for a dearer one', () => {
    const costs = new SpeechCosts();
    expect(costs.fastestMs('flite', 'slt')).toBe(150);
    costs.took('flite', 'kal', 180, MSG); // made while the machine compiled the resident flite
    costs.took('flite', 'slt', 70, MSG);
    expect(costs.expectedMs('flite', 'kal')).toBeGreaterThan(costs.expectedMs('flite', 'slt'));
    costs.took('flite', 'kal', 18, 2 * MSG);
    expect(costs.fastestMs('flite', 'kal')).toBe(9);
    expect(costs.fastestMs('flite', 'slt')).toBe(70);
    // A short phrase counts as a typical message: its engine's start is not taken for its speed.
    costs.took('flite', 'kal', 5, 10);
    expect(costs.fastestMs('flite', 'kal')).toBe(5);
  });

  it("a failing voice's time with its fallback counts in its average only; a time below 0 or that is no number is not taken", () => {
    const costs = new SpeechCosts();
    costs.took('flite', 'slt', 150, MSG);
    costs.tookFailing('convert', 'command', 1);
    costs.took('convert', 'command', 900, MSG);
    expect(costs.expectedMs('flite', 'slt')).toBe(150);
    expect(costs.fastestMs('convert', 'command')).toBe(900);
    costs.took('flite', 'kal', -5, MSG);
    expect(costs.fastestMs('flite', 'kal')).toBe(60);
    costs.took('flite', 'kal', 0, MSG); // made in under a millisecond: 1 ms
    expect(costs.fastestMs('flite', 'kal')).toBe(1);
    costs.took('flite', 'slt', Number.NaN, MSG);
    costs.tookFailing('flite', 'slt', Number.NaN);
    expect(costs.expectedMs('flite', 'slt')).toBe(150);
    expect(Number.isFinite(costs.queuedMs)).toBe(true);
  });
});
