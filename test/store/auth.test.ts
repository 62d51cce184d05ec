// Dashboard sign-in in both stores: sessions, passwords, the admin flag, one-time links.
import { describe, expect, test } from 'vitest';
import { LOGIN_LINK_TTL_MS } from '../../src/core/records.js';
import { SESSION_IDLE_MS, SESSION_MAX_AGE_MS } from '../../src/core/records.js';
import { manualClock } from '../helpers/database.js';
import { STORE_KINDS, useStores } from '../helpers/stores.js';

describe.each(STORE_KINDS)('%s store: sessions and owner auth', (kind) => {
  const stores = useStores(kind);

  async function setUp() {
    const clock = manualClock('2026-11-10T12:00:00Z');
    const store = await (await stores.fresh()).open({ now: clock.now });
    const account = await store.accounts.create({ phone: '+14155550123', plan: 'free', smsBackup: false, name: '' });
    return { clock, store, userId: account.userId };
  }

  test('a session lives until it expires or idles, and ends when deleted', async () => {
    const { clock, store, userId } = await setUp();
    const { token, session } = await store.sessions.create(userId);
    expect(session).toMatchObject({ userId, createdAt: clock.now(), expiresAt: clock.now() + SESSION_MAX_AGE_MS });
    expect(await store.sessions.get(token)).toEqual(session);
    expect(await store.sessions.get('not a token')).toBeUndefined();
    expect(await store.sessions.get('A'.repeat(43))).toBeUndefined();

    // Used within the idle time again and again, it lives until its maximum age.
    for (let i = 0; i < 7; i++) {
      clock.advance(SESSION_IDLE_MS - 60_000);
      expect(await store.sessions.get(token)).toEqual(session);
    }
    clock.advance(SESSION_MAX_AGE_MS);
    expect(await store.sessions.get(token)).toBeUndefined();

    const idle = await store.sessions.create(userId);
    clock.advance(SESSION_IDLE_MS);
    expect(await store.sessions.get(idle.token)).toBeUndefined();

    const one = await store.sessions.create(userId);
    const two = await store.sessions.create(userId);
    await store.sessions.delete(one.token);
    expect(await store.sessions.get(one.token)).toBeUndefined();
    expect(await store.sessions.get(two.token)).toEqual(two.session);
    await store.sessions.deleteForAccount(userId);
    expect(await store.sessions.get(two.token)).toBeUndefined();
  });

  test('password, admin flag', async () => {
    const { store, userId } = await setUp();
    expect(await store.ownerAuth.hasPassword(userId)).toBe(false);
    expect(await store.ownerAuth.checkPassword(userId, 'anything')).toBe(false);
    await store.ownerAuth.setPassword(userId, 'correct horse battery');
    expect(await store.ownerAuth.hasPassword(userId)).toBe(true);
    expect(await store.ownerAuth.checkPassword(userId, 'correct horse battery')).toBe(true);
    expect(await store.ownerAuth.checkPassword(userId, 'wrong horse battery')).toBe(false);
    expect(await store.ownerAuth.checkPassword('0'.repeat(32), 'correct horse battery')).toBe(false);

    expect(await store.ownerAuth.isAdmin(userId)).toBe(false);
    await store.ownerAuth.setAdmin(userId, true);
    expect(await store.ownerAuth.isAdmin(userId)).toBe(true);
    expect(await store.ownerAuth.checkPassword(userId, 'correct horse battery')).toBe(true);
    await store.ownerAuth.setAdmin(userId, false);
    expect(await store.ownerAuth.isAdmin(userId)).toBe(false);
  });

  test('a login link works once, and not after it expired', async () => {
    const { clock, store, userId } = await setUp();
    const link = await store.ownerAuth.createLoginLink(userId);
    expect(link.expiresAt).toBe(clock.now() + LOGIN_LINK_TTL_MS);
    const [first, second] = await Promise.all([
      store.ownerAuth.useLoginLink(link.token),
      store.ownerAuth.useLoginLink(link.token),
    ]);
    expect([first, second].filter((x) => x === userId)).toHaveLength(1);
    expect(await store.ownerAuth.useLoginLink(link.token)).toBeUndefined();
    expect(await store.ownerAuth.useLoginLink('bad')).toBeUndefined();

    const late = await store.ownerAuth.createLoginLink(userId);
    clock.advance(LOGIN_LINK_TTL_MS);
    expect(await store.ownerAuth.useLoginLink(late.token)).toBeUndefined();
  });

  test('a new password ends the links not used yet (a suspected leak); a link made after it works', async () => {
    const { store, userId } = await setUp();
    const before = await store.ownerAuth.createLoginLink(userId);
    await store.ownerAuth.setPassword(userId, 'correct horse battery');
    expect(await store.ownerAuth.useLoginLink(before.token)).toBeUndefined();
    const after = await store.ownerAuth.createLoginLink(userId);
    expect(await store.ownerAuth.useLoginLink(after.token)).toBe(userId);
  });
});
