// Bad input and floods against a real `ringhook serve` process.
// `npm test` runs the short version; `npm run soak` (RINGHOOK_SOAK=full) the long one:
// 100,000 malformed requests and 100,000 requests with wrong credentials, each bounded in time.
// Checked: 0 crashes, 0 unintended 5xx, memory flat (serve's RSS sampled), floods all 401 (429 once
// an address has failed 30 times a minute), database unchanged. The flood from many addresses, with
// its bound on how long other accounts' alerts take meanwhile, is test/soak/credentials-flood.test.ts:
// it times serve on the CPU, so it runs alone (vitest.config.ts).
import https from 'node:https';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { fuzzCase, pool, prng, sendHttp, sendRaw, slowCase, type Outcome } from './load.js';
import { expectNothingLeftBehind, MB, N, SEED, type SoakServe, soakServeForFile, tally } from './soak-serve.js';

let s: SoakServe;
const figures = soakServeForFile('soak', (started) => {
  s = started;
});

describe('bad input', () => {
  it(
    `${N.fuzz} malformed requests (+${N.slow} slow bodies): 0 crashes, 0 5xx, memory flat`,
    async () => {
      const rnd = prng(SEED);
      const good = `/webhook/${s.fuzzAccount.user_id}/${s.fuzzAccount.api_key}`;
      const bad = `/webhook/${s.fuzzAccount.user_id}/${'A'.repeat(s.fuzzAccount.api_key.length)}`;
      const agent = new https.Agent({ keepAlive: true, maxSockets: 24 });
      const deadline = Date.now() + N.budget;
      const outcomes: Outcome[] = [];
      const rss: number[] = [s.serve.rssBytes()];
      const every = Math.max(1, Math.floor(N.fuzz / 20));
      const slow = Promise.all(Array.from({ length: N.slow }, () => sendRaw(s.target, slowCase(good, rnd))));
      const sent = await pool(N.fuzz, 24, deadline, async (i) => {
        const c = fuzzCase(rnd, good, bad);
        outcomes.push('http' in c ? await sendHttp(s.target, agent, c.http) : await sendRaw(s.target, c.raw));
        if (i % every === 0) rss.push(s.serve.rssBytes());
      });
      const slowOutcomes = await slow;
      agent.destroy();
      rss.push(s.serve.rssBytes());
      const all = [...outcomes, ...slowOutcomes];
      const fiveHundreds = all.filter((o) => o.status >= 500);
      const timeouts = all.filter((o) => o.status === -1);
      const byKind: Record<string, Record<string, number>> = {};
      for (const o of all) (byKind[o.kind] ??= {})[o.status] = ((byKind[o.kind] ??= {})[o.status] ?? 0) + 1;
      const warm = rss[Math.min(2, rss.length - 1)]!;
      figures.fuzz = {
        sent,
        statuses: tally(all),
        by_kind: byKind,
        rss_mb: rss.map((r) => Math.round(r / MB)),
        slow: tally(slowOutcomes),
        slow_unanswered: slowOutcomes.filter((o) => o.status === 0).map((o) => `${Math.round(o.ms)} ms: ${o.ended}`),
      };
      expect(sent).toBe(N.fuzz);
      expect(s.serve.child.exitCode).toBeNull();
      expect(fiveHundreds.map((o) => `${o.kind} ${o.status} ${o.code}`)).toEqual([]);
      expect(timeouts.map((o) => o.kind)).toEqual([]);
      // Slow bodies within the server's timeouts are served like fast ones.
      expect(slowOutcomes.every((o) => [200, 429].includes(o.status))).toBe(true);
      // Memory flat: after warm-up, RSS grows by less than 64 MB over the whole run.
      expect(Math.max(...rss.slice(2)) - warm).toBeLessThan(64 * MB);
      // The rejected payloads kept for the account are bounded (a flood cannot fill the disk).
      const db = new Database(path.join(s.dataDir, 'ringhook.db'), { readonly: true });
      const kept = (
        db.prepare('SELECT COUNT(*) AS n FROM calls WHERE user_id = ? AND accepted = 0').get(s.fuzzAccount.user_id) as {
          n: number;
        }
      ).n;
      db.close();
      expect(kept).toBeLessThanOrEqual(1000);
      // The service still answers a valid alert.
      const after = await sendHttp(s.target, new https.Agent(), {
        kind: 'after',
        method: 'POST',
        path: `/webhook/${s.probes[0]!.user_id}/${s.probes[0]!.api_key}`,
        headers: {},
        body: 'still alive',
      });
      expect([200, 429]).toContain(after.status);
    },
    N.budget + 60_000,
  );
});

describe('floods of wrong credentials', () => {
  it(
    `${N.oneAddress} wrong keys from one address: 30 answered 401, the rest 429 too_many_failures; a valid alert from it still 200`,
    async () => {
      const agent = new https.Agent({ keepAlive: true, maxSockets: 8 });
      const wrong = `/webhook/${s.floodAccount.user_id}/${'C'.repeat(s.floodAccount.api_key.length)}`;
      const outcomes: Outcome[] = [];
      const deadline = Date.now() + N.budget;
      let valid: Outcome | undefined;
      await pool(N.oneAddress, 8, deadline, async (i) => {
        outcomes.push(
          await sendHttp(
            s.target,
            agent,
            { kind: 'one-address', method: 'POST', path: wrong, headers: {}, body: 'x' },
            { localAddress: '127.0.0.2' },
          ),
        );
        if (i === Math.floor(N.oneAddress / 2)) {
          const a = s.probes[s.probes.length - 1]!;
          valid = await sendHttp(
            s.target,
            new https.Agent(),
            {
              kind: 'valid',
              method: 'POST',
              path: `/webhook/${a.user_id}/${a.api_key}`,
              headers: {},
              body: 'valid among the flood',
            },
            { localAddress: '127.0.0.2' },
          );
        }
      });
      agent.destroy();
      figures.one_address = { statuses: tally(outcomes), valid: valid?.status };
      expect(tally(outcomes)).toEqual({ 401: 30, 429: N.oneAddress - 30 });
      expect(outcomes.filter((o) => o.status === 429).every((o) => o.code === 'too_many_failures')).toBe(true);
      expect(valid?.status).toBe(200);
    },
    N.budget + 60_000,
  );
});

describe('what the runs leave behind', () => {
  it('the serve log never contains an api_key; the database is 0600 in a 0700 folder', () => {
    expectNothingLeftBehind(s);
  });
});
