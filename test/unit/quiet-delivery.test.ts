// The quiet-hours decision (core/delivery/quiet-delivery) and what a released batch says (core/speech/held-speech),
// on a fixed instant: the only fake clock of the quiet-hours tests (the end-to-end ones use the real one).
import { describe, expect, it } from 'vitest';
import {
  decideDelivery,
  deliveryField,
  describeQuietHours,
  effectiveMode,
  type QuietSettings,
  smsModeWarning,
} from '../../src/core/delivery/quiet-delivery.js';
import { agoText, callSpokenNoted, messagesToSay } from '../../src/core/speech/held-speech.js';
import { LANGUAGE_CODES } from '../../src/core/speech/language-types.js';
import { MAX_SPOKEN_CHARS, markedShortened } from '../../src/core/speech/spoken-alerts.js';
import { SHORTENED_MARK } from '../../src/core/speech/speech-text/shortened.js';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import { nextCalls } from '../../src/core/calls/line.js';

const at = (iso: string) => Date.parse(iso);
const berlinNights: QuietSettings = { quietHours: 'daily 22:00-07:00', timeZone: 'Europe/Berlin', quietMode: 'hold' };
const canSend = { gateway: true, smsBackup: true };

describe('decideDelivery', () => {
  it('calls outside the windows and without quiet hours', () => {
    expect(decideDelivery(berlinNights, at('2026-11-29T12:00:00Z'), canSend)).toEqual({ delivery: 'call' });
    expect(decideDelivery({ ...berlinNights, quietHours: '' }, at('2026-11-29T02:00:00Z'), canSend)).toEqual({
      delivery: 'call',
    });
  });

  it('holds inside a window until its end in the account zone (07:00 Berlin is 06:00 UTC in winter)', () => {
    expect(decideDelivery(berlinNights, at('2026-11-29T02:00:00Z'), canSend)).toEqual({
      delivery: 'held',
      until: at('2026-11-29T06:00:00Z'),
    });
  });

  it('sends the SMS instead only when it can go out; otherwise holds (never rings in quiet hours)', () => {
    const sms: QuietSettings = { ...berlinNights, quietMode: 'sms' };
    const night = at('2026-11-29T02:00:00Z');
    expect(decideDelivery(sms, night, canSend)).toEqual({ delivery: 'sms' });
    expect(decideDelivery(sms, night, { gateway: false, smsBackup: true }).delivery).toBe('held');
    expect(decideDelivery(sms, night, { gateway: true, smsBackup: false }).delivery).toBe('held');
    expect(effectiveMode('sms', { gateway: false, smsBackup: true })).toBe('hold');
    expect(smsModeWarning(sms, { gateway: false, smsBackup: true }, 'owner')).toMatch(/cannot send SMS/);
    expect(smsModeWarning(sms, { gateway: true, smsBackup: false }, 'admin')).toMatch(/SMS backup on/);
    expect(smsModeWarning(sms, canSend, 'admin')).toBeNull();
  });

  it('ignores the windows in call mode', () => {
    expect(decideDelivery({ ...berlinNights, quietMode: 'call' }, at('2026-11-29T02:00:00Z'), canSend)).toEqual({
      delivery: 'call',
    });
  });

  it("answers the webhook's field as delivery or held_until", () => {
    expect(deliveryField({ delivery: 'call' })).toEqual({ delivery: 'call' });
    expect(deliveryField({ delivery: 'sms' })).toEqual({ delivery: 'sms' });
    expect(deliveryField({ delivery: 'held', until: at('2026-11-29T06:00:00Z') })).toEqual({
      held_until: '2026-11-29T06:00:00.000Z',
    });
  });

  it('describes the setting with what will happen, and says when it is quiet now', () => {
    const text = describeQuietHours(berlinNights, canSend, at('2026-11-29T02:00:00Z'));
    expect(text).toBe(
      'daily 22:00-07:00 (Europe/Berlin); alerts in them are held, and called when they end: one call for everything held, newest first, each with how long ago it came. Quiet now, until 2026-11-29 06:00 UTC.',
    );
    expect(describeQuietHours({ ...berlinNights, quietMode: 'sms' }, { gateway: false, smsBackup: true }, 0)).toMatch(
      /are held, and called/,
    );
    expect(describeQuietHours({ ...berlinNights, quietHours: '' }, canSend, 0)).toBe(
      'none: every alert is called at once',
    );
  });
});

describe('a released batch', () => {
  const now = at('2026-11-29T06:00:05Z');
  const held = (message: string, receivedIso: string) => ({
    message,
    receivedAt: at(receivedIso),
    heldUntil: at('2026-11-29T06:00:00Z'),
  });

  it('says every message once, newest first, each with how long ago it came', () => {
    const said = messagesToSay(
      [held('BTC above 64000', '2026-11-29T01:00:00Z'), held('ETH below 3000', '2026-11-29T05:30:00Z')],
      now,
      LANGUAGES.en,
    );
    expect(said).toEqual(['thirty minutes ago: ETH below 3000', 'five hours ago: BTC above 64000']);
  });

  it('leaves an alert that was never held as it came', () => {
    const fresh = [{ message: 'a', receivedAt: now - 1000, heldUntil: null }];
    expect(messagesToSay(fresh, now, LANGUAGES.en)).toEqual(['a']);
  });

  it('says the age in the account language', () => {
    expect(agoText(LANGUAGES.de, 3 * 3_600_000)).toMatch(/^Vor .*Stunden$/);
    expect(agoText(LANGUAGES.fr, 60_000)).toMatch(/^Il y a .*minute$/);
    expect(agoText(LANGUAGES.ja, 120_000)).toMatch(/前$/);
  });

  it('is carried by one call however many were held; alerts not held still take ten at most', () => {
    const alerts = (n: number, isHeld: boolean) =>
      Array.from({ length: n }, (_, i) => ({ callId: `c${i}`, userId: 'u', phone: '+1', held: isHeld }));
    expect(nextCalls(alerts(25, true), new Set(), 5).map((c) => c.length)).toEqual([25]);
    expect(nextCalls(alerts(25, false), new Set(), 5).map((c) => c.length)).toEqual([10]);
  });

  // #51: 10 / 1,000 / 10,000 held alerts said 3,687 / 33,948 / 435,498 characters.
  const night = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      ...held(`Gold crossed ${64_000 + i}.25 on the 4H chart, alert ${i}`, '2026-11-29T01:00:00Z'),
      receivedAt: at('2026-11-29T01:00:00Z') + i * 1_000,
    }));
  const saidCount = (text: string) => (text.match(/Gold crossed/g) ?? []).length;

  it('a held alert the webhook cut at its limit says so in a batch too, with no mark left in the text', () => {
    const alerts = night(3).map((a, i) => (i === 2 ? { ...a, message: markedShortened(a.message, true) } : a));
    const { text } = callSpokenNoted(alerts, now, LANGUAGES.en);
    expect(text).toContain('message shortened');
    expect(text).not.toContain(SHORTENED_MARK);
  });

  it.each([10, 1_000, 10_000])('%i held alerts: the newest within the spoken-length cap, then how many more', (n) => {
    const { text } = callSpokenNoted(night(n), now, LANGUAGES.en);
    expect(text.length).toBeLessThanOrEqual(MAX_SPOKEN_CHARS);
    expect(text.startsWith(`You have ${LANGUAGES.en.cardinal(n)} alerts. First: `)).toBe(true);
    // Newest first: the last one received is said first.
    expect(text).toContain(`chart, alert ${LANGUAGES.en.cardinal(n - 1)}. Second: `);
    const said = saidCount(text);
    expect(said).toBeGreaterThanOrEqual(10);
    if (n === 10) expect(said).toBe(10);
    else expect(text.endsWith(` And ${LANGUAGES.en.cardinal(n - said)} older alerts: see your history.`)).toBe(true);
  });

  it('names how many older alerts in each language, within the cap', () => {
    expect(LANGUAGES.en.prompts.olderHeld(1)).toBe('And one older alert: see your history.');
    expect(LANGUAGES.pl.prompts.olderHeld(3)).toBe('Oraz 3 starsze alerty: zobacz historię.');
    expect(LANGUAGES.ru.prompts.olderHeld(5)).toBe('И ещё 5 более ранних оповещений: смотрите историю.');
    for (const code of LANGUAGE_CODES) {
      const { text } = callSpokenNoted(night(2_000), now, LANGUAGES[code]);
      expect(text.length, code).toBeLessThanOrEqual(MAX_SPOKEN_CHARS);
      expect(text.endsWith(LANGUAGES[code].prompts.olderHeld(2_000 - saidCount(text))), code).toBe(true);
      if (code !== 'en')
        expect(LANGUAGES[code].prompts.olderHeld(37), code).not.toBe(LANGUAGES.en.prompts.olderHeld(37));
    }
  });
});
