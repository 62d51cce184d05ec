// SqliteAccountStore against a real SQLite file: creating, authenticating, changing and deleting accounts.
import { beforeEach, describe, expect, it } from 'vitest';
import { API_KEY_PATTERN, newApiKey, USER_ID_PATTERN } from '../../src/core/ids.js';
import type { SqliteAccountStore } from '../../src/store/sqlite/accounts.js';
import type { SqliteCallStore } from '../../src/store/sqlite/calls.js';
import type { Db } from '../../src/store/sqlite/connect.js';
import { createAccount } from '../helpers/accounts.js';
import { useTempDatabases, count, textAlert, type manualClock, openStoresAt } from '../helpers/database.js';

useTempDatabases();

describe('SqliteAccountStore', () => {
  let db: Db;
  let clock: ReturnType<typeof manualClock>;
  let accounts: SqliteAccountStore;
  let calls: SqliteCallStore;

  beforeEach(() => {
    ({ db, clock, accounts, calls } = openStoresAt('2026-11-22T14:00:00Z'));
  });

  const newAccount = (plan: 'free' | 'premium' = 'free') => createAccount(accounts, { plan, name: 'Trader' });

  it('creates an account with fresh credentials', () => {
    const a = createAccount(accounts, { phone: '+33612345678', smsBackup: true, name: 'Zoé' });
    expect(a).toEqual({
      userId: expect.stringMatching(USER_ID_PATTERN),
      apiKey: expect.stringMatching(API_KEY_PATTERN),
      name: 'Zoé',
      phone: '+33612345678',
      plan: 'premium',
      smsBackup: true,
      requireConfirm: true,
      language: 'en',
      voice: 'slt',
      intro: null,
      dedupeSeconds: 0,
      webhookSources: 'any',
      quietHours: '',
      timeZone: 'UTC',
      quietMode: 'hold',
      ringAgain: 0,
      ringAgainAfter: 60,
      backupPhone: null,
      backupPhoneStatus: null,
      decisionKeys: '',
      decisionPinSet: false,
      status: 'active',
      createdAt: clock.now(),
      updatedAt: clock.now(),
      keyCreatedAt: clock.now(),
      // Read with the account: no callback URL (the callback feed looks for none of its alerts).
      hasCallback: false,
    });
    const b = newAccount();
    expect(b.userId).not.toBe(a.userId);
    expect(b.apiKey).not.toBe(a.apiKey);
  });

  it('gets and lists accounts, oldest first', () => {
    const a = newAccount();
    clock.advance(1000);
    const b = newAccount('premium');
    expect(accounts.get(a.userId)).toEqual(a);
    expect(accounts.get('0'.repeat(32))).toBeUndefined();
    expect(accounts.list()).toEqual([a, b]);
  });

  it('updates only what is given', () => {
    const a = newAccount();
    clock.advance(5000);
    const updated = accounts.update(a.userId, { plan: 'premium', status: 'suspended', smsBackup: true });
    expect(updated).toEqual({ ...a, plan: 'premium', status: 'suspended', smsBackup: true, updatedAt: clock.now() });
    expect(accounts.update(a.userId, { name: 'New name', phone: '+14155550199' })).toMatchObject({
      name: 'New name',
      phone: '+14155550199',
      plan: 'premium',
      status: 'suspended',
    });
    expect(accounts.update('f'.repeat(32), { name: 'x' })).toBeUndefined();
  });

  it('regenerates the key: the old URL stops working at once', () => {
    const a = newAccount();
    clock.advance(60_000);
    const b = accounts.regenerateKey(a.userId)!;
    expect(b.apiKey).toMatch(API_KEY_PATTERN);
    expect(b.apiKey).not.toBe(a.apiKey);
    expect(b).toMatchObject({
      userId: a.userId,
      keyCreatedAt: clock.now(),
      updatedAt: clock.now(),
      createdAt: a.createdAt,
    });
    expect(accounts.authenticate(a.userId, a.apiKey)).toBeUndefined();
    expect(accounts.authenticate(a.userId, b.apiKey)).toEqual(b);
    expect(accounts.regenerateKey('f'.repeat(32))).toBeUndefined();
  });

  it('deletes an account with its calls, events and usage, and nothing else', () => {
    const a = newAccount('premium');
    const other = newAccount('premium');
    const accepted = calls.acceptNow(a.userId, 'premium', textAlert('mine'));
    if (!accepted.accepted) throw new Error('not accepted');
    calls.recordRejectionNow({ userId: a.userId, status: 'invalid_payload', error: 'bad', excerpt: '{' });
    calls.acceptTestCall(a.userId, 'test', 2);
    db.prepare('INSERT INTO call_events (call_id, at, event) VALUES (?, ?, ?)').run(
      accepted.callId,
      clock.now(),
      'queued',
    );
    calls.acceptNow(other.userId, 'premium', textAlert('theirs'));

    expect(accounts.delete(a.userId)).toBe(true);
    expect(accounts.get(a.userId)).toBeUndefined();
    expect(count(db, 'SELECT count(*) FROM calls WHERE user_id = ?', a.userId)).toBe(0);
    expect(count(db, 'SELECT count(*) FROM usage WHERE user_id = ?', a.userId)).toBe(0);
    expect(count(db, 'SELECT count(*) FROM call_events')).toBe(0);
    expect(calls.list({ userId: other.userId })).toHaveLength(1);
    expect(calls.usage(other.userId).used).toBe(1);
    expect(accounts.delete(a.userId)).toBe(false);
  });

  describe('authenticate', () => {
    it('returns the account for the right key', () => {
      const a = newAccount();
      expect(accounts.authenticate(a.userId, a.apiKey)).toEqual(a);
    });

    it('returns a suspended account too (the webhook answers 403, not 401)', () => {
      const a = newAccount();
      accounts.update(a.userId, { status: 'suspended' });
      expect(accounts.authenticate(a.userId, a.apiKey)).toMatchObject({ status: 'suspended' });
    });

    it('refuses a wrong key of the right shape', () => {
      const a = newAccount();
      const flipped = a.apiKey.slice(0, -1) + (a.apiKey.endsWith('A') ? 'B' : 'A');
      expect(accounts.authenticate(a.userId, flipped)).toBeUndefined();
      expect(accounts.authenticate(a.userId, newApiKey())).toBeUndefined();
    });

    it("refuses another account's key", () => {
      const a = newAccount();
      const b = newAccount();
      expect(accounts.authenticate(a.userId, b.apiKey)).toBeUndefined();
    });

    it('refuses an unknown user', () => {
      const a = newAccount();
      expect(accounts.authenticate('0'.repeat(32), a.apiKey)).toBeUndefined();
      expect(accounts.authenticate('0'.repeat(32), newApiKey())).toBeUndefined();
    });

    it('refuses malformed user ids without throwing', () => {
      const a = newAccount();
      for (const userId of [
        '',
        a.userId.toUpperCase(),
        a.userId.slice(1),
        `${a.userId}0`,
        "' OR 1=1 --",
        `${a.userId}\n`,
        `../${a.userId}`,
      ]) {
        expect(accounts.authenticate(userId, a.apiKey)).toBeUndefined();
      }
    });

    it('refuses keys of other lengths and shapes without throwing', () => {
      const a = newAccount();
      const keys = [
        '',
        'rk_',
        a.apiKey.slice(0, -1),
        `${a.apiKey}x`,
        `${a.apiKey}${a.apiKey}`,
        a.apiKey.slice(3),
        `${a.apiKey.slice(0, -1)}é`, // same number of characters, one more byte
        `${a.apiKey.slice(0, -2)}é`, // same number of bytes, one fewer character
        a.apiKey.toUpperCase() === a.apiKey ? a.apiKey.toLowerCase() : a.apiKey.toUpperCase(),
        `${a.apiKey}\u0000`,
        'x'.repeat(10_000),
      ];
      for (const key of keys)
        expect(accounts.authenticate(a.userId, key), JSON.stringify(key.slice(0, 60))).toBeUndefined();
    });
  });
});
