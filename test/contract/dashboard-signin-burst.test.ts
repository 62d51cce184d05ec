// Sign-in under a burst, over real HTTPS against the real app: a burst of wrong passwords gets at most the
// throttle's worth of scrypt checks, and hashing never starves the thread pool's file writes. It times
// file writes against a bound, so it runs alone (vitest.config.ts ALONE); the other sign-in guards are
// in dashboard-signin.test.ts.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { startDashboardService, type DashboardService } from '../helpers/browser.js';
import { count, ownerWithPassword, postForm, signInForm } from '../helpers/sign-in.js';

let svc: DashboardService | undefined;

afterEach(async () => {
  await svc?.stop();
  svc = undefined;
});

// Writes a small file again and again in a worker thread (libuv's thread pool is the process's,
// the worker's event loop is its own: the time measured is the pool's, not this loop's, which is
// busy with both ends of hundreds of TLS handshakes).
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
let done = false, slowestMs = 0, writes = 0;
parentPort.on('message', () => { done = true; });
(async () => {
  while (!done) {
    const started = performance.now();
    await fs.promises.writeFile(workerData.file, 'hello from the speech engine');
    slowestMs = Math.max(slowestMs, performance.now() - started);
    writes++;
    await new Promise((r) => setTimeout(r, 20));
  }
  parentPort.postMessage({ slowestMs, writes });
})();
`;

/** The slowest of small file writes made while `during` runs, in ms. */
async function slowestWrite<T>(during: Promise<T>): Promise<{ result: T; slowestMs: number; writes: number }> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-write-')), 'speech.txt');
  const worker = new Worker(WRITER, { eval: true, workerData: { file } });
  const report = new Promise<{ slowestMs: number; writes: number }>((resolve) => worker.once('message', resolve));
  const result = await during.finally(() => worker.postMessage('stop'));
  const { slowestMs, writes } = await report;
  await worker.terminate();
  return { result, slowestMs, writes };
}

describe('POST /login under a burst', () => {
  it('300 concurrent wrong passwords from one address: at most 5 are checked, the rest are 429 without hashing', async () => {
    // 300 connections at once from one address: above the server's cap per address (256), which
    // would refuse some before they are read; the sign-in throttle is what this test looks at.
    svc = await startDashboardService({ connections: { perAddress: 400 } });
    const s = svc;
    const owner = await ownerWithPassword(s);
    const form = await signInForm(s);
    const started = Date.now();
    const replies = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        postForm(s, '/login', form, { user_id: owner.userId, password: `wrong password ${i}` }),
      ),
    );
    const statuses = count(replies);
    // 401 is the answer of a real scrypt check; 429 is given before any hashing.
    expect(statuses, JSON.stringify(statuses)).toEqual({ 401: 5, 429: 295 });
    expect(replies.filter((r) => r.status === 429).every((r) => Number(r.headers['retry-after']) > 0)).toBe(true);
    // 5 scrypt runs, not 300: the burst is over quickly.
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 60_000);

  it('a file write in the thread pool stays fast while many addresses send wrong passwords at once; beyond a short queue sign-in answers 429 busy', async () => {
    svc = await startDashboardService();
    const s = svc;
    // Two kept-alive connections per address, opened beforehand: this process plays both ends of
    // the TLS handshakes on 2 CPUs, and the time measured must be the thread pool's, not theirs.
    const addresses = Array.from({ length: 50 }, (_, i) => ({
      from: `127.0.0.${10 + i}`,
      agent: new https.Agent({ keepAlive: true, maxSockets: 2, ca: s.ca, localAddress: `127.0.0.${10 + i}` }),
    }));
    const forms = await Promise.all(
      addresses.flatMap(({ from, agent }) => [
        signInForm(s, from, '/login', agent),
        signInForm(s, from, '/login', agent),
      ]),
    );
    const burst = Promise.all(
      addresses.flatMap(({ from, agent }, i) =>
        Array.from({ length: 6 }, () =>
          postForm(
            s,
            '/login',
            forms[2 * i]!,
            { user_id: randomBytes(16).toString('hex'), password: 'wrong password' },
            from,
            agent,
          ),
        ),
      ),
    );
    const { result: replies, slowestMs, writes } = await slowestWrite(burst);
    expect(writes).toBeGreaterThan(0);
    expect(slowestMs, `slowest write ${slowestMs.toFixed(0)} ms`).toBeLessThan(200);
    const statuses = count(replies);
    expect(Object.keys(statuses).sort(), JSON.stringify(statuses)).toEqual(['401', '429']);
    const busy = replies.filter((r) => r.status === 429);
    expect(busy.every((r) => Number(r.headers['retry-after']) > 0 && r.text.includes('busy'))).toBe(true);
    for (const { agent } of addresses) agent.destroy();
  }, 60_000);
});
