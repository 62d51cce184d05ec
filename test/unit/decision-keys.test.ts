import { describe, expect, it } from 'vitest';
import {
  callDecisionKeys,
  callDecisionText,
  checkDecisionPin,
  needsCallbackUrl,
  storedDecisionKeys,
  WRONG_PIN,
  DECISION_REFUSED_TEXT,
  type DecisionKey,
  type DecisionState,
  decisionKeysFromJson,
  decisionText,
  formatDecisionKeys,
  parseDecisionKeys,
  pinChecked,
  pinPaused,
  pressDecision,
} from '../../src/core/calls/decision-keys.js';
import { LANGUAGE_CODES } from '../../src/core/speech/language-types.js';
import { DECISION_WORDS } from '../../src/core/speech/decision-words.js';

const BUY_SKIP: DecisionKey[] = [
  { key: '7', label: 'buy' },
  { key: '8', label: 'skip' },
];

describe('decision keys as set (CLI, dashboard, an alert)', () => {
  it('reads 7=buy,8=skip, keeps the order, and writes it back the same', () => {
    const parsed = parseDecisionKeys(' 7=buy , 8=skip');
    expect(parsed).toEqual({ ok: true, keys: BUY_SKIP });
    expect(formatDecisionKeys(BUY_SKIP)).toBe('7=buy,8=skip');
    expect(parseDecisionKeys('#=close all,3=Take-profit 2')).toEqual({
      ok: true,
      keys: [
        { key: '#', label: 'close all' },
        { key: '3', label: 'Take-profit 2' },
      ],
    });
    expect(parseDecisionKeys('9=kaufen,4=продать,5=買う')).toMatchObject({ ok: true });
  });

  it('off is no keys', () => {
    expect(parseDecisionKeys('off')).toEqual({ ok: true, keys: [] });
  });

  it.each([
    ['1=buy', 'key 1 is taken (1 confirms): use 3–9 or #'],
    ['2=buy', 'key 2 is taken (2 repeats the message): use 3–9 or #'],
    ['0=buy', 'key 0 is taken (0 lists the keys): use 3–9 or #'],
    ['*=buy', 'key * is taken (* repeats the message): use 3–9 or #'],
    ['a=buy', '"a" is not a key: use a digit 3–9 or #'],
    ['77=buy', '"77" is not a key: use a digit 3–9 or #'],
    ['7=buy,7=sell', 'key 7 is given twice'],
    ['3=a,4=b,5=c,6=d,7=e', 'at most 4 decision keys (got 5)'],
    ['7=', 'key 7 has an empty label'],
    ['7=  ', 'key 7 has an empty label'],
    ['7=buy!', 'the label of key 7 ("buy!") must be 1–24 letters, digits, spaces or dashes'],
    ['7=a label longer than twenty four', 'must be 1–24 letters'],
    ['7=-buy', 'must be 1–24 letters'],
    ['buy', '"buy" is not KEY=LABEL (as in 7=buy)'],
    ['', 'no keys given'],
  ])('refuses %j in one line that names it', (text, error) => {
    const result = parseDecisionKeys(text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toContain(error);
      expect(result.error).not.toContain('\n');
    }
  });

  it("an alert's own keys are a JSON object of key and label", () => {
    expect(decisionKeysFromJson({ 7: 'buy', 8: 'skip' })).toEqual({ ok: true, keys: BUY_SKIP });
    expect(decisionKeysFromJson(['7=buy'])).toMatchObject({ ok: false });
    expect(decisionKeysFromJson('7=buy')).toMatchObject({ ok: false });
    expect(decisionKeysFromJson({ 7: 5 })).toEqual({ ok: false, error: 'the label of key 7 must be text' });
    expect(decisionKeysFromJson({ 1: 'buy' })).toMatchObject({ ok: false, error: expect.stringContaining('taken') });
  });
});

describe('the decision PIN', () => {
  it('is 4–8 digits; an error never repeats it', () => {
    expect(checkDecisionPin('1234')).toBeUndefined();
    expect(checkDecisionPin('12345678')).toBeUndefined();
    expect(checkDecisionPin('123')).toBe('a decision PIN must be 4–8 digits (got 3 digits)');
    expect(checkDecisionPin('123456789')).toContain('got 9 digits');
    expect(checkDecisionPin('12ab')).toBe('a decision PIN must be 4–8 digits (got 4 characters, not all digits)');
    expect(checkDecisionPin('12ab')).not.toContain('12ab');
  });
});

describe('a key pressed on a call with decision keys', () => {
  const choosing: DecisionState = { phase: 'choosing' };

  it('without a PIN, a decision key decides at once; other keys are the keypad’s', () => {
    expect(pressDecision(choosing, '7', BUY_SKIP, false)).toEqual({
      do: 'decide',
      choice: BUY_SKIP[0],
      state: { phase: 'done' },
    });
    for (const key of ['1', '2', '*', '0', '5', '#'])
      expect(pressDecision(choosing, key, BUY_SKIP, false).do).toBe('not-mine');
    expect(pressDecision({ phase: 'done' }, '7', BUY_SKIP, false).do).toBe('not-mine');
  });

  it('with a PIN: asks for it, collects digits, checks at #, at 8 digits or after the pause', () => {
    const asked = pressDecision(choosing, '8', BUY_SKIP, true);
    expect(asked.do).toBe('ask-pin');
    let state = (asked as { state: DecisionState }).state;
    for (const digit of '1234') {
      const step = pressDecision(state, digit, BUY_SKIP, true);
      expect(step.do).toBe('collect');
      state = (step as { state: DecisionState }).state;
    }
    // A decision key while typing is a digit of the PIN, not another decision.
    expect(pressDecision(state, '#', BUY_SKIP, true)).toEqual({ do: 'check-pin', digits: '1234', state });
    expect(pinPaused(state)).toEqual({ do: 'check-pin', digits: '1234', state });
    let long = state;
    for (const digit of '5678') {
      const step = pressDecision(long, digit, BUY_SKIP, true);
      long = (step as { state: DecisionState }).state;
      if (step.do === 'check-pin') expect(step.digits).toBe('12345678');
    }
    expect(pinPaused({ phase: 'pin', choice: BUY_SKIP[1]!, digits: '', wrong: 0 }).do).toBe('ask-pin');
  });

  it('three wrong PINs refuse the decision; a right one decides', () => {
    let state = { phase: 'pin' as const, choice: BUY_SKIP[0]!, digits: '1111', wrong: 0 };
    const first = pinChecked(state, false);
    expect(first).toMatchObject({ do: 'wrong-pin', triesLeft: 2 });
    state = first.state as typeof state;
    expect(state.digits).toBe('');
    const second = pinChecked(state, false);
    expect(second).toMatchObject({ do: 'wrong-pin', triesLeft: 1 });
    expect(pinChecked(second.state as typeof state, false)).toMatchObject({ do: 'refuse' });
    expect(pinChecked(second.state as typeof state, true)).toEqual({
      do: 'decide',
      choice: BUY_SKIP[0],
      state: { phase: 'done' },
    });
  });

  it('the history says the decision or the refusal', () => {
    expect(decisionText(BUY_SKIP[0]!)).toBe('decision: buy (7)');
    expect(DECISION_REFUSED_TEXT).toBe('decision refused: wrong PIN');
  });
});

describe('what a call with decision keys says', () => {
  it('in English: the choices, the PIN, the decision sent', () => {
    const en = DECISION_WORDS.en;
    expect(en.choices(BUY_SKIP)).toBe('Press 7 for buy, 8 for skip.');
    expect(en.choices([{ key: '#', label: 'close' }])).toBe('Press hash for close.');
    expect(en.sent('buy')).toBe('Buy. Sent.');
  });

  it.each(LANGUAGE_CODES)('in %s: every label and key is said, and every phrase is there', (code) => {
    const words = DECISION_WORDS[code];
    const said = words.choices([...BUY_SKIP, { key: '#', label: 'hold' }]);
    for (const part of ['7', 'buy', '8', 'skip', 'hold']) expect(said).toContain(part);
    expect(said).not.toContain('#');
    for (const phrase of [words.enterPin, words.wrongPin, words.refused, words.notSent])
      expect(phrase.length).toBeGreaterThan(5);
    expect(words.sent('buy').toLowerCase()).toContain('buy');
  });
});

describe("a call's keys, and the callback URL they need", () => {
  const account = { decisionKeys: '7=buy,8=skip', callbackOn: true };

  it("the alert's own keys over the account's; '' none for the call; none at all without a callback URL", () => {
    expect(callDecisionKeys({ decisionKeys: null }, account)).toEqual(BUY_SKIP);
    expect(callDecisionKeys({ decisionKeys: '9=sell' }, account)).toEqual([{ key: '9', label: 'sell' }]);
    expect(callDecisionKeys({ decisionKeys: '' }, account)).toEqual([]);
    expect(callDecisionKeys({ decisionKeys: '9=sell' }, { ...account, callbackOn: false })).toEqual([]);
    expect(callDecisionKeys({}, null)).toEqual([]);
    expect(storedDecisionKeys('not keys')).toEqual([]);
  });

  it('setting keys or a PIN needs a callback URL; removing them never does', () => {
    expect(needsCallbackUrl({ keys: '7=buy' })).toBe(true);
    expect(needsCallbackUrl({ pinSet: true })).toBe(true);
    expect(needsCallbackUrl({ keys: '', pinSet: false })).toBe(false);
    expect(needsCallbackUrl({})).toBe(false);
  });

  it("the history's words for a call's decision", () => {
    expect(callDecisionText({ decisionKey: '7', decisionLabel: 'buy' })).toBe('decision: buy (7)');
    expect(callDecisionText({ decisionRefused: WRONG_PIN })).toBe(DECISION_REFUSED_TEXT);
    expect(callDecisionText({})).toBeNull();
  });
});
