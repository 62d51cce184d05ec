// A flood of refusals is one log line per period with a count: the first at once, the rest summed.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { refusalTally } from '../../src/lib/refusal-tally.js';

let lines: Array<Record<string, unknown>>;
const logger = () => createLogger({ write: (line) => lines.push(JSON.parse(line)) });

beforeEach(() => {
  lines = [];
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

it('tells the first refusal at once and sums up the rest of the period in one line', () => {
  const tally = refusalTally(logger(), 'refused', 60_000);
  tally.note('total', { user_id: 'u1' });
  for (let i = 0; i < 9_999; i++) tally.note(i % 2 ? 'total' : 'perSession');
  expect(lines).toEqual([expect.objectContaining({ msg: 'refused', refused: 1, cap: 'total', user_id: 'u1' })]);
  vi.advanceTimersByTime(60_000);
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatchObject({
    msg: 'refused',
    refused: 9_999,
    by: { total: 4_999, perSession: 5_000 },
    seconds: 60,
  });
  // A quiet period closes it: the next refusal is told at once again.
  vi.advanceTimersByTime(60_000);
  expect(lines).toHaveLength(2);
  vi.advanceTimersByTime(60_000);
  tally.note('total');
  expect(lines).toHaveLength(3);
  expect(lines[2]).toMatchObject({ refused: 1, cap: 'total' });
});

it('writes what is still counted when flushed', () => {
  const tally = refusalTally(logger(), 'refused', 60_000);
  tally.note('a');
  tally.note('a');
  tally.note('b');
  tally.flush();
  expect(lines.map((l) => l.refused)).toEqual([1, 2]);
  tally.flush();
  expect(lines).toHaveLength(2);
});
