// Faults at the webhook, through a real HTTPS service on a real SQLite file:
// per-address throttling of failed authentications that never refuses valid credentials, a second
// connection holding the write lock (the webhook answers within its budget or 503 having recorded
// nothing), and a full disk (500, nothing half-written, recovery when space returns).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import type { Account } from '../../src/core/account.js';
import { WEBHOOK_AUTH_LIMITS } from '../../src/http/auth-throttle.js';
import { startTestService, realClock, type TestService } from '../helpers/service.js';
import { holdWriteLock } from '../helpers/db-lock.js';
import { createAccount } from '../helpers/accounts.js';

const hookPath = (a: Pick<Account, 'userId' | 'apiKey'>) => `/webhook/${a.userId}/${a.apiKey}`;
const wrongPath = (a: Pick<Account, 'userId'>) => `/webhook/${a.userId}/${'x'.repeat(32)}`;

describe('failed authentications are throttled per client address, valid credentials never', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ RINGHOOK_TRUST_PROXY: '127.0.0.9' });
  });
  afterAll(async () => {
    await t.stop();
  });
  afterEach(() => {
    const errors = t.errorLogs();
    t.logs.length = 0;
    expect(errors).toEqual([]);
  });

  const premium = async () => createAccount(t.service.stores.accounts);

  it(`after ${WEBHOOK_AUTH_LIMITS.failures} failures a minute: 429 too_many_failures with Retry-After, yet valid credentials from the same address pass`, async () => {
    const a = await premium();
    const from = { localAddress: '127.0.0.2' };
    for (let i = 0; i < WEBHOOK_AUTH_LIMITS.failures; i++) {
      const res = await t.post(wrongPath(a), 'x', {}, from);
      expect(res.status).toBe(401);
    }
    const refused = await t.post(wrongPath(a), 'x', {}, from);
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ success: false, code: 'too_many_failures' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);

    // Another customer's valid URL from the same (shared, TradingView-like) address is served.
    const ok = await t.post(hookPath(a), 'valid alert from a throttled address', {}, from);
    expect(ok.status).toBe(200);
    // Another address is not affected.
    expect((await t.post(wrongPath(a), 'x', {}, { localAddress: '127.0.0.3' })).status).toBe(401);
    // The window slides: a minute later the address is counted afresh.
    t.clock.advance(61_000);
    expect((await t.post(wrongPath(a), 'x', {}, from)).status).toBe(401);
    // Nothing was recorded for the refused requests: only the valid alert is in the history.
    expect((await t.service.stores.calls.list({ userId: a.userId })).map((c) => c.status)).toEqual(['queued']);
  });

  it('behind a trusted proxy, each forwarded client address is counted on its own', async () => {
    const a = await premium();
    for (let i = 0; i < WEBHOOK_AUTH_LIMITS.failures; i++) {
      expect(
        (await t.post(wrongPath(a), 'x', { 'x-forwarded-for': '203.0.113.7' }, { localAddress: '127.0.0.9' })).status,
      ).toBe(401);
    }
    expect(
      (await t.post(wrongPath(a), 'x', { 'x-forwarded-for': '203.0.113.7' }, { localAddress: '127.0.0.9' })).status,
    ).toBe(429);
    expect(
      (await t.post(wrongPath(a), 'x', { 'x-forwarded-for': '203.0.113.8' }, { localAddress: '127.0.0.9' })).status,
    ).toBe(401);
    // An untrusted peer cannot pick its address with X-Forwarded-For.
    for (let i = 0; i < WEBHOOK_AUTH_LIMITS.failures; i++) {
      await t.post(wrongPath(a), 'x', { 'x-forwarded-for': `198.51.100.${i}` }, { localAddress: '127.0.0.4' });
    }
    expect(
      (await t.post(wrongPath(a), 'x', { 'x-forwarded-for': '198.51.100.250' }, { localAddress: '127.0.0.4' })).status,
    ).toBe(429);
    t.clock.advance(61_000);
  });
});

describe('a second connection holds the write lock for longer than the busy timeout (5 s)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({}, realClock());
  });
  afterAll(async () => {
    await t.stop();
  });

  it('every alert is answered within 3 s: 200 and recorded, or 503 unavailable with nothing recorded; a re-send then succeeds', async () => {
    const accounts = await Promise.all([0, 1, 2].map(async () => createAccount(t.service.stores.accounts)));
    const dbFile = path.join(t.dataDir, 'ringhook.db');
    const lock = await holdWriteLock(dbFile, 6_000);
    const started = Date.now();
    let released = false;
    void lock.released.then(() => (released = true));
    const replies: Array<{ account: Account; status: number; code?: string; retryAfter?: string; ms: number }> = [];
    // Alerts keep arriving (bounded: at most 40 rounds, at most 8 s) while the lock is held.
    for (let i = 0; i < 40 && !released && Date.now() - started < 8_000; i++) {
      const account = accounts[i % accounts.length]!;
      const sent = Date.now();
      const batch = await Promise.all([0, 1].map(() => t.post(hookPath(account), `alert ${i} during the lock`)));
      for (const res of batch) {
        replies.push({
          account,
          status: res.status,
          code: res.json?.code,
          retryAfter: res.headers['retry-after'] as string | undefined,
          ms: Date.now() - sent,
        });
      }
    }
    await lock.released;
    console.log(
      'figures: write lock held 6 s',
      JSON.stringify({
        replies: replies.length,
        ok: replies.filter((r) => r.status === 200).length,
        unavailable: replies.filter((r) => r.status === 503).length,
        max_ms: Math.max(...replies.map((r) => r.ms)),
      }),
    );
    const during = replies.filter((r) => r.status !== 200);
    expect(during.length).toBeGreaterThan(0);
    for (const r of replies) {
      expect(r.ms, 'the answer is within the sender budget').toBeLessThan(3_000);
      expect([200, 503]).toContain(r.status);
      if (r.status === 503) {
        expect(r.code).toBe('unavailable');
        expect(r.retryAfter).toBe('5');
      }
    }
    // Exactly the alerts answered 200 are in the history, and counted; nothing half-written.
    for (const account of accounts) {
      const ok = replies.filter((r) => r.account === account && r.status === 200).length;
      const history = await t.service.stores.calls.list({ userId: account.userId, limit: 1000 });
      expect(history.length).toBe(ok);
      expect((await t.service.stores.calls.usage(account.userId)).used).toBe(ok);
    }
    // The re-send (as TradingView does after a 5xx) is accepted now that the lock is gone.
    const resend = await t.post(hookPath(accounts[0]!), 'the re-sent alert');
    expect(resend.status).toBe(200);
    // Only the expected warnings, no error.
    expect(t.errorLogs()).toEqual([]);
  }, 30_000);
});

const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)('the disk is full (a 2 MB tmpfs)', () => {
  let mountDir: string;
  let t: TestService;
  beforeAll(async () => {
    mountDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-full-'));
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', mountDir]);
    if (mounted.status !== 0) throw new Error(`mount tmpfs failed: ${mounted.stderr}`);
    t = await startTestService({ RINGHOOK_DATA_DIR: path.join(mountDir, 'data') }, realClock());
  });
  afterAll(async () => {
    await t?.stop().catch(() => undefined);
    spawnSync('umount', ['-l', mountDir]);
    fs.rmSync(mountDir, { recursive: true, force: true });
  });

  it('alerts are answered 500 internal and not recorded while full; the service recovers when space returns', async () => {
    const a = await createAccount(t.service.stores.accounts);
    const filler = path.join(mountDir, 'filler');
    const fd = fs.openSync(filler, 'w');
    const block = Buffer.alloc(16 * 1024, 1);
    try {
      for (;;) fs.writeSync(fd, block);
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      fs.closeSync(fd);
    }
    const message = 'disk full alert '.repeat(30);
    const statuses: number[] = [];
    // Bounded: at most 400 alerts (each adds a row, so the WAL must grow and hit the full disk).
    for (let i = 0; i < 400 && !statuses.includes(500); i++) {
      const res = await t.post(hookPath(a), JSON.stringify({ message, ticker: 'FULL', i, pad: 'p'.repeat(2000) }), {
        'content-type': 'application/json',
      });
      statuses.push(res.status);
      if (res.status !== 200) expect(res.json).toMatchObject({ success: false, code: 'internal' });
    }
    expect(statuses).toContain(500);
    // More alerts while full: all refused.
    for (let i = 0; i < 5; i++) {
      const res = await t.post(hookPath(a), JSON.stringify({ message, pad: 'p'.repeat(2000) }), {
        'content-type': 'application/json',
      });
      statuses.push(res.status);
    }
    const ok = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 500)).toEqual([]);
    expect((await t.service.stores.calls.list({ userId: a.userId, limit: 1000 })).length).toBe(ok);
    expect((await t.service.stores.calls.usage(a.userId)).used).toBe(ok);

    fs.rmSync(filler);
    const after = await t.post(hookPath(a), 'space is back');
    expect(after.status).toBe(200);
    expect((await t.service.stores.calls.list({ userId: a.userId, limit: 1000 })).length).toBe(ok + 1);
    const check = new Database(path.join(mountDir, 'data', 'ringhook.db'), { readonly: true });
    try {
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
      const rows = check.prepare('SELECT COUNT(*) AS n FROM calls WHERE user_id = ?').get(a.userId) as { n: number };
      expect(rows.n).toBe(ok + 1);
    } finally {
      check.close();
    }
    // The failures were logged as errors (an operator must see a full disk), nothing else.
    expect(
      t.errorLogs().every((l) => JSON.stringify(l).includes('SQLITE_FULL') || JSON.stringify(l).includes('full')),
    ).toBe(true);
  }, 60_000);
});
