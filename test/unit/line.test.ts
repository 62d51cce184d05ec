import { describe, expect, it } from 'vitest';
import { MAX_ALERTS_PER_CALL, nextCalls, type WaitingAlert } from '../../src/core/calls/line.js';
import { spokenAlerts } from '../../src/core/speech/spoken-alerts.js';
import { speakable } from '../../src/core/speech/speakable.js';

const a = (callId: string, phone = '+1', userId = 'u1'): WaitingAlert => ({ callId, userId, phone });
const ids = (calls: WaitingAlert[][]) => calls.map((c) => c.map((x) => x.callId));

describe('nextCalls (one line per phone)', () => {
  it('one call per phone, carrying its waiting alerts in order of arrival', () => {
    expect(ids(nextCalls([a('1'), a('2', '+2', 'u2'), a('3'), a('4')], new Set(), 10))).toEqual([
      ['1', '3', '4'],
      ['2'],
    ]);
  });

  it('a phone whose line is busy gets no call; its alerts wait', () => {
    expect(ids(nextCalls([a('1'), a('2', '+2', 'u2')], new Set(['+1']), 10))).toEqual([['2']]);
  });

  it('never more calls than free lines, oldest waiting alert first', () => {
    expect(ids(nextCalls([a('1', '+1'), a('2', '+2', 'u2'), a('3', '+3', 'u3')], new Set(), 2))).toEqual([
      ['1'],
      ['2'],
    ]);
    expect(nextCalls([a('1')], new Set(), 0)).toEqual([]);
  });

  it('an alert of another account for the same phone waits for the line instead of riding along', () => {
    expect(ids(nextCalls([a('1', '+1', 'u1'), a('2', '+1', 'u2'), a('3', '+1', 'u1')], new Set(), 10))).toEqual([
      ['1', '3'],
    ]);
  });

  it('a test call waits for the line but goes alone, and nothing rides with it', () => {
    expect(ids(nextCalls([{ ...a('t'), alone: true }, a('1'), a('2')], new Set(), 10))).toEqual([['t']]);
    expect(ids(nextCalls([a('1'), { ...a('t'), alone: true }, a('2')], new Set(), 10))).toEqual([['1', '2']]);
  });

  it('at most MAX_ALERTS_PER_CALL alerts in one call; the rest wait for the next', () => {
    const many = Array.from({ length: MAX_ALERTS_PER_CALL + 3 }, (_, i) => a(String(i)));
    const [call] = nextCalls(many, new Set(), 10);
    expect(call).toHaveLength(MAX_ALERTS_PER_CALL);
    expect(call!.at(-1)!.callId).toBe(String(MAX_ALERTS_PER_CALL - 1));
  });
});

describe('spokenAlerts', () => {
  it('one alert: its message as a trader reads it', () => {
    expect(spokenAlerts(['BTCUSDT > 100k'])).toBe(speakable('BTCUSDT > 100k'));
  });

  it('several: counted, then each with its ordinal, in order, each ending with a stop', () => {
    expect(spokenAlerts(['AAPL up', 'TSLA down.', 'SPY flat'])).toBe(
      `You have three alerts. First: ${speakable('AAPL up')}. Second: ${speakable('TSLA down.')} Third: ${speakable('SPY flat')}.`,
    );
  });

  it('beyond the tenth, the alert is numbered', () => {
    const text = spokenAlerts(Array.from({ length: 11 }, () => 'x'));
    expect(text).toMatch(/^You have eleven alerts\. First: /);
    expect(text).toContain('Tenth: ');
    expect(text).toContain('Alert eleven: ');
  });
});
