// Benchmark 6: does cost grow with the history? Webhook latency (serve in a child process, HTTPS,
// RINGHOOK_DB_SYNC=full) and the history queries (CallStore.list for one account, and the dashboard's
// CallStore.page, plain and filtered by status) with 0, 100 thousand and 1 million history rows
// across 10 thousand accounts.
import fs from 'node:fs';
import path from 'node:path';
import { acrossRuns, log, round, summarize, writeResult } from './lib/common.mjs';
import { freshDataDir, seedAccounts, seedHistory, startServe } from './lib/ringhook.mjs';
import { loadRun } from './webhook.mjs';

const dist = (p) => new URL(`../dist/${p}`, import.meta.url).href;
const { openDatabase } = await import(dist('store/sqlite/connect.js'));
const { CallStore } = await import(dist('store/sqlite/calls.js'));

export const GROWTH_DEFAULTS = {
  sizes: [0, 100_000, 1_000_000],
  accounts: 10_000,
  repeats: 3,
  rate: 200,
  durationMs: 3000,
  queries: 500,
};

function timeQueries(dataDir, accounts, queries) {
  const db = openDatabase(path.join(dataDir, 'ringhook.db'), { sync: 'full' });
  const calls = new CallStore(db);
  // The dashboard's history page reads CallStore.page.
  const history = calls;
  const pick = (i) => accounts[(i * 7919) % accounts.length][0];
  const measure = (fn) => {
    for (let i = 0; i < 50; i++) fn(i); // warm the statement and the page cache
    const t = [];
    for (let i = 0; i < queries; i++) {
      const s = performance.now();
      fn(i + 50);
      t.push(performance.now() - s);
    }
    return summarize(t);
  };
  const result = {
    call_store_list_50: measure((i) => calls.list({ userId: pick(i), limit: 50 })),
    ...(history && {
      history_page_50: measure((i) => history.page(pick(i), { limit: 50 })),
      history_page_50_filtered: measure((i) => history.page(pick(i), { limit: 50, statuses: ['no_answer', 'busy'] })),
      history_second_page: measure((i) => {
        const first = history.page(pick(i), { limit: 50 });
        history.page(pick(i), { limit: 50, before: first.next ?? undefined });
      }),
    }),
  };
  db.close();
  return result;
}

export async function runGrowthBench(options = {}) {
  const o = { ...GROWTH_DEFAULTS, ...options };
  const bySize = {};
  for (const size of o.sizes) {
    const dataDir = freshDataDir(`growth-${size}`);
    const t0 = performance.now();
    const accounts = seedAccounts(dataDir, o.accounts);
    seedHistory(dataDir, accounts, size);
    const seedSeconds = (performance.now() - t0) / 1000;
    const dbMb = fs.statSync(path.join(dataDir, 'ringhook.db')).size / 2 ** 20;
    log(`growth: ${size} rows seeded in ${seedSeconds.toFixed(1)} s (${dbMb.toFixed(0)} MB)`);
    const queries = timeQueries(dataDir, accounts, o.queries);
    const serve = await startServe(dataDir, { env: { RINGHOOK_DB_SYNC: 'full' } });
    const cursor = { value: 0 };
    const runs = [];
    try {
      for (let i = 0; i < o.repeats; i++) {
        runs.push(
          await loadRun(serve.url, {
            accountsFile: path.join(dataDir, 'accounts.txt'),
            ca: serve.cert,
            cursor,
            connections: 16,
            concurrency: 16,
            warmupMs: 300,
            mode: 'rate',
            rate: o.rate,
            durationMs: o.durationMs,
            pid: serve.pid,
          }),
        );
      }
    } finally {
      await serve.stop();
    }
    bySize[size] = {
      seed_seconds: round(seedSeconds, 1),
      db_mb: round(dbMb, 1),
      webhook_p50_ms: acrossRuns(runs.map((r) => r.latency_ms.p50)),
      webhook_p99_ms: acrossRuns(runs.map((r) => r.latency_ms.p99)),
      statuses: runs.map((r) => r.statuses),
      queries,
    };
    log(
      `growth: ${size} rows: webhook p50 ${bySize[size].webhook_p50_ms.median} ms p99 ${bySize[size].webhook_p99_ms.median} ms; list p50 ${queries.call_store_list_50.p50} ms p99 ${queries.call_store_list_50.p99} ms`,
    );
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const base = bySize[o.sizes[0]];
  const largest = bySize[o.sizes.at(-1)];
  const ratio = (a, b) => round(a / b, 3);
  const pageP99 = largest.queries.history_page_50?.p99 ?? largest.queries.call_store_list_50.p99;
  return {
    description: `history rows spread over ${o.accounts} accounts and 90 days; webhook at ${o.rate}/s for ${o.durationMs / 1000} s × ${o.repeats} (HTTPS, DB_SYNC=full, latency from the scheduled send); queries: ${o.queries} accounts each, 50 rows a page, in-process on the same database file`,
    config: o,
    by_size: bySize,
    figures: {
      webhook_p50_ratio_largest_vs_empty: ratio(largest.webhook_p50_ms.median, base.webhook_p50_ms.median),
      webhook_p99_ratio_largest_vs_empty: ratio(largest.webhook_p99_ms.median, base.webhook_p99_ms.median),
      history_page_p99_ms_largest: pageP99,
    },
    targets: {
      webhook_p50_flat_within_10pct: Object.values(bySize).every(
        (x) => x.webhook_p50_ms.median <= base.webhook_p50_ms.median * 1.1,
      ),
      history_page_under_50ms: pageP99 < 50,
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = process.argv[2] ? process.argv[2].split(',').map(Number) : undefined;
  const result = await runGrowthBench(sizes ? { sizes } : {});
  log('wrote', writeResult('growth', result));
}
