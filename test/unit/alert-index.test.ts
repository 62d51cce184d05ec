// Which call holds an alert (src/calls/alert-index.ts): a call's few alerts each an entry, a quiet-hours
// batch's thousands one set (#51); either way every alert is found while its call holds it, and none after.
import { describe, expect, it } from 'vitest';
import { AlertIndex, StartingCalls } from '../../src/calls/alert-index.js';

const alerts = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ callId: `${prefix}${i}`, phone: '+15550100' }));

describe('AlertIndex', () => {
  it.each([3, 10_000])('finds each of a call of %i alerts while it holds them, and none after', (n) => {
    const index = new AlertIndex<string>();
    const [own, ...riders] = alerts(n, 'a');
    index.add('call a', own!.callId, riders);
    expect(index.has('a0')).toBe(true);
    expect(riders.every(({ callId }) => index.has(callId))).toBe(true);
    expect(index.has('b0')).toBe(false);
    index.delete('call a', own!.callId, riders);
    expect(alerts(n, 'a').some(({ callId }) => index.has(callId))).toBe(false);
  });

  it('keeps an alert another call took meanwhile (a call placed again through the backup trunk)', () => {
    const index = new AlertIndex<string>();
    index.add('first', 'x', [{ callId: 'y' }]);
    index.add('again', 'x', [{ callId: 'y' }]);
    index.delete('first', 'x', [{ callId: 'y' }]);
    expect(index.has('x')).toBe(true);
    expect(index.has('y')).toBe(true);
  });
});

describe('StartingCalls', () => {
  it('counts a starting call once whatever it carries, its phone busy, its alerts found until done', () => {
    const starting = new StartingCalls();
    const batch = alerts(5_000, 'h');
    starting.start(batch);
    starting.start([{ callId: 't', phone: '+15550199' }]);
    expect(starting.size).toBe(2);
    expect([...starting.phones()]).toEqual(['+15550100', '+15550199']);
    expect(starting.has('h4999')).toBe(true);
    starting.done(batch);
    expect(starting.size).toBe(1);
    expect(starting.has('h4999')).toBe(false);
    expect(starting.has('t')).toBe(true);
  });
});
