// ringhook's own certificate in both stores: saved with its key sealed, failures counted and cleared,
// HTTP-01 answers that expire, and the order lock (PostgreSQL: one node at a time).
import postgres from 'postgres';
import { describe, expect, test } from 'vitest';
import type { StoredCertificate } from '../../src/core/server/certificate.js';
import { SecretBox } from '../../src/store/secret-box.js';
import { manualClock } from '../helpers/database.js';
import { STORE_KINDS, useStores } from '../helpers/stores.js';

const certificate: StoredCertificate = {
  names: ['alerts.example.com', 'www.example.com'],
  certPem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  keyPem: '-----BEGIN PRIVATE KEY-----\nsecret\n-----END PRIVATE KEY-----\n',
  notBefore: 1_000,
  notAfter: 2_000,
  obtainedAt: 1_500,
};

describe.each(STORE_KINDS)('%s store: the ACME certificate', (kind) => {
  const stores = useStores(kind);

  test('nothing at first; a saved certificate comes back whole, its key unreadable without the secret key', async () => {
    const db = await stores.fresh();
    const store = await db.open();
    expect(await store.certificates.state()).toEqual({
      certificate: null,
      lastAttemptAt: null,
      lastError: null,
      lastErrorFix: null,
      lastErrorKind: null,
      failures: 0,
      nextAttemptAt: null,
    });
    await store.certificates.save(certificate);
    expect((await store.certificates.state()).certificate).toEqual(certificate);

    // Another secret key opens the database without the api_key check, and cannot read the certificate's key: none, a new one is ordered.
    const other = await db.open({ secrets: new SecretBox(Buffer.alloc(32, 7), 'another key'), checkKey: false });
    expect((await other.certificates.state()).certificate).toBeNull();
  });

  test('failures count up and keep the certificate; a new certificate clears them', async () => {
    const store = await (await stores.fresh()).open();
    await store.certificates.save(certificate);
    await store.certificates.recordFailure({
      at: 3_000,
      error: 'connect ECONNREFUSED',
      kind: 'unreachable',
      fix: 'check RINGHOOK_ACME_DIRECTORY',
      nextAttemptAt: 4_000,
    });
    await store.certificates.recordFailure({
      at: 5_000,
      error: 'still down',
      kind: 'rate_limited',
      fix: 'check RINGHOOK_ACME_DIRECTORY',
      nextAttemptAt: 9_000,
    });
    expect(await store.certificates.state()).toEqual({
      certificate,
      lastAttemptAt: 5_000,
      lastError: 'still down',
      lastErrorFix: 'check RINGHOOK_ACME_DIRECTORY',
      lastErrorKind: 'rate_limited',
      failures: 2,
      nextAttemptAt: 9_000,
    });
    const renewed = { ...certificate, notBefore: 10_000, notAfter: 20_000, obtainedAt: 10_000 };
    await store.certificates.save(renewed);
    expect(await store.certificates.state()).toEqual({
      certificate: renewed,
      lastAttemptAt: 10_000,
      lastError: null,
      lastErrorFix: null,
      lastErrorKind: null,
      failures: 0,
      nextAttemptAt: null,
    });
  });

  test('a challenge answers until it is removed or expires', async () => {
    const clock = manualClock('2026-11-27T08:00:00Z');
    const store = await (await stores.fresh()).open({ now: clock.now });
    await store.certificates.putChallenge('tok-1', 'tok-1.thumb', clock.now() + 60_000);
    await store.certificates.putChallenge('tok-2', 'tok-2.thumb', clock.now() + 60_000);
    expect(await store.certificates.challenge('tok-1')).toBe('tok-1.thumb');
    await store.certificates.deleteChallenge('tok-1');
    expect(await store.certificates.challenge('tok-1')).toBeUndefined();
    clock.advance(60_000);
    expect(await store.certificates.challenge('tok-2')).toBeUndefined();
  });

  test('the order lock: a second order is refused while one runs (SQLite: in this process; PostgreSQL: on every node)', async () => {
    const db = await stores.fresh();
    const a = await db.open({ nodeId: 'node-a' });
    const b = kind === 'postgres' ? await db.open({ nodeId: 'node-b' }) : a;
    let release!: () => void;
    const held = a.certificates.whileOrdering(
      () => new Promise<string>((resolve) => (release = () => resolve('ordered by a'))),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(await b.certificates.whileOrdering(async () => 'ordered by b')).toEqual({ ran: false });
    release();
    expect(await held).toEqual({ ran: true, value: 'ordered by a' });
    expect(await b.certificates.whileOrdering(async () => 'ordered by b')).toEqual({
      ran: true,
      value: 'ordered by b',
    });
  });

  if (kind === 'postgres') {
    test('a node that fails mid-order releases the lock (the transaction ends with the error)', async () => {
      const db = await stores.fresh();
      const [a, b] = [await db.open({ nodeId: 'node-a' }), await db.open({ nodeId: 'node-b' })];
      await expect(
        a.certificates.whileOrdering(async () => Promise.reject(new Error('authority down'))),
      ).rejects.toThrow('authority down');
      expect(await b.certificates.whileOrdering(async () => 'b')).toEqual({ ran: true, value: 'b' });
    });

    test("the lock's connection lost mid-order: no answer while the order still runs (the keeper would start another beside it), then CONNECTION_CLOSED", async () => {
      const db = await stores.fresh();
      const a = await db.open({ nodeId: 'node-a' });
      const admin = postgres(db.location, { max: 1, onnotice: () => {} });
      try {
        let started!: () => void;
        const running = new Promise<void>((r) => (started = r));
        let finish!: () => void;
        let answered = false;
        const ordering = a.certificates
          .whileOrdering(() => new Promise<string>((resolve) => (started(), (finish = () => resolve('ordered')))))
          .finally(() => (answered = true));
        await running;
        const [ended] = await admin<{ ended: boolean }[]>`
          select pg_terminate_backend(pid) as ended from pg_locks where locktype = 'advisory' and granted`;
        expect(ended).toEqual({ ended: true });
        await new Promise((r) => setTimeout(r, 500));
        expect(answered).toBe(false);
        finish();
        await expect(ordering).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
      } finally {
        await admin.end({ timeout: 1 });
      }
    });
  }
});
