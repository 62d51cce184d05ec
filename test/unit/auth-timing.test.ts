// Webhook authentication must not tell whether a user_id exists by how long it takes: a known
// user_id with a wrong key and an unknown user_id are timed in process, interleaved, many times.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey, newUserId } from '../../src/core/ids.js';
import { SqliteAccountStore } from '../../src/store/sqlite/accounts.js';
import { openDatabase, type Db } from '../../src/store/sqlite/connect.js';
import { testSecrets } from '../helpers/secrets.js';

let tmp: string;
let db: Db;
let accounts: SqliteAccountStore;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-timing-'));
  db = openDatabase(path.join(tmp, 'ringhook.db'), { sync: 'normal' });
  accounts = new SqliteAccountStore(db, testSecrets());
  for (let i = 0; i < 200; i++)
    accounts.create({ phone: '+14155550123', plan: 'free', smsBackup: false, name: `account ${i}` });
});

afterAll(() => {
  db.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Mean µs per call over a batch, so that the timer's own cost and resolution matter little. */
function timeBatch(fn: () => unknown, calls: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1000 / calls;
}

describe('SqliteAccountStore.authenticate timing', () => {
  it('takes the same time for a known user_id with a wrong key as for an unknown user_id', () => {
    const known = accounts.list()[100]!.userId;
    const unknown = newUserId();
    const wrongKey = newApiKey();
    const knownCall = () => accounts.authenticate(known, wrongKey);
    const unknownCall = () => accounts.authenticate(unknown, wrongKey);
    expect(knownCall()).toBeUndefined();
    expect(unknownCall()).toBeUndefined();

    for (let i = 0; i < 5_000; i++) knownCall(), unknownCall();
    // Interleaved, in alternating order, so that a busy machine slows both alike.
    const knownTimes: number[] = [];
    const unknownTimes: number[] = [];
    for (let round = 0; round < 1_500; round++) {
      if (round % 2 === 0) {
        knownTimes.push(timeBatch(knownCall, 20));
        unknownTimes.push(timeBatch(unknownCall, 20));
      } else {
        unknownTimes.push(timeBatch(unknownCall, 20));
        knownTimes.push(timeBatch(knownCall, 20));
      }
    }
    const k = median(knownTimes);
    const u = median(unknownTimes);
    const gap = Math.abs(k - u);
    const summary = `known ${k.toFixed(2)} µs, unknown ${u.toFixed(2)} µs (medians of 1,500 batches of 20)`;
    // Generous, for a shared 2-core machine: within 25 % or within 1 µs.
    expect(gap <= 1 || gap / Math.min(k, u) <= 0.25, summary).toBe(true);
  });
});
