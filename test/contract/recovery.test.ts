// What a start does with the calls a previous run left queued: a call
// still fresh (younger than RINGHOOK_CALL_FRESHNESS) waits to be placed; an older one ends
// `expired`, with its SMS backup decided, and is never dialed. Real HTTPS and a real SQLite file;
// the first run has telephony off (alerts accepted, nothing placed), the second an external ARI URL
// where nothing listens (the dialer starts and recovers, and calls wait for Asterisk), on a clock
// the test moves past the freshness window. Also: one serve per data dir (the lock file).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { request } from '../helpers/https-client.js';
import { freeTcpPort } from '../helpers/ports.js';
import { makeDataDir, sqliteDb, startTestService, testClock, type TestService } from '../helpers/service.js';
import { createAccount } from '../helpers/accounts.js';

const running: TestService[] = [];
afterEach(async () => {
  for (const t of running.splice(0)) await t.stop();
});

it('at start, a queued call older than the freshness window expires (never dialed); a fresh one waits', async () => {
  const dataDir = makeDataDir();
  const clock = testClock('2026-11-22T14:00:00Z');
  const first = await startTestService({ RINGHOOK_DATA_DIR: dataDir, RINGHOOK_TELEPHONY: 'off' }, clock);
  const a = await createAccount(first.service.stores.accounts);
  const old = await first.post(`/webhook/${a.userId}/${a.apiKey}`, 'sent before the outage');
  expect(old.status, old.text).toBe(200);
  clock.advance(250_000);
  const fresh = await first.post(`/webhook/${a.userId}/${a.apiKey}`, 'sent just before the restart');
  expect(fresh.status, fresh.text).toBe(200);
  await first.stop();

  // 310 s after the first alert, 60 s after the second: freshness is 300 s.
  clock.advance(60_000);
  const ariPort = await freeTcpPort();
  const second = await startTestService(
    {
      RINGHOOK_DATA_DIR: dataDir,
      RINGHOOK_TELEPHONY: 'external',
      RINGHOOK_ARI_URL: `http://127.0.0.1:${ariPort}`,
      RINGHOOK_ARI_USER: 'ringhook',
      RINGHOOK_ARI_PASSWORD: 'nobody-listens',
    },
    clock,
  );
  running.push(second);
  const expired = await second.waitForCall(
    old.json.call_id,
    (r) => r.status !== 'queued' && r.sms_status !== null,
    5_000,
  );
  const timeline = (
    sqliteDb(second.service.stores)
      .prepare('SELECT event FROM call_events WHERE call_id = ? ORDER BY id')
      .all(old.json.call_id) as Array<{ event: string }>
  ).map((e) => e.event);
  expect(expired.status).toBe('expired');
  expect(expired.error).toMatch(/still waiting when ringhook restarted, and was older than/);
  expect(expired.reason_detail).toMatch(/too old/);
  expect(expired.dialed_at).toBeNull();
  expect(timeline).not.toContain('dialing');
  expect(expired.sms_status).toBe('disabled');
  // The fresh one waits for Asterisk (nothing listens on the ARI port).
  await new Promise((r) => setTimeout(r, 500));
  expect(second.callRow(fresh.json.call_id).status).toBe('queued');
});

it('a second serve on the same data dir is refused while the first runs, and starts once it stopped', async () => {
  const dataDir = makeDataDir();
  const first = await startTestService({ RINGHOOK_DATA_DIR: dataDir });
  await expect(startTestService({ RINGHOOK_DATA_DIR: dataDir })).rejects.toThrow(
    /another ringhook serve \(pid \d+, ringhook \d+\.\d+\.\d+, schema \d+\) is using the data dir .*: stop it first, or give this one its own RINGHOOK_DATA_DIR/,
  );
  await first.stop();
  const second = await startTestService({ RINGHOOK_DATA_DIR: dataDir });
  running.push(second);
  expect((await request(`${second.baseUrl}/healthz`, { method: 'GET', ca: second.ca })).status).toBe(200);
});

it('a lock left by a process that died (kill -9) is taken over', async () => {
  const dataDir = makeDataDir();
  // The pid of a process that has exited: a real one, reaped.
  const dead = spawnSync('true').pid!;
  fs.writeFileSync(path.join(dataDir, 'serve.pid'), `${dead}\n`);
  const t = await startTestService({ RINGHOOK_DATA_DIR: dataDir });
  running.push(t);
  expect(fs.readFileSync(path.join(dataDir, 'serve.pid'), 'utf8').split('\n')[0]).toBe(String(process.pid));
});
