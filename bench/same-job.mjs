// Issue #58: ringhook on SQLite (default configuration, DB_SYNC=full) against the same-job minimal
// server (bench/lib/minimal-server.mjs: node:https, JSON parse, one fsynced better-sqlite3 insert per
// alert), and optionally against another build of ringhook (BENCH_BEFORE_ROOT, e.g. the previous
// commit's tree built beside), in interleaved rounds (the order rotated each round) so that a shared
// machine's noise hits every set-up alike. Three loads a round:
//   - accepted: max throughput over 10,000 accounts (every alert accepted), 32 in flight;
//   - steady: 200 alerts/s open loop over the same accounts (p99 from the scheduled send time);
//   - steady 1,000: 1,000 alerts/s the same way;
//   - refusals: max throughput over 100 accounts with 20 in flight, so that after each account's first
//     10 alerts of the minute nearly every answer is a 429 (the same-job server inserts every one).
// and each server's peak resident memory (VmHWM) over its round. Writes bench/results/same-job.json
// with every round, the ratios to the minimal server in the same round, their medians and spread, and
// the load average of each round.   npm run build && node bench/same-job.mjs [rounds]
import fs from 'node:fs';
import Database from 'better-sqlite3';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { log, round, rssOf, writeResult } from './lib/common.mjs';
import { freshDataDir, seedAccounts, startMinimal, startServe } from './lib/ringhook.mjs';
import { loadRun, WEBHOOK_DEFAULTS } from './webhook.mjs';

/** `rounds` interleaved rounds; `beforeRoot`: another build's tree to run beside (optional). */
export async function runSameJobBench({ rounds = 3, beforeRoot = process.env.BENCH_BEFORE_ROOT } = {}) {
  const dataDir = freshDataDir('same-job');
  seedAccounts(dataDir, WEBHOOK_DEFAULTS.accounts);
  const accountsFile = path.join(dataDir, 'accounts.txt');
  // The refusals' accounts: the last 100 (the other loads take accounts from the first on).
  const fewLines = fs.readFileSync(accountsFile, 'utf8').trim().split('\n').slice(-100);
  const fewFile = path.join(dataDir, 'accounts-100.txt');
  // The other loads' accounts: all but those.
  const manyFile = path.join(dataDir, 'accounts-many.txt');
  fs.writeFileSync(fewFile, `${fewLines.join('\n')}\n`);
  fs.writeFileSync(manyFile, `${fs.readFileSync(accountsFile, 'utf8').trim().split('\n').slice(0, -100).join('\n')}\n`);
  const certFile = path.join(dataDir, 'tls', 'self-signed-cert.pem');
  const keyFile = path.join(dataDir, 'tls', 'self-signed-key.pem');

  // Each set-up on its own copy of the data dir (database, key, certificate), so that one's history
  // does not slow another's.
  // The refusals' accounts start each copy with their minute's 10 alerts just accepted, so that every
  // alert of that load is over the limit (the same-job server inserts them all the same), and with the
  // 1,000 refusals a flood past its first minute leaves kept (a refusal's cost once an account keeps
  // them is what a long flood pays: bench/NOTES.md, #58's fourth pass).
  function copyDir(name) {
    const dir = freshDataDir(`same-job-${name}`);
    fs.cpSync(dataDir, dir, { recursive: true, filter: (src) => !/serve\.(lock|log)$|-(wal|shm)$/.test(src) });
    const db = new Database(path.join(dir, 'ringhook.db'));
    const insert =
      db.prepare(`INSERT INTO calls (call_id, user_id, kind, accepted, status, message, message_truncated, received_at, updated_at)
                               VALUES (?, ?, 'alert', 1, 'completed', 'earlier', 0, ?, ?)`);
    const refused =
      db.prepare(`INSERT INTO calls (call_id, user_id, kind, accepted, status, message, message_truncated, error, received_at, updated_at)
                               VALUES (?, ?, 'alert', 0, 'rate_limited', 'earlier', 0, 'rate limited', ?, ?)`);
    const now = Date.now();
    db.transaction(() => {
      for (const line of fewLines) {
        const userId = line.split(' ')[0];
        for (let i = 0; i < 1000; i++)
          refused.run(`call_seed_${name}_${userId}_r${i}`, userId, now - 30_000, now - 30_000);
        for (let i = 0; i < 10; i++) insert.run(`call_seed_${name}_${userId}_${i}`, userId, now, now);
      }
    })();
    db.close();
    return dir;
  }

  // The first serve writes the certificate every set-up then uses (and migrates the database).
  {
    const s = await startServe(dataDir, { env: { RINGHOOK_DB_SYNC: 'full' } });
    await s.stop();
  }

  const setups = {
    ringhook: async () => startServe(copyDir('ringhook'), { env: { RINGHOOK_DB_SYNC: 'full' } }),
    ...(beforeRoot && {
      // As the build before was started: without the launchers' Node flags of #58.
      before: async () =>
        startServe(copyDir('before'), { env: { RINGHOOK_DB_SYNC: 'full' }, root: beforeRoot, launcherArgs: [] }),
    }),
    minimal: async () => ({ ...(await startMinimal(certFile, keyFile, copyDir('minimal'))), cert: certFile }),
  };

  async function loads(server, cursor) {
    const common = { ca: server.cert, warmupMs: 500, pid: server.pid };
    const accepted = await loadRun(server.url, {
      ...common,
      accountsFile: manyFile,
      cursor,
      mode: 'max',
      durationMs: 3000,
      connections: 32,
      concurrency: 32,
    });
    const steady = await loadRun(server.url, {
      ...common,
      accountsFile: manyFile,
      cursor,
      mode: 'rate',
      rate: 200,
      durationMs: 4000,
      connections: 32,
      concurrency: 32,
    });
    const steady1000 = await loadRun(server.url, {
      ...common,
      accountsFile: manyFile,
      cursor,
      mode: 'rate',
      rate: 1000,
      durationMs: 4000,
      connections: 32,
      concurrency: 32,
    });
    const refusals = await loadRun(server.url, {
      ...common,
      accountsFile: fewFile,
      cursor: { value: 0 },
      mode: 'max',
      durationMs: 3000,
      connections: 20,
      concurrency: 20,
    });
    const pick = (r) => ({
      answered_per_s: round(Object.values(r.statuses).reduce((a, b) => a + b, 0) / (r.duration_ms / 1000), 1),
      accepted_per_s: round(r.accepted_per_s, 1),
      statuses: r.statuses,
      p50_ms: round(r.latency_ms.p50, 2),
      p99_ms: round(r.latency_ms.p99, 2),
      server_cpu_pct: r.server_cpu_pct,
    });
    return {
      accepted: pick(accepted),
      steady: pick(steady),
      steady_1000: pick(steady1000),
      refusals: pick(refusals),
      peak_rss_mb: round(rssOf(server.pid).hwm_mb, 1),
    };
  }

  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };

  const results = [];
  const names = Object.keys(setups);
  const cursors = Object.fromEntries(names.map((n) => [n, { value: 0 }]));
  const started = Date.now();
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    const row = { round: r + 1, load_average: os.loadavg().map((x) => round(x, 1)) };
    for (const name of order) {
      const server = await setups[name]();
      try {
        row[name] = await loads(server, cursors[name]);
        // The machine's load as this set-up's runs ended (the other work on a shared machine moves it within a round).
        row[name].load_after = round(os.loadavg()[0], 1);
      } finally {
        await server.stop();
      }
      log(`round ${r + 1} ${name}: ${JSON.stringify(row[name])}`);
    }
    results.push(row);
  }

  const ratio = (name, load, field) =>
    results.map((row) => round(row[name][load][field] / row.minimal[load][field], 2));
  const spread = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs), rounds: xs });
  const summary = {};
  for (const name of names) {
    const own = (load, field) => results.map((row) => row[name][load][field]);
    summary[name] = {
      accepted_per_s: spread(own('accepted', 'accepted_per_s')),
      steady_p99_ms: spread(own('steady', 'p99_ms')),
      steady_1000_p99_ms: spread(own('steady_1000', 'p99_ms')),
      refusals_answered_per_s: spread(own('refusals', 'answered_per_s')),
      peak_rss_mb: spread(results.map((row) => row[name].peak_rss_mb)),
      ...(name !== 'minimal' && {
        accepted_per_s_vs_minimal: spread(ratio(name, 'accepted', 'accepted_per_s')),
        steady_p99_vs_minimal: spread(ratio(name, 'steady', 'p99_ms')),
        steady_1000_p99_vs_minimal: spread(ratio(name, 'steady_1000', 'p99_ms')),
        refusals_answered_per_s_vs_minimal: spread(ratio(name, 'refusals', 'answered_per_s')),
        peak_rss_vs_minimal: spread(results.map((row) => round(row[name].peak_rss_mb / row.minimal.peak_rss_mb, 2))),
      }),
    };
  }
  const out = {
    when: new Date(started).toISOString(),
    minutes: round((Date.now() - started) / 60_000, 1),
    load_average_by_round: results.map((row) => row.load_average),
    rounds: results,
    summary,
    load_average_at_end: os.loadavg().map((x) => round(x, 1)),
    cores: os.cpus().length,
  };
  writeResult('same-job', out);
  writePerformanceBlock(out);
  console.log(JSON.stringify(summary, null, 2));
  return out;
}

const f = (x, d = 1) => (x === undefined || x === null || Number.isNaN(x) ? '–' : Number(x).toFixed(d));
const spreadText = (s, d = 2, unit = '') => `${f(s.median, d)}${unit} (${f(s.min, d)}–${f(s.max, d)})`;

/**
 * The #58 figures as table rows (figure, measured, target, verdict): each a ratio to the minimal server
 * of the same round, median (min–max over rounds), with the rounds' load average. Used by SUMMARY.md
 * and docs/performance.md.
 */
export function sameJobRows(result) {
  const { summary } = result;
  const me = summary.ringhook;
  const min = summary.minimal;
  const before = summary.before;
  const seen = result.rounds.flatMap((row) => [
    row.load_average[0],
    ...Object.values(row).flatMap((x) => (x?.load_after === undefined ? [] : [x.load_after])),
  ]);
  const loads = `${f(Math.min(...seen), 1)}–${f(Math.max(...seen), 1)}`;
  const n = result.rounds.length;
  const mark = (ok) => (ok ? '✅ met' : '❌ missed');
  const vsBefore = (key, d = 2) => (before ? `; the build before ×${spreadText(before[key], d)}` : '');
  return [
    [
      `Saturated, every alert accepted (32 in flight, 10,000 accounts): ringhook ÷ the same-job server, same round (${n} interleaved rounds, load ${loads})`,
      `×${spreadText(me.accepted_per_s_vs_minimal)}: ${f(me.accepted_per_s.median, 0)}/s against ${f(min.accepted_per_s.median, 0)}/s${vsBefore('accepted_per_s_vs_minimal')}`,
      '≥ 1.5×',
      mark(me.accepted_per_s_vs_minimal.median >= 1.5),
    ],
    [
      `Steady 200/s, p99: ringhook ÷ the same-job server, same round (load ${loads})`,
      `×${spreadText(me.steady_p99_vs_minimal)}: ${spreadText(me.steady_p99_ms, 1, ' ms')} against ${spreadText(min.steady_p99_ms, 1, ' ms')}${vsBefore('steady_p99_vs_minimal')}`,
      '≤ 1× (and < 5 ms quiet)',
      mark(me.steady_p99_vs_minimal.median <= 1 && me.steady_p99_ms.median < 5),
    ],
    [
      `Steady 1,000/s, p99 (load ${loads})`,
      `${spreadText(me.steady_1000_p99_ms, 1, ' ms')}; ×${spreadText(me.steady_1000_p99_vs_minimal)} the same-job server's ${spreadText(min.steady_1000_p99_ms, 1, ' ms')}${vsBefore('steady_1000_p99_vs_minimal')}`,
      '< 10 ms',
      mark(me.steady_1000_p99_ms.median < 10),
    ],
    [
      `Saturated refusals (100 accounts over their minute, each keeping the 1,000 refusals a long flood leaves: every ringhook answer a 429, the same-job server inserts each), answers/s ÷ the same-job server (load ${loads})`,
      `×${spreadText(me.refusals_answered_per_s_vs_minimal)}: ${f(me.refusals_answered_per_s.median, 0)}/s against ${f(min.refusals_answered_per_s.median, 0)}/s${vsBefore('refusals_answered_per_s_vs_minimal')}`,
      'cheaper than an accept',
      mark(me.refusals_answered_per_s.median > me.accepted_per_s.median),
    ],
    [
      `serve's peak memory (VmHWM over the round's four loads) (load ${loads})`,
      `${spreadText(me.peak_rss_mb, 0, ' MB')}; the same-job server ${spreadText(min.peak_rss_mb, 0, ' MB')}${before ? `; the build before ${spreadText(before.peak_rss_mb, 0, ' MB')}` : ''}`,
      '< 150 MB',
      mark(me.peak_rss_mb.median < 150),
    ],
  ];
}

const BLOCK_START = '<!-- same-job figures: written by `npm run bench` (alone: `npm run bench same-job`) -->';
const BLOCK_END = '<!-- end of the same-job figures -->';

/** Replaces the same-job block of docs/performance.md with this run's rows. */
export function writePerformanceBlock(result) {
  const file = new URL('../docs/performance.md', import.meta.url).pathname;
  const text = fs.readFileSync(file, 'utf8');
  const start = text.indexOf(BLOCK_START);
  const end = text.indexOf(BLOCK_END);
  if (start < 0 || end < start) {
    log(`same-job: docs/performance.md has no block between "${BLOCK_START}" and "${BLOCK_END}": not written`);
    return;
  }
  const table = [
    BLOCK_START,
    '',
    `Measured ${result.when} (${result.minutes} min, ${result.cores} cores; load average at the start of each round: ${result.load_average_by_round.map((l) => l.join(' ')).join(' · ')}).`,
    '',
    '| figure (#58) | measured: median (min–max over rounds) | target | |',
    '|---|---|---|---|',
    ...sameJobRows(result).map((r) => `| ${r.join(' | ')} |`),
    '',
  ].join('\n');
  fs.writeFileSync(file, text.slice(0, start) + table + text.slice(end));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await runSameJobBench({ rounds: Number(process.argv[2] ?? 3) });
