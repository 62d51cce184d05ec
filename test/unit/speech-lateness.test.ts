import { describe, expect, it } from 'vitest';
import { LATENESS_WINDOW_MS, SpeechLateness } from '../../src/core/speech/speech-lateness.js';

describe('SpeechLateness', () => {
  it('nothing seen, or speech only early: no margin', () => {
    const l = new SpeechLateness();
    expect(l.marginMs(0)).toBe(0);
    l.observe(10, -300);
    expect(l.marginMs(20)).toBe(0);
  });

  it('the worst lateness of the window, each forgotten once the window has passed it', () => {
    const l = new SpeechLateness();
    l.observe(1_000, 400);
    l.observe(2_000, 900);
    l.observe(3_000, 200);
    expect(l.marginMs(3_000)).toBe(900);
    expect(l.marginMs(2_000 + LATENESS_WINDOW_MS - 1)).toBe(900);
    // The 900 ms is past: the 200 ms seen after it is what is left (the 400 before it went with it).
    expect(l.marginMs(2_000 + LATENESS_WINDOW_MS)).toBe(200);
    expect(l.marginMs(3_000 + LATENESS_WINDOW_MS)).toBe(0);
  });

  it('a time that is no number is not taken', () => {
    const l = new SpeechLateness();
    l.observe(0, Number.NaN);
    l.observe(Number.NaN, 500);
    l.observe(0, Number.POSITIVE_INFINITY);
    expect(l.marginMs(1)).toBe(0);
  });
});
