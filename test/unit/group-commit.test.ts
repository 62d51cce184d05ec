// The group commit: alerts and refusals that arrive together are written in one transaction, each
// in its own savepoint, and answered only after it committed; if it cannot commit, nobody's write
// is recorded and every caller gets the error.
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { isBusyError } from '../../src/store/unavailable.js';
import { KEPT_AFTER_TRIM, MAX_REJECTIONS_KEPT } from '../../src/core/webhook/kept-rejections.js';
import { LOCK_WAIT_MS, MAX_GROUP } from '../../src/core/webhook/group-commit.js';
import { createAccount } from '../helpers/accounts.js';
import { count, openStoresAt, openTracked, raw, textAlert, tmp, useTempDatabases } from '../helpers/database.js';
import { SqliteCallStore } from '../../src/store/sqlite/calls.js';
import { testSecrets } from '../helpers/secrets.js';
import { sqliteCallbackStore } from '../../src/store/sqlite/callbacks.js';

useTempDatabases();

const rowsOf = (db: ReturnType<typeof openStoresAt>['db'], userId: string, accepted: 0 | 1) =>
  count(db, 'SELECT count(*) FROM calls WHERE user_id = ? AND accepted = ?', userId, accepted);

describe('group commit', () => {
  it('writes the alerts and the refusals that arrive together, within the limits, and answers each', async () => {
    const { db, accounts, calls } = openStoresAt('2026-11-10T10:00:00Z');
    const a = createAccount(accounts, { plan: 'premium' });
    const alerts = Array.from({ length: 12 }, (_, i) => calls.accept(a.userId, 'premium', textAlert(`alert ${i}`)));
    const refusal = calls.recordRejection({ userId: a.userId, status: 'invalid_payload', error: 'bad', excerpt: '{' });
    // Nothing is written before the group commits.
    expect(rowsOf(db, a.userId, 0) + rowsOf(db, a.userId, 1)).toBe(0);
    const results = await Promise.all(alerts);
    await expect(refusal).resolves.toBeUndefined();
    expect(results.filter((r) => r.accepted)).toHaveLength(10);
    expect(results.filter((r) => !r.accepted).map((r) => !r.accepted && r.decision.limit)).toEqual(['burst', 'burst']);
    expect(rowsOf(db, a.userId, 1)).toBe(10);
    expect(rowsOf(db, a.userId, 0)).toBe(3);
  });

  it('a failing alert fails alone: the others of its group are written, each with its call.queued event', async () => {
    const { db, accounts, calls, clock } = openStoresAt('2026-11-10T10:00:00Z');
    const a = createAccount(accounts, { plan: 'premium' });
    await sqliteCallbackStore(db, testSecrets(), clock.now).configure(a.userId, {
      url: 'https://a.example/hook',
      secret: 'whsec_a',
    });
    // A real SQLite error in the middle alert's insert (a trigger: no alert the webhook admits fails so).
    db.exec(`CREATE TEMP TRIGGER fail_one BEFORE INSERT ON calls WHEN NEW.message = 'fails'
             BEGIN SELECT RAISE(ABORT, 'this alert cannot be written'); END`);
    const settled = await Promise.allSettled(
      ['first', 'fails', 'third'].map((m) => calls.accept(a.userId, 'premium', textAlert(m), undefined, true)),
    );
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((settled[1] as PromiseRejectedResult).reason)).toContain('this alert cannot be written');
    const accepted = settled.flatMap((s) => (s.status === 'fulfilled' && s.value.accepted ? [s.value] : []));
    expect(accepted.map((r) => 'outboxed' in r && r.outboxed)).toEqual([true, true]);
    expect(count(db, 'SELECT count(*) FROM calls WHERE user_id = ?', a.userId)).toBe(2);
    // Its usage and its event went with it; the others' are there.
    expect(calls.usage(a.userId).used).toBe(2);
    const events = db.prepare("SELECT call_id FROM callback_outbox WHERE type = 'call.queued' ORDER BY id").all();
    expect(events).toEqual(accepted.map((r) => ({ call_id: r.callId })));
  });

  it('records nothing and fails every caller, refusals included, when the group cannot commit', async () => {
    const { db, accounts, calls } = openStoresAt('2026-11-10T10:00:00Z');
    const a = createAccount(accounts, { plan: 'premium' });
    const other = raw(path.join(tmp, 'ringhook.db'));
    other.exec('BEGIN IMMEDIATE');
    const settled = await Promise.allSettled([
      calls.accept(a.userId, 'premium', textAlert('alert')),
      calls.recordRejection({ userId: a.userId, status: 'suspended', error: 'account suspended', excerpt: '' }),
    ]);
    other.exec('ROLLBACK');
    expect(settled.map((s) => s.status === 'rejected' && isBusyError(s.reason))).toEqual([true, true]);
    expect(rowsOf(db, a.userId, 0) + rowsOf(db, a.userId, 1)).toBe(0);
  });

  it('refuses an alert over the minute from the accepts it committed, without the write lock, and keeps its row in the next commit', async () => {
    const { db, accounts, calls, clock } = openStoresAt('2026-11-10T10:00:00Z');
    const a = createAccount(accounts, { plan: 'premium' });
    for (let i = 0; i < 10; i++) {
      clock.advance(100);
      expect((await calls.accept(a.userId, 'premium', textAlert(`alert ${i}`))).accepted).toBe(true);
    }
    // Another process holds the write lock: the full check would wait for it and fail busy (a 503).
    const other = raw(path.join(tmp, 'ringhook.db'));
    other.exec('BEGIN IMMEDIATE');
    // Answered before the next commit is tried: the lock is still held when the answer comes.
    const refused = await calls.accept(a.userId, 'premium', textAlert('one too many'));
    other.exec('ROLLBACK');
    expect(refused).toMatchObject({ accepted: false, decision: { limit: 'burst', perMinute: 10 } });
    if (refused.accepted) throw new Error('accepted');
    // Its row is written in the next commit, within this turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(rowsOf(db, a.userId, 1)).toBe(10);
    expect(rowsOf(db, a.userId, 0)).toBe(1);
    expect(count(db, 'SELECT count(*) FROM calls WHERE call_id = ?', refused.callId)).toBe(1);
  });

  it('counts each accepted alert once when a group both accepts and refuses for one account (no wrong 429 later)', async () => {
    const { accounts, calls, clock } = openStoresAt('2026-11-10T10:00:00Z');
    const a = createAccount(accounts, { plan: 'premium' });
    const send = (n: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => calls.accept(a.userId, 'premium', textAlert(`a${i}`))));
    expect((await send(5)).every((r) => r.accepted)).toBe(true);
    clock.advance(30_000);
    // One group: 5 accepted, then the 11th of the minute refused (its read sees the group's own 5).
    expect((await send(6)).map((r) => r.accepted)).toEqual([true, true, true, true, true, false]);
    // The first 5 have left the window: 5 in it, room for 5 more.
    clock.advance(31_000);
    expect((await send(5)).every((r) => r.accepted)).toBe(true);
  });

  it("decides the minute from its own accepts once alone for a window (#58): exact within a group, and after another connection's", async () => {
    const { accounts, calls, clock } = openStoresAt('2026-11-10T10:00:00Z');
    const a = createAccount(accounts, { plan: 'premium' });
    const send = (n: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => calls.accept(a.userId, 'premium', textAlert(`a${i}`))));
    expect((await send(3)).every((r) => r.accepted)).toBe(true);
    // No other connection committed for a whole window: no read, the group's own accepts counted as it goes.
    clock.advance(61_000);
    expect((await send(12)).map((r) => r.accepted)).toEqual([...Array<boolean>(10).fill(true), false, false]);
    clock.advance(61_000);
    // Another connection accepts 4 of the account's alerts: the next group reads again and takes 6, not 10.
    const other = new SqliteCallStore(openTracked(path.join(tmp, 'ringhook.db'), { sync: 'normal' }), clock.now);
    for (let i = 0; i < 4; i++) expect(other.acceptNow(a.userId, 'premium', textAlert(`o${i}`)).accepted).toBe(true);
    expect((await send(8)).filter((r) => r.accepted)).toHaveLength(6);
    expect(calls.usage(a.userId).used).toBe(3 + 10 + 4 + 6);
  });

  it("decides a restarted server's first minute from the window's accepts read once, at its first group (#58): no read an alert, exact", async () => {
    const { accounts, calls, clock } = openStoresAt('2026-11-10T10:00:00Z');
    const a = createAccount(accounts, { plan: 'premium' });
    const b = createAccount(accounts, { plan: 'premium' });
    // The server before this one (another connection) accepted 7 of a's alerts and 2 of b's this minute.
    const before = new SqliteCallStore(openTracked(path.join(tmp, 'ringhook.db'), { sync: 'normal' }), clock.now);
    for (let i = 0; i < 7; i++) expect(before.acceptNow(a.userId, 'premium', textAlert(`x${i}`)).accepted).toBe(true);
    for (let i = 0; i < 2; i++) expect(before.acceptNow(b.userId, 'premium', textAlert(`y${i}`)).accepted).toBe(true);
    clock.advance(20_000);
    // The limit's read, a private statement of the store: spied on to show it is not run.
    const { stmt } = calls as unknown as { stmt: { recentAccepted: { all: () => unknown } } };
    const reads = vi.spyOn(stmt.recentAccepted, 'all');
    const send = (userId: string, n: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => calls.accept(userId, 'premium', textAlert(`a${i}`))));
    expect((await send(a.userId, 5)).filter((r) => r.accepted)).toHaveLength(3);
    expect((await send(b.userId, 9)).filter((r) => r.accepted)).toHaveLength(8);
    expect(reads).not.toHaveBeenCalled();
    // The first 7 leave the window: room for 7 more of a's, still without a read.
    clock.advance(41_000);
    expect((await send(a.userId, 8)).filter((r) => r.accepted)).toHaveLength(7);
    expect(reads).not.toHaveBeenCalled();
    // b's first 2 have left the window, its 8 not: another connection accepts a ninth, and this store,
    // seeing its commit, reads again and takes one more of b's, not two.
    expect(before.acceptNow(b.userId, 'premium', textAlert('z')).accepted).toBe(true);
    expect((await send(b.userId, 2)).filter((r) => r.accepted)).toHaveLength(1);
    expect(reads).toHaveBeenCalled();
  });

  it('keeps only the newest refusals of an account when a group writes many (trimmed once, at its end)', async () => {
    const { db, accounts, calls } = openStoresAt('2026-11-10T10:00:00Z');
    const a = createAccount(accounts, { plan: 'premium' });
    for (let round = 0; round < 20; round++)
      await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          calls.recordRejection({
            userId: a.userId,
            status: 'invalid_payload',
            error: 'bad',
            excerpt: `${round} ${i}`,
          }),
        ),
      );
    expect(rowsOf(db, a.userId, 0)).toBeLessThanOrEqual(MAX_REJECTIONS_KEPT);
    expect(rowsOf(db, a.userId, 0)).toBeGreaterThanOrEqual(KEPT_AFTER_TRIM);
    const newest = db
      .prepare('SELECT message FROM calls WHERE user_id = ? ORDER BY id DESC LIMIT 1')
      .pluck()
      .get(a.userId);
    expect(newest).toBe('19 59');
  });

  it('commits at most MAX_GROUP writes at once; the rest follow in the next commit, each answered after its own', async () => {
    const { db, accounts, calls } = openStoresAt('2026-11-10T10:00:00Z');
    const users = Array.from({ length: 10 }, () => createAccount(accounts, { plan: 'premium' }));
    const total = MAX_GROUP + 36;
    // What is on disk when each caller is answered.
    const seen = await Promise.all(
      Array.from({ length: total }, (_, i) =>
        calls.accept(users[i % 10]!.userId, 'premium', textAlert(`alert ${i}`)).then((r) => {
          expect(count(db, 'SELECT count(*) FROM calls WHERE call_id = ?', r.callId)).toBe(1);
          return count(db, 'SELECT count(*) FROM calls');
        }),
      ),
    );
    expect(seen.slice(0, MAX_GROUP)).toEqual(Array(MAX_GROUP).fill(MAX_GROUP));
    expect(seen.slice(MAX_GROUP)).toEqual(Array(total - MAX_GROUP).fill(total));
  });
});

describe("the group commit waiting for another connection's write lock", () => {
  it('waits between short tries without holding the event loop: a lock released meanwhile lets the alert land', async () => {
    const { db, accounts, calls } = openStoresAt('2026-11-10T10:00:00Z');
    const a = createAccount(accounts, { plan: 'premium' });
    const other = raw(path.join(tmp, 'ringhook.db'));
    other.exec('BEGIN IMMEDIATE');
    // Released by a timer of this process: it can only fire if the wait leaves the loop free (a
    // synchronous wait of LOCK_WAIT_MS held it, and the alert failed busy with the lock about to go).
    setTimeout(() => other.exec('ROLLBACK'), 200);
    const result = await calls.accept(a.userId, 'premium', textAlert('waits for the lock'));
    expect(result.accepted).toBe(true);
    expect(rowsOf(db, a.userId, 1)).toBe(1);
  });

  it('fails each write busy LOCK_WAIT_MS after it was asked for, writing nothing; the next write after the lock lands', async () => {
    const { db, accounts, calls } = openStoresAt('2026-11-10T10:00:00Z');
    const a = createAccount(accounts, { plan: 'premium' });
    const other = raw(path.join(tmp, 'ringhook.db'));
    other.exec('BEGIN IMMEDIATE');
    const timed = (message: string) => {
      const askedAt = performance.now();
      return calls.accept(a.userId, 'premium', textAlert(message)).then(
        () => ({ busy: false, ms: performance.now() - askedAt }),
        (error: unknown) => ({ busy: isBusyError(error), ms: performance.now() - askedAt }),
      );
    };
    const first = timed('first');
    await new Promise((r) => setTimeout(r, 400));
    // Asked while the first waits: its own wait, counted from now.
    const second = timed('second');
    const outcomes = await Promise.all([first, second]);
    other.exec('ROLLBACK');
    for (const outcome of outcomes) {
      expect(outcome.busy).toBe(true);
      expect(outcome.ms).toBeGreaterThanOrEqual(LOCK_WAIT_MS - 1);
    }
    expect(rowsOf(db, a.userId, 0) + rowsOf(db, a.userId, 1)).toBe(0);
    expect((await calls.accept(a.userId, 'premium', textAlert('after the lock'))).accepted).toBe(true);
  });
});
