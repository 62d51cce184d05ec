// The group commit with synchronous=FULL: the transaction commits without the fsync, the WAL is
// flushed off the event loop, and nobody is answered before the flush; a failed flush takes the
// accepted alerts back (their callers get the error: nothing recorded).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AccountStore } from '../../src/db/accounts.js';
import { CallStore } from '../../src/db/calls.js';
import { openDatabase } from '../../src/db/database.js';
import { walSyncFor } from '../../src/db/wal-sync.js';
import { createAccount } from '../helpers/accounts.js';
import { count, manualClock, openTracked, textAlert, tmp, useTempDatabases } from '../helpers/database.js';
import { testSecrets } from '../helpers/secrets.js';

useTempDatabases();
afterEach(() => {
  vi.restoreAllMocks();
});

function storesWith(sync: 'full' | 'normal') {
  const db = openTracked(path.join(tmp, 'ringhook.db'), { sync });
  const clock = manualClock('2026-11-10T10:00:00Z');
  return { db, accounts: new AccountStore(db, testSecrets(), clock.now), calls: new CallStore(db, clock.now) };
}

/** Holds every fdatasync until the test completes it, with or without an error. */
function holdFlushes(): Array<(error: NodeJS.ErrnoException | null) => void> {
  const waiting: Array<(error: NodeJS.ErrnoException | null) => void> = [];
  vi.spyOn(fs, 'fdatasync').mockImplementation(((_fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
    waiting.push(done);
  }) as typeof fs.fdatasync);
  return waiting;
}

function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { promise, settled: () => settled };
}

const aWhile = () => new Promise((r) => setTimeout(r, 30));
const callsOf = (db: ReturnType<typeof storesWith>['db'], userId: string, accepted: 0 | 1) =>
  count(db, 'SELECT count(*) FROM calls WHERE user_id = ? AND accepted = ?', userId, accepted);

describe('walSyncFor', () => {
  it('defers the flush of a WAL file with synchronous=FULL only', () => {
    expect(walSyncFor(storesWith('full').db)).not.toBeNull();
    const normal = openDatabase(path.join(tmp, 'normal.db'), { sync: 'normal' });
    expect(walSyncFor(normal)).toBeNull();
    normal.close();
    const memory = openDatabase(':memory:', { sync: 'full' });
    expect(walSyncFor(memory)).toBeNull();
    memory.close();
  });
});

describe('group commit with synchronous=FULL', () => {
  it('answers only once the WAL is flushed; the connection is back to FULL meanwhile', async () => {
    const { db, accounts, calls } = storesWith('full');
    const a = createAccount(accounts);
    const flushes = holdFlushes();
    const answer = tracked(calls.acceptGrouped(a.userId, 'premium', textAlert('one')));
    await aWhile();
    expect(callsOf(db, a.userId, 1)).toBe(1);
    expect(flushes).toHaveLength(1);
    expect(answer.settled()).toBe(false);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    flushes[0]!(null);
    await expect(answer.promise).resolves.toMatchObject({ accepted: true });
  });

  it('flushes for real', async () => {
    const { accounts, calls } = storesWith('full');
    const a = createAccount(accounts);
    const results = await Promise.all(Array.from({ length: 3 }, (_, i) => calls.acceptGrouped(a.userId, 'premium', textAlert(`alert ${i}`))));
    expect(results.every((r) => r.accepted)).toBe(true);
  });

  it('a failed flush takes back the accepted alerts and fails their callers; the refused (in the same group) keep their answer', async () => {
    const { db, accounts, calls } = storesWith('full');
    const a = createAccount(accounts);
    const flushes = holdFlushes();
    const answers = Array.from({ length: 11 }, (_, i) => calls.acceptGrouped(a.userId, 'premium', textAlert(`alert ${i}`)));
    const rejection = calls.recordRejectionGrouped({ userId: a.userId, status: 'invalid_payload', error: 'bad', excerpt: '{' });
    await aWhile();
    expect(flushes).toHaveLength(1);
    expect(callsOf(db, a.userId, 1)).toBe(10);
    flushes[0]!(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    const settled = await Promise.allSettled(answers);
    expect(settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason.code)).toEqual(Array(10).fill('EIO'));
    expect(settled.filter((s) => s.status === 'fulfilled').map((s) => (s as PromiseFulfilledResult<unknown>).value)).toMatchObject([
      { accepted: false, decision: { limit: 'burst' } },
    ]);
    await expect(rejection).resolves.toBeUndefined();
    expect(callsOf(db, a.userId, 1)).toBe(0);
    expect(calls.usage(a.userId).used).toBe(0);
    expect(callsOf(db, a.userId, 0)).toBe(2);
  });

  it('with synchronous=NORMAL nothing is deferred: no flush of its own', async () => {
    const { accounts, calls } = storesWith('normal');
    const a = createAccount(accounts);
    const flushes = holdFlushes();
    await expect(calls.acceptGrouped(a.userId, 'premium', textAlert('one'))).resolves.toMatchObject({ accepted: true });
    expect(flushes).toHaveLength(0);
  });
});
