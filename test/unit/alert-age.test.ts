// The alert's age said (#54): a call 30 s or more after its alert was received says how old it is.
import { describe, expect, it } from 'vitest';
import { LATE_ALERT_MS, messagesWithAge } from '../../src/core/calls/alert-age.js';
import { LANGUAGES } from '../../src/core/speech/languages.js';

const received = Date.parse('2026-12-06T20:00:00Z');
const alert = (message: string, lateMs = 0) => ({ message, receivedAt: received - lateMs, heldUntil: null });

describe('messagesWithAge', () => {
  it('says nothing of an alert called at once, and the age of one 30 s late or more, in the account language', () => {
    expect(messagesWithAge([alert('ES1! broke 6000')], received + 5_000, LANGUAGES.en)).toEqual(['ES1! broke 6000']);
    expect(messagesWithAge([alert('ES1! broke 6000')], received + LATE_ALERT_MS - 1, LANGUAGES.en)).toEqual([
      'ES1! broke 6000',
    ]);
    expect(messagesWithAge([alert('ES1! broke 6000')], received + 120_000, LANGUAGES.en)).toEqual([
      'two minutes ago: ES1! broke 6000',
    ]);
    expect(messagesWithAge([alert('ES1! über 6000')], received + 120_000, LANGUAGES.de)[0]).toMatch(
      /^Vor (zwei|2) Minuten: ES1! über 6000$/,
    );
  });

  it('says the age of each late alert a call carries, in their order', () => {
    const now = received + 40_000;
    expect(messagesWithAge([alert('old', 60_000), alert('new', -35_000)], now, LANGUAGES.en)).toEqual([
      'two minutes ago: old',
      'new',
    ]);
  });

  it('leaves held alerts to their own order and ages', () => {
    const held = [
      { message: 'a', receivedAt: received, heldUntil: received + 3_600_000 },
      { message: 'b', receivedAt: received + 60_000, heldUntil: received + 3_600_000 },
    ];
    expect(messagesWithAge(held, received + 3_600_000, LANGUAGES.en)).toEqual([
      'fifty-nine minutes ago: b',
      'one hour ago: a',
    ]);
  });
});
