// The group commit: alerts and refusals that arrive together are written in one transaction, each
// in its own savepoint, and answered only after it committed; if it cannot commit, nobody's write
// is recorded and every caller gets the error.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBusyError } from '../../src/store/unavailable.js';
import { createAccount } from '../helpers/accounts.js';
import { count, openStoresAt, raw, textAlert, tmp, useTempDatabases } from '../helpers/database.js';

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
});
