// store/all-or-nothing.ts in a real SQLite transaction: every step kept, or none; a failure is not a "no".
import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { allOrNothing } from '../../src/store/all-or-nothing.js';

function setUp() {
  const db = new Database(':memory:');
  db.exec(
    "CREATE TABLE sms (id TEXT PRIMARY KEY, status TEXT); INSERT INTO sms VALUES ('a', 'sending'), ('b', 'sending'), ('c', 'sent')",
  );
  const wait = db.prepare("UPDATE sms SET status = 'waiting' WHERE id = ? AND status = 'sending'");
  const statuses = () => db.prepare('SELECT id, status FROM sms ORDER BY id').all();
  const transaction = (body: (at: number) => true) => db.transaction(() => body(1)).immediate();
  return { db, wait, statuses, transaction };
}

describe('allOrNothing', () => {
  test('keeps every step when each applied', () => {
    const { wait, statuses, transaction } = setUp();
    expect(allOrNothing(transaction, ['a', 'b'], (_at, id) => wait.run(id).changes === 1)).toBe(true);
    expect(statuses()).toEqual([
      { id: 'a', status: 'waiting' },
      { id: 'b', status: 'waiting' },
      { id: 'c', status: 'sent' },
    ]);
  });

  test('answers false and rolls back the steps before when one did not apply', () => {
    const { wait, statuses, transaction } = setUp();
    const before = statuses();
    expect(allOrNothing(transaction, ['a', 'c', 'b'], (_at, id) => wait.run(id).changes === 1)).toBe(false);
    expect(statuses()).toEqual(before);
  });

  test('lets a failure go up (not a "no"), the transaction rolled back', () => {
    const { wait, statuses, transaction } = setUp();
    const before = statuses();
    expect(() =>
      allOrNothing(transaction, ['a', 'b'], (_at, id) => {
        if (id === 'b') throw new Error('disk I/O error');
        return wait.run(id).changes === 1;
      }),
    ).toThrow('disk I/O error');
    expect(statuses()).toEqual(before);
  });

  test('waits for each later step before the next, and answers false at the first that did not apply', async () => {
    const seen: string[] = [];
    const transaction = (body: (tx: string) => Promise<true>) => body('tx');
    const step = async (tx: string, id: string) => {
      seen.push(`${tx}:${id}`);
      return id !== 'c';
    };
    expect(await allOrNothing(transaction, ['a', 'b'], step)).toBe(true);
    expect(await allOrNothing(transaction, ['a', 'c', 'b'], step)).toBe(false);
    await expect(allOrNothing(transaction, ['x'], () => Promise.reject(new Error('connection lost')))).rejects.toThrow(
      'connection lost',
    );
    expect(seen).toEqual(['tx:a', 'tx:b', 'tx:a', 'tx:c']);
  });
});
