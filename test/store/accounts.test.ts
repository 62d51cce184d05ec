// Accounts in both stores: the same records, sealed keys, and authentication.
import { describe, expect, test } from 'vitest';
import { reasonText } from '../../src/core/reasons.js';
import { UserError } from '../../src/lib/errors.js';
import { textAlert } from '../helpers/database.js';
import { testSecrets } from '../helpers/secrets.js';
import { STORE_KINDS, useStores } from '../helpers/stores.js';

const NEW = { phone: '+14155550123', plan: 'free', smsBackup: true, name: 'Ada' } as const;

describe.each(STORE_KINDS)('%s store: accounts', (kind) => {
  const stores = useStores(kind);

  test('the backup person (#54): kept as set; verified only by a 1 at the pending number it still is', async () => {
    const store = await (await stores.fresh()).open({ now: () => 1_700_000_000_000 });
    const a = await store.accounts.create({ ...NEW, backupPhone: '+14155550777', backupPhoneStatus: 'pending' });
    expect(a).toMatchObject({ backupPhone: '+14155550777', backupPhoneStatus: 'pending' });
    // A 1 from another number, or from another account's: nothing changes.
    expect(await store.accounts.verifyBackupPhone(a.userId, '+14155550778')).toBe(false);
    expect(await store.accounts.verifyBackupPhone('0'.repeat(32), '+14155550777')).toBe(false);
    expect(await store.accounts.verifyBackupPhone(a.userId, '+14155550777')).toBe(true);
    expect(await store.accounts.get(a.userId)).toMatchObject({ backupPhoneStatus: 'verified' });
    // Once verified, another 1 changes nothing; a new number is pending again; none: neither.
    expect(await store.accounts.verifyBackupPhone(a.userId, '+14155550777')).toBe(false);
    const moved = await store.accounts.update(a.userId, { backupPhone: '+14155550779', backupPhoneStatus: 'pending' });
    expect(moved).toMatchObject({ backupPhone: '+14155550779', backupPhoneStatus: 'pending' });
    expect(await store.accounts.verifyBackupPhone(a.userId, '+14155550777')).toBe(false);
    const off = await store.accounts.update(a.userId, { backupPhone: null, backupPhoneStatus: null });
    expect(off).toMatchObject({ backupPhone: null, backupPhoneStatus: null });
    expect((await store.accounts.create(NEW)).backupPhone).toBeNull();
  });

  test('create, get, list, update, delete', async () => {
    const store = await (await stores.fresh()).open({ now: () => 1_700_000_000_000 });
    const a = await store.accounts.create(NEW);
    expect(a).toMatchObject({
      phone: NEW.phone,
      plan: 'free',
      smsBackup: true,
      requireConfirm: true,
      language: 'en',
      intro: null,
      status: 'active',
    });
    expect(a).toMatchObject({
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000,
      keyCreatedAt: 1_700_000_000_000,
    });
    expect(a.userId).toMatch(/^[0-9a-f]{32}$/);
    expect(a.apiKey).toMatch(/^rk_/);
    expect(await store.accounts.get(a.userId)).toEqual(a);
    const b = await store.accounts.create({
      ...NEW,
      plan: 'premium',
      smsBackup: false,
      requireConfirm: false,
      name: 'Bob',
    });
    expect(b).toMatchObject({ plan: 'premium', smsBackup: false, requireConfirm: false });
    expect((await store.accounts.list()).map((x) => x.userId).sort()).toEqual([a.userId, b.userId].sort());
    // What serve's start reads instead of every account (each key unsealed): their count, their languages.
    expect(await store.accounts.count()).toBe(2);
    expect(await store.accounts.languagesInUse()).toEqual(['en']);
    await store.accounts.update(b.userId, { language: 'ja' });
    expect((await store.accounts.languagesInUse()).sort()).toEqual(['en', 'ja']);

    const changed = await store.accounts.update(a.userId, {
      plan: 'premium',
      smsBackup: false,
      status: 'suspended',
      intro: 'Hello',
    });
    expect(changed).toMatchObject({
      plan: 'premium',
      smsBackup: false,
      status: 'suspended',
      intro: 'Hello',
      apiKey: a.apiKey,
      name: 'Ada',
    });
    expect(await store.accounts.update('0'.repeat(32), { plan: 'free' })).toBeUndefined();

    expect(await store.accounts.delete(a.userId)).toBe(true);
    expect(await store.accounts.delete(a.userId)).toBe(false);
    expect(await store.accounts.get(a.userId)).toBeUndefined();
    expect(await store.accounts.list()).toHaveLength(1);
    expect(await store.accounts.count()).toBe(1);
    expect(await store.accounts.languagesInUse()).toEqual(['ja']);
  });

  test("a suspension ends the account's queued calls in the same write: failed, never dialed, no SMS; a call placed already is left to its desk", async () => {
    const store = await (await stores.fresh()).open({ now: () => 1_700_000_000_000 });
    const a = await store.accounts.create({ ...NEW, plan: 'premium' });
    const other = await store.accounts.create({ ...NEW, plan: 'premium' });
    const accepted = async (userId: string, message: string) =>
      ((await store.calls.accept(userId, 'premium', textAlert(message))) as { callId: string }).callId;
    const queued = await accepted(a.userId, 'waiting for its line');
    const placed = await accepted(a.userId, 'on the phone');
    const others = await accepted(other.userId, 'another account');
    expect(await store.progress.transition(placed, 'dialing', { phone: NEW.phone, dialedAt: 1 })).toBe(true);

    await store.accounts.update(a.userId, { status: 'suspended' });
    expect(await store.calls.get(queued)).toMatchObject({
      status: 'failed',
      error: reasonText('account_suspended'),
      endedAt: 1_700_000_000_000,
      dialedAt: null,
      smsStatus: 'disabled',
    });
    expect((await store.progress.timeline(queued)).map((e) => [e.event, e.detail])).toContainEqual([
      'failed',
      reasonText('account_suspended'),
    ]);
    expect((await store.calls.get(placed))?.status).toBe('dialing');
    expect((await store.calls.get(others))?.status).toBe('queued');
  });

  test('authenticate: the right key, a wrong key, an unknown user', async () => {
    const store = await (await stores.fresh()).open();
    const a = await store.accounts.create(NEW);
    expect((await store.accounts.authenticate(a.userId, a.apiKey))?.userId).toBe(a.userId);
    expect(await store.accounts.authenticate(a.userId, `${a.apiKey.slice(0, -1)}x`)).toBeUndefined();
    expect(await store.accounts.authenticate('f'.repeat(32), a.apiKey)).toBeUndefined();
    expect(await store.accounts.authenticate(a.userId, '')).toBeUndefined();
  });

  test('regenerateKey: the old key stops working at once', async () => {
    let now = 1_700_000_000_000;
    const store = await (await stores.fresh()).open({ now: () => now });
    const a = await store.accounts.create(NEW);
    now += 5000;
    const b = (await store.accounts.regenerateKey(a.userId))!;
    expect(b.apiKey).not.toBe(a.apiKey);
    expect(b.keyCreatedAt).toBe(now);
    expect(await store.accounts.authenticate(a.userId, a.apiKey)).toBeUndefined();
    expect((await store.accounts.authenticate(a.userId, b.apiKey))?.apiKey).toBe(b.apiKey);
    expect(await store.accounts.regenerateKey('0'.repeat(32))).toBeUndefined();
  });

  test('a database sealed with another secret key is refused; regenerateAllKeys adopts the new key', async () => {
    const db = await stores.fresh();
    const first = await db.open();
    const a = await first.accounts.create(NEW);
    await first.close();
    const other = testSecrets();
    await expect(db.open({ secrets: other })).rejects.toThrow(UserError);
    await expect(db.open({ secrets: other })).rejects.toThrow(/sealed with another secret key/);
    const rescue = await db.open({ secrets: other, checkKey: false });
    const [renewed] = await rescue.accounts.regenerateAllKeys();
    expect(renewed?.userId).toBe(a.userId);
    expect(renewed?.apiKey).not.toBe(a.apiKey);
    await rescue.close();
    const reopened = await db.open({ secrets: other });
    expect((await reopened.accounts.authenticate(a.userId, renewed!.apiKey))?.userId).toBe(a.userId);
  });
});
