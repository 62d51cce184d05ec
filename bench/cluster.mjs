// Issue #17: the webhook's saturated throughput and p99 with one node on SQLite, one node on
// PostgreSQL and two nodes on one PostgreSQL, in one run, with the load shape of figure 1 (a steady
// 200 alerts/s, then max throughput with 32 requests in flight). The three set-ups run interleaved
// (round robin, the order rotated each round) so that the noise of a shared machine hits all three
// alike. Two nodes: two load generators at once, one per node, each with half the rate and half the
// concurrency, on disjoint halves of the accounts. Writes bench/results/cluster.json.
//   npm run build && node bench/cluster.mjs
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { acrossRuns, cpuMsOf, log, ROOT, round, sleep, writeResult } from './lib/common.mjs';
import { runqueueWaitMsOf, startPostgres } from './lib/postgres.mjs';
import { freshDataDir, seedAccounts, startMinimal, startServe } from './lib/ringhook.mjs';
import { loadRun, WEBHOOK_DEFAULTS } from './webhook.mjs';

const run = promisify(execFile);

export const CLUSTER_DEFAULTS = {
  accounts: WEBHOOK_DEFAULTS.accounts,
  repeats: 3,
  steadyRate: WEBHOOK_DEFAULTS.steadyRate,
  rateDurationMs: WEBHOOK_DEFAULTS.rateDurationMs,
  maxDurationMs: WEBHOOK_DEFAULTS.maxDurationMs,
  connections: WEBHOOK_DEFAULTS.connections,
  concurrency: WEBHOOK_DEFAULTS.concurrency,
  warmupMs: WEBHOOK_DEFAULTS.warmupMs,
  settleMs: 500,
  /** The whole benchmark stops itself after this (serve children and PostgreSQL included). */
  hardStopMs: 8 * 60_000,
};

const SETUPS = ['sqlite_one_node', 'minimal_sqlite', 'postgres_one_node', 'postgres_two_nodes'];

/**
 * Which processors each process may use (BENCH_PIN=1 or --pin): PostgreSQL on the first half of the
 * machine, each node on a core of its own after it (the SQLite node and the minimal server on node
 * a's), the load generators wherever the kernel puts them. On 2 cores (this machine): PostgreSQL on
 * core 0, every node on core 1, the small version of a machine that can show the model.
 */
export function pinPlan(cores = os.cpus().length) {
  if (cores < 2) return null;
  const pgCores = Math.max(1, Math.floor(cores / 2));
  const nodeA = String(pgCores);
  const nodeB = String(Math.min(cores - 1, pgCores + 1));
  return {
    postgres: pgCores === 1 ? '0' : `0-${pgCores - 1}`,
    postgres_cores: pgCores,
    node_a: nodeA,
    node_b: nodeB,
    sqlite: nodeA,
    minimal: nodeA,
  };
}

/** Busy and total jiffies of the whole machine (all cores), from /proc/stat. */
function hostTicks() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = f[3] + (f[4] ?? 0); // idle + iowait
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total, iowait: f[4] ?? 0 };
}

/** CPU of the processes that matter, measured around one load step. */
function cpuMeter(procs) {
  const before = Object.fromEntries(Object.entries(procs).map(([k, f]) => [k, f()]));
  const host = hostTicks();
  const t0 = performance.now();
  return () => {
    const wall = performance.now() - t0;
    const h = hostTicks();
    const out = {};
    for (const [k, f] of Object.entries(procs)) out[k] = round(((f() - before[k]) / wall) * 100, 1);
    out.host_busy_pct = round(((h.busy - host.busy) / (h.total - host.total)) * 100, 1);
    out.host_iowait_pct = round(((h.iowait - host.iowait) / (h.total - host.total)) * 100, 1);
    return out;
  };
}

function healthz(serve) {
  return new Promise((resolve, reject) => {
    const req = https.get(`${serve.url}/healthz`, { ca: fs.readFileSync(serve.cert), agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    req.setTimeout(3000, () => req.destroy(new Error('timeout')));
  });
}

function non200Of(r) {
  const acc = {};
  for (const [s, n] of Object.entries(r.statuses)) if (s !== '200') acc[s] = n;
  if (r.errors) acc.errors = r.errors;
  // Sent but not answered when load.mjs stopped waiting (10 s after the last send).
  const answered = Object.values(r.statuses).reduce((a, b) => a + b, 0) + (r.errors ?? 0);
  if (r.sent > answered) acc.unanswered = r.sent - answered;
  return acc;
}

function addCounts(into, from) {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
  return into;
}

/**
 * One load step on one set-up: a single generator on one node, or one generator per node at once
 * (each with its share of the rate and concurrency, its own accounts and cursor). Combines them:
 * accepted/s summed, p50/p99 the larger of the generators' (load.mjs gives quantiles, not raw latencies).
 */
async function step(targets, { mode, rate, durationMs, o, meter }) {
  const n = targets.length;
  const measure = cpuMeter(meter);
  const parts = await Promise.all(
    targets.map((t) =>
      loadRun(t.serve.url, {
        accountsFile: t.accountsFile,
        ca: t.serve.cert,
        cursor: t.cursor,
        mode,
        rate: rate / n,
        durationMs,
        connections: Math.max(1, Math.round(o.connections / n)),
        concurrency: Math.max(1, Math.round(o.concurrency / n)),
        warmupMs: o.warmupMs,
      }),
    ),
  );
  const cpu = measure();
  const accepted = parts.reduce((s, p) => s + p.accepted, 0);
  const statuses = parts.reduce((acc, p) => addCounts(acc, p.statuses), {});
  const non200 = parts.reduce((acc, p) => addCounts(acc, non200Of(p)), {});
  return {
    mode,
    target_rate: mode === 'rate' ? rate : undefined,
    generators: n,
    sent: parts.reduce((s, p) => s + p.sent, 0),
    accepted,
    accepted_per_s: round(
      parts.reduce((s, p) => s + p.accepted_per_s, 0),
      1,
    ),
    statuses,
    non_200: non200,
    latency_ms: {
      p50: round(Math.max(...parts.map((p) => p.latency_ms.p50)), 3),
      p99: round(Math.max(...parts.map((p) => p.latency_ms.p99)), 3),
      max: round(Math.max(...parts.map((p) => p.latency_ms.max)), 3),
    },
    generator_cpu_pct: round(
      parts.reduce((s, p) => s + p.generator_cpu_pct, 0),
      1,
    ),
    cpu_pct: cpu,
    parts: parts.map((p) => ({
      sent: p.sent,
      accepted_per_s: round(p.accepted_per_s, 1),
      statuses: p.statuses,
      errors: p.errors,
      error_samples: p.error_samples,
      latency_ms: p.latency_ms,
      service_time_ms: p.service_time_ms,
      duration_ms: round(p.duration_ms, 1),
      generator_cpu_pct: round(p.generator_cpu_pct, 1),
      accounts_from: p.start,
      accounts_until: p.used_accounts_until,
    })),
  };
}

export async function runClusterBench(options = {}) {
  const o = { ...CLUSTER_DEFAULTS, ...options };
  const pin = o.pin ? pinPlan() : null;
  const started = Date.now();
  const loadAtStart = os.loadavg();
  const cleanups = [];
  const hardStop = setTimeout(async () => {
    log(`cluster: ${o.hardStopMs / 60_000} minutes reached, stopping`);
    for (const c of cleanups.reverse()) await c().catch(() => {});
    process.exit(2);
  }, o.hardStopMs);
  hardStop.unref();

  try {
    // Accounts: seeded in SQLite (10,000 Premium, sealed with this data dir's key), then copied with
    // the CLI into an empty PostgreSQL database, so both stores hold the same accounts and keys.
    const sqliteDir = freshDataDir('cluster-sqlite');
    log(`cluster: seeding ${o.accounts} Premium accounts`);
    seedAccounts(sqliteDir, o.accounts);
    const accountsFile = path.join(sqliteDir, 'accounts.txt');
    const lines = fs.readFileSync(accountsFile, 'utf8').trim().split('\n');
    const half = Math.floor(lines.length / 2);
    const halfFiles = [
      [path.join(sqliteDir, 'accounts-a.txt'), lines.slice(0, half)],
      [path.join(sqliteDir, 'accounts-b.txt'), lines.slice(half)],
    ].map(([file, part]) => (fs.writeFileSync(file, `${part.join('\n')}\n`), file));
    const secretKey = fs.readFileSync(path.join(sqliteDir, 'api-keys.secret'), 'utf8').trim();

    log('cluster: starting PostgreSQL');
    // pg_stat_statements: the server's own count of the statements each accepted alert costs.
    const pg = await startPostgres(['shared_preload_libraries=pg_stat_statements']);
    cleanups.push(() => pg.stop());
    if (pin) await pg.pin(pin.postgres);
    const pgSettings = await pg.settings([
      'fsync',
      'synchronous_commit',
      'wal_sync_method',
      'full_page_writes',
      'max_connections',
      'shared_buffers',
    ]);
    const dbUrl = await pg.createDatabase('ringhook');
    log(`cluster: PostgreSQL ${pg.version} on port ${pg.port} (${JSON.stringify(pgSettings)}); copying the accounts`);
    const copy = await run(
      process.execPath,
      [
        path.join(ROOT, 'bin', 'ringhook.js'),
        'db',
        'copy',
        '--from',
        path.join(sqliteDir, 'ringhook.db'),
        '--to',
        dbUrl,
        '--json',
      ],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          RINGHOOK_DATA_DIR: sqliteDir,
          RINGHOOK_LOG_LEVEL: 'warn',
        },
        maxBuffer: 1 << 20,
      },
    );
    const copied = JSON.parse(copy.stdout).tables;
    const copiedAccounts = copied.find((t) => t.table === 'accounts')?.rows;
    if (copiedAccounts !== o.accounts) throw new Error(`db copy: ${copiedAccounts} accounts arrived of ${o.accounts}`);

    // Three serve processes run the whole time; in "PostgreSQL, one node" node b is up but gets no
    // alerts (it only says it is alive every second).
    const sqlite = await startServe(sqliteDir, { env: { RINGHOOK_DB_SYNC: 'full' }, ...(pin && { pin: pin.sqlite }) });
    cleanups.push(() => sqlite.stop());
    const minimal = await startMinimal(sqlite.cert, sqlite.key, sqliteDir, pin?.minimal);
    cleanups.push(() => minimal.stop());
    const pgEnv = (node) => ({
      RINGHOOK_DB_SYNC: 'full',
      RINGHOOK_DATABASE_URL: dbUrl,
      RINGHOOK_SECRET_KEY: secretKey,
      RINGHOOK_NODE_ID: node,
    });
    const nodeA = await startServe(freshDataDir('cluster-pg-a'), {
      env: pgEnv('bench-a'),
      ...(pin && { pin: pin.node_a }),
    });
    cleanups.push(() => nodeA.stop());
    const nodeB = await startServe(freshDataDir('cluster-pg-b'), {
      env: pgEnv('bench-b'),
      ...(pin && { pin: pin.node_b }),
    });
    cleanups.push(() => nodeB.stop());
    await sleep(1500);
    const health = await healthz(nodeA);
    const seen = (health.cluster?.nodes ?? []).filter((n) => n.alive).map((n) => n.node);
    log(
      `cluster: serve up (SQLite pid ${sqlite.pid}, bench-a pid ${nodeA.pid}, bench-b pid ${nodeB.pid}); bench-a sees ${JSON.stringify(seen)}`,
    );
    if (!seen.includes('bench-a') || !seen.includes('bench-b'))
      throw new Error(`the two nodes do not see each other: ${JSON.stringify(health)}`);

    // Cursors: SQLite and PostgreSQL are separate stores; on PostgreSQL, the one-node runs rotate
    // over every account and the two generators of the two-node runs over one half each.
    const targets = {
      sqlite_one_node: [{ serve: sqlite, accountsFile, cursor: { value: 0 } }],
      minimal_sqlite: [{ serve: { url: minimal.url, cert: sqlite.cert }, accountsFile, cursor: { value: 0 } }],
      postgres_one_node: [{ serve: nodeA, accountsFile, cursor: { value: 0 } }],
      postgres_two_nodes: [
        { serve: nodeA, accountsFile: halfFiles[0], cursor: { value: 0 } },
        { serve: nodeB, accountsFile: halfFiles[1], cursor: { value: 0 } },
      ],
    };
    const meter = {
      serve_sqlite: () => cpuMsOf(sqlite.pid),
      minimal: () => cpuMsOf(minimal.pid),
      serve_a: () => cpuMsOf(nodeA.pid),
      serve_b: () => cpuMsOf(nodeB.pid),
      postgres: () => pg.cpuMs(),
      // Time spent runnable but waiting for a core (% of wall: 100 = one process waiting the whole time).
      wait_serve_sqlite: () => runqueueWaitMsOf(sqlite.pid),
      wait_minimal: () => runqueueWaitMsOf(minimal.pid),
      wait_serve_a: () => runqueueWaitMsOf(nodeA.pid),
      wait_serve_b: () => runqueueWaitMsOf(nodeB.pid),
      wait_postgres: () => pg.runqueueWaitMs(),
    };
    const runs = Object.fromEntries(SETUPS.map((s) => [s, { steady: [], max: [] }]));
    for (let i = 0; i < o.repeats; i++) {
      const order = SETUPS.map((_, k) => SETUPS[(i + k) % SETUPS.length]);
      log(
        `cluster: repeat ${i + 1}/${o.repeats} (${order.join(', ')}); load average ${os
          .loadavg()
          .map((x) => x.toFixed(2))
          .join(' ')}`,
      );
      for (const s of order) {
        const steady = await step(targets[s], {
          mode: 'rate',
          rate: o.steadyRate,
          durationMs: o.rateDurationMs,
          o,
          meter,
        });
        await sleep(o.settleMs);
        const before = s.startsWith('postgres') ? await pg.statements(dbUrl, 'ringhook_receive') : null;
        const max = await step(targets[s], { mode: 'max', durationMs: o.maxDurationMs, o, meter });
        if (before) {
          const after = await pg.statements(dbUrl, 'ringhook_receive');
          // Every statement of the database in the step (heartbeats and the nodes' other work included), per accepted alert.
          max.statements = {
            total: after.total - before.total,
            receive_calls: after.named - before.named,
            per_accepted: round((after.total - before.total) / max.accepted, 3),
            alerts_per_receive_call: round(max.accepted / Math.max(1, after.named - before.named), 2),
          };
        }
        await sleep(o.settleMs);
        runs[s].steady.push(steady);
        runs[s].max.push(max);
        const serveCpu =
          s === 'sqlite_one_node'
            ? max.cpu_pct.serve_sqlite
            : s === 'minimal_sqlite'
              ? max.cpu_pct.minimal
              : s === 'postgres_one_node'
                ? max.cpu_pct.serve_a
                : `${max.cpu_pct.serve_a}+${max.cpu_pct.serve_b}`;
        log(
          `  ${s}: ${o.steadyRate}/s p50 ${steady.latency_ms.p50.toFixed(2)} p99 ${steady.latency_ms.p99.toFixed(2)} ms (${JSON.stringify(steady.statuses)});` +
            ` max ${max.accepted_per_s.toFixed(0)}/s p99 ${max.latency_ms.p99.toFixed(2)} ms (${JSON.stringify(max.statuses)});` +
            ` CPU at max: serve ${serveCpu} %, postgres ${max.cpu_pct.postgres} %, generator ${max.generator_cpu_pct} %, machine ${max.cpu_pct.host_busy_pct} % busy;` +
            (max.statements
              ? ` statements per accepted alert ${max.statements.per_accepted} (${max.statements.alerts_per_receive_call} alerts a call);`
              : '') +
            ` waiting for a core: serve ${s === 'sqlite_one_node' ? max.cpu_pct.wait_serve_sqlite : s === 'minimal_sqlite' ? max.cpu_pct.wait_minimal : s === 'postgres_one_node' ? max.cpu_pct.wait_serve_a : `${max.cpu_pct.wait_serve_a}+${max.cpu_pct.wait_serve_b}`} %, postgres ${max.cpu_pct.wait_postgres} %` +
            (Object.keys(steady.non_200).length + Object.keys(max.non_200).length
              ? `; non-200: ${JSON.stringify({ steady: steady.non_200, max: max.non_200 })}`
              : ''),
        );
      }
    }

    const serveCpu = (s, r) =>
      s === 'sqlite_one_node'
        ? r.cpu_pct.serve_sqlite
        : s === 'minimal_sqlite'
          ? r.cpu_pct.minimal
          : s === 'postgres_one_node'
            ? r.cpu_pct.serve_a
            : r.cpu_pct.serve_a + r.cpu_pct.serve_b;
    const serveWait = (s, r) =>
      s === 'sqlite_one_node'
        ? r.cpu_pct.wait_serve_sqlite
        : s === 'minimal_sqlite'
          ? r.cpu_pct.wait_minimal
          : s === 'postgres_one_node'
            ? r.cpu_pct.wait_serve_a
            : r.cpu_pct.wait_serve_a + r.cpu_pct.wait_serve_b;
    const figures = {};
    for (const s of SETUPS) {
      const fig = (k, f) => acrossRuns(runs[s][k].map(f));
      figures[s] = {
        nodes: targets[s].length,
        max_accepted_per_s: fig('max', (r) => r.accepted_per_s),
        max_latency_p50_ms: fig('max', (r) => r.latency_ms.p50),
        max_latency_p99_ms: fig('max', (r) => r.latency_ms.p99),
        steady_rate_per_s: o.steadyRate,
        steady_accepted_per_s: fig('steady', (r) => r.accepted_per_s),
        steady_latency_p50_ms: fig('steady', (r) => r.latency_ms.p50),
        steady_latency_p99_ms: fig('steady', (r) => r.latency_ms.p99),
        serve_cpu_pct_max: fig('max', (r) => serveCpu(s, r)),
        serve_cpu_pct_steady: fig('steady', (r) => serveCpu(s, r)),
        serve_runqueue_wait_pct_max: fig('max', (r) => serveWait(s, r)),
        postgres_runqueue_wait_pct_max: fig('max', (r) => r.cpu_pct.wait_postgres),
        serve_cpu_ms_per_accepted_max: fig('max', (r) => (serveCpu(s, r) * 10) / r.accepted_per_s),
        postgres_cpu_pct_max: fig('max', (r) => r.cpu_pct.postgres),
        postgres_cpu_ms_per_accepted_max: fig('max', (r) => (r.cpu_pct.postgres * 10) / r.accepted_per_s),
        ...(s.startsWith('postgres') && {
          statements_per_accepted_max: fig('max', (r) => r.statements.per_accepted),
          alerts_per_receive_call_max: fig('max', (r) => r.statements.alerts_per_receive_call),
        }),
        postgres_cpu_pct_steady: fig('steady', (r) => r.cpu_pct.postgres),
        generator_cpu_pct_max: fig('max', (r) => r.generator_cpu_pct),
        machine_busy_pct_max: fig('max', (r) => r.cpu_pct.host_busy_pct),
        machine_iowait_pct_max: fig('max', (r) => r.cpu_pct.host_iowait_pct),
        non_200: {
          steady: runs[s].steady.reduce((acc, r) => addCounts(acc, r.non_200), {}),
          max: runs[s].max.reduce((acc, r) => addCounts(acc, r.non_200), {}),
        },
      };
    }
    // Ratios per round (the three set-ups of one round ran within seconds of each other), then the median.
    const paired = (a, b, k, f) => acrossRuns(runs[a][k].map((r, i) => f(r) / f(runs[b][k][i])));
    const ratios = {
      sqlite_vs_minimal_max_accepted: paired('sqlite_one_node', 'minimal_sqlite', 'max', (r) => r.accepted_per_s),
      postgres_one_node_vs_sqlite_max_accepted: paired(
        'postgres_one_node',
        'sqlite_one_node',
        'max',
        (r) => r.accepted_per_s,
      ),
      postgres_two_nodes_vs_one_node_max_accepted: paired(
        'postgres_two_nodes',
        'postgres_one_node',
        'max',
        (r) => r.accepted_per_s,
      ),
      postgres_one_node_vs_sqlite_steady_p99: paired(
        'postgres_one_node',
        'sqlite_one_node',
        'steady',
        (r) => r.latency_ms.p99,
      ),
      postgres_two_nodes_vs_one_node_steady_p99: paired(
        'postgres_two_nodes',
        'postgres_one_node',
        'steady',
        (r) => r.latency_ms.p99,
      ),
    };
    const seconds = Math.round((Date.now() - started) / 1000);
    return {
      description:
        `POST /webhook/{user_id}/{api_key}, JSON alert, HTTPS keep-alive, ${o.accounts} Premium accounts rotated, telephony off, the load shape of figure 1: ` +
        `a steady ${o.steadyRate}/s for ${o.rateDurationMs / 1000} s (open loop, latency from the scheduled send time) and max throughput with ${o.concurrency} requests in flight for ${o.maxDurationMs / 1000} s, ` +
        `on three set-ups run interleaved (${o.repeats} rounds, the order rotated each round): one node on SQLite (RINGHOOK_DB_SYNC=full), one node on PostgreSQL ${pg.version} ` +
        `(default settings: fsync and synchronous_commit on), two nodes on that PostgreSQL (two load generators at once, one per node, each with half the rate, half the connections and half the concurrency, ` +
        `on disjoint halves of the accounts; accepted/s summed, p50/p99 the larger of the two generators'). Everything on one 2-core machine (both nodes, PostgreSQL and the generators share the cores). ` +
        `Only 200 counts as accepted. CPU % is CPU time over the wall time of the load step (generator start, ${o.warmupMs} ms warm-up and the run), 100 % = one core; postgres = the postmaster and all its processes. cpu_pct.wait_* (and *_runqueue_wait_pct_*) is the time the process (serve's main thread; PostgreSQL's live processes summed) was runnable but waiting for a core (/proc/PID/schedstat), in % of the wall time. non_200.unanswered: sent but not answered when the generator stopped waiting (10 s after its last send).`,
      config: o,
      pinned: pin,
      cores: os.cpus().length,
      postgres: { version: pg.version, settings: pgSettings },
      load_average_at_start: loadAtStart,
      load_average_at_end: os.loadavg(),
      seconds,
      figures,
      ratios,
      runs,
    };
  } finally {
    for (const c of cleanups.reverse()) await c().catch((error) => log(`cluster: cleanup failed: ${error.message}`));
    clearTimeout(hardStop);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runClusterBench({ pin: process.argv.includes('--pin') || process.env.BENCH_PIN === '1' });
  const file = writeResult('cluster', r);
  const x = r.figures;
  const f = (v, d = 1) => v.median.toFixed(d);
  log(
    `cluster: max accepted/s SQLite 1 node ${f(x.sqlite_one_node.max_accepted_per_s, 0)}, PostgreSQL 1 node ${f(x.postgres_one_node.max_accepted_per_s, 0)} ` +
      `(×${r.ratios.postgres_one_node_vs_sqlite_max_accepted.median.toFixed(2)}), 2 nodes ${f(x.postgres_two_nodes.max_accepted_per_s, 0)} ` +
      `(×${r.ratios.postgres_two_nodes_vs_one_node_max_accepted.median.toFixed(2)} vs 1 node); p50/p99 at ${x.sqlite_one_node.steady_rate_per_s}/s ` +
      `${f(x.sqlite_one_node.steady_latency_p50_ms)}/${f(x.sqlite_one_node.steady_latency_p99_ms)} · ${f(x.postgres_one_node.steady_latency_p50_ms)}/${f(x.postgres_one_node.steady_latency_p99_ms)} · ` +
      `${f(x.postgres_two_nodes.steady_latency_p50_ms)}/${f(x.postgres_two_nodes.steady_latency_p99_ms)} ms; p99 at max ${f(x.sqlite_one_node.max_latency_p99_ms)} · ` +
      `${f(x.postgres_one_node.max_latency_p99_ms)} · ${f(x.postgres_two_nodes.max_latency_p99_ms)} ms; ${r.seconds} s; wrote ${file}`,
  );
}
