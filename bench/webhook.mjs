import path from 'node:path';
import { acrossRuns, cpuMsOf, log, round, rssOf, runNodeJson, sleep, writeResult } from './lib/common.mjs';
import { freshDataDir, seedAccounts, startCeiling, startServe } from './lib/ringhook.mjs';

const LOAD = new URL('./lib/load.mjs', import.meta.url).pathname;

export const WEBHOOK_DEFAULTS = {
  accounts: 10_000,
  repeats: 3,
  /** The steady rate of the latency target (p99 < 10 ms), then the heavier fixed rate. */
  steadyRate: 200,
  rate: 1000,
  rateDurationMs: 5000,
  maxDurationMs: 4000,
  connections: 32,
  concurrency: 32,
  warmupMs: 500,
};

/** Samples a process's RSS every 100 ms until stopped. */
export function memorySampler(pid) {
  const samples = [];
  const timer = setInterval(() => samples.push(rssOf(pid).rss_mb), 100);
  return {
    stop() {
      clearInterval(timer);
      return {
        samples: samples.length,
        max_mb: round(Math.max(...samples)),
        median_mb: round(samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? NaN),
      };
    },
  };
}

/** One load run against `url`; `cursor` rotates the accounts across runs so that no account meets its limit. */
export async function loadRun(
  target,
  { accountsFile, ca, cursor, mode, rate, durationMs, connections, concurrency, warmupMs, pid, body },
) {
  const cpu0 = pid ? cpuMsOf(pid) : NaN;
  const t0 = performance.now();
  const r = await runNodeJson(LOAD, [
    JSON.stringify({
      url: target,
      ca,
      accounts: accountsFile,
      start: cursor.value,
      mode,
      rate,
      durationMs,
      connections,
      concurrency,
      warmup: warmupMs,
      maxRequests: 50_000,
      body,
    }),
  ]);
  const wall = performance.now() - t0;
  if (pid) r.server_cpu_pct = round(((cpuMsOf(pid) - cpu0) / wall) * 100, 1);
  cursor.value = r.used_accounts_until;
  return r;
}

export async function runWebhookBench(options = {}) {
  const o = { ...WEBHOOK_DEFAULTS, ...options };
  const dataDir = freshDataDir('webhook');
  log(`webhook: seeding ${o.accounts} Premium accounts`);
  seedAccounts(dataDir, o.accounts);
  const accountsFile = path.join(dataDir, 'accounts.txt');
  // RINGHOOK_ROOT runs another build's serve (e.g. a copy of the previous commit's) against the same load.
  const serve = await startServe(dataDir, {
    env: { RINGHOOK_DB_SYNC: 'full' },
    nodeArgs: o.nodeArgs ?? [],
    ...(process.env.RINGHOOK_ROOT && { root: process.env.RINGHOOK_ROOT }),
  });
  const ceiling = await startCeiling(serve.cert, serve.key);
  const cursor = { value: 0 };
  const common = {
    accountsFile,
    ca: serve.cert,
    cursor,
    connections: o.connections,
    concurrency: o.concurrency,
    warmupMs: o.warmupMs,
  };
  const runs = { ringhook_steady: [], ringhook_rate: [], ringhook_max: [], ceiling_rate: [], ceiling_max: [] };
  let idle;
  let underLoad;
  try {
    await sleep(1500);
    idle = rssOf(serve.pid);
    log(`webhook: serve idle RSS ${idle.rss_mb.toFixed(1)} MB`);
    const mem = memorySampler(serve.pid);
    for (let i = 0; i < o.repeats; i++) {
      log(`webhook: repeat ${i + 1}/${o.repeats}`);
      runs.ringhook_steady.push(
        await loadRun(serve.url, {
          ...common,
          mode: 'rate',
          rate: o.steadyRate,
          durationMs: o.rateDurationMs,
          pid: serve.pid,
        }),
      );
      runs.ringhook_rate.push(
        await loadRun(serve.url, {
          ...common,
          mode: 'rate',
          rate: o.rate,
          durationMs: o.rateDurationMs,
          pid: serve.pid,
        }),
      );
      runs.ceiling_rate.push(
        await loadRun(ceiling.url, {
          ...common,
          mode: 'rate',
          rate: o.rate,
          durationMs: o.rateDurationMs,
          pid: ceiling.pid,
        }),
      );
      runs.ringhook_max.push(
        await loadRun(serve.url, { ...common, mode: 'max', durationMs: o.maxDurationMs, pid: serve.pid }),
      );
      runs.ceiling_max.push(
        await loadRun(ceiling.url, { ...common, mode: 'max', durationMs: o.maxDurationMs, pid: ceiling.pid }),
      );
      const last = (k) => runs[k].at(-1);
      log(
        `  rate ${o.steadyRate}/s: ringhook p50 ${last('ringhook_steady').latency_ms.p50.toFixed(2)} p99 ${last('ringhook_steady').latency_ms.p99.toFixed(2)} ms;` +
          ` rate ${o.rate}/s: ringhook p50 ${last('ringhook_rate').latency_ms.p50.toFixed(2)} p99 ${last('ringhook_rate').latency_ms.p99.toFixed(2)} ms (${JSON.stringify(last('ringhook_rate').statuses)}),` +
          ` ceiling p99 ${last('ceiling_rate').latency_ms.p99.toFixed(2)} ms; max: ringhook ${last('ringhook_max').accepted_per_s.toFixed(0)}/s (${JSON.stringify(last('ringhook_max').statuses)}), ceiling ${last('ceiling_max').accepted_per_s.toFixed(0)}/s`,
      );
    }
    underLoad = { ...mem.stop(), hwm_mb: round(rssOf(serve.pid).hwm_mb) };
  } finally {
    await ceiling.stop();
    await serve.stop();
  }
  const fig = (k, f) => acrossRuns(runs[k].map(f));
  const non200 = (k) =>
    runs[k].reduce((acc, r) => {
      for (const [s, n] of Object.entries(r.statuses)) if (s !== '200') acc[s] = (acc[s] ?? 0) + n;
      if (r.errors) acc.errors = (acc.errors ?? 0) + r.errors;
      return acc;
    }, {});
  const ringhookMax = fig('ringhook_max', (r) => r.accepted_per_s);
  const ceilingMax = fig('ceiling_max', (r) => r.accepted_per_s);
  const ratios = runs.ringhook_max.map((r, i) => r.accepted_per_s / runs.ceiling_max[i].accepted_per_s);
  const p99 = fig('ringhook_rate', (r) => r.latency_ms.p99);
  const steadyP99 = fig('ringhook_steady', (r) => r.latency_ms.p99);
  const webhook = {
    description: `POST /webhook/{user_id}/{api_key}, JSON alert, HTTPS keep-alive (${o.connections} connections), RINGHOOK_DB_SYNC=full, ${o.accounts} Premium accounts rotated; fixed rates ${o.steadyRate}/s and ${o.rate}/s for ${o.rateDurationMs / 1000} s (open loop, latency from the scheduled send time) and max throughput with ${o.concurrency} requests in flight for ${o.maxDurationMs / 1000} s; ${o.repeats} repeats; only 200 counts as accepted`,
    config: o,
    figures: {
      steady_rate_per_s: o.steadyRate,
      steady_latency_p50_ms: fig('ringhook_steady', (r) => r.latency_ms.p50),
      steady_latency_p99_ms: steadyP99,
      rate_latency_p50_ms: fig('ringhook_rate', (r) => r.latency_ms.p50),
      rate_latency_p99_ms: p99,
      rate_accepted_per_s: fig('ringhook_rate', (r) => r.accepted_per_s),
      max_accepted_per_s: ringhookMax,
      max_latency_p50_ms: fig('ringhook_max', (r) => r.latency_ms.p50),
      max_latency_p99_ms: fig('ringhook_max', (r) => r.latency_ms.p99),
      ceiling_rate_latency_p99_ms: fig('ceiling_rate', (r) => r.latency_ms.p99),
      ceiling_max_per_s: ceilingMax,
      throughput_ratio_vs_ceiling: acrossRuns(ratios),
      server_cpu_pct_at_rate: fig('ringhook_rate', (r) => r.server_cpu_pct),
      generator_cpu_pct_max: fig('ringhook_max', (r) => r.generator_cpu_pct),
      non_200: {
        ringhook_steady: non200('ringhook_steady'),
        ringhook_rate: non200('ringhook_rate'),
        ringhook_max: non200('ringhook_max'),
      },
    },
    targets: {
      p99_under_10ms_at_200_per_s: steadyP99.median < 10,
      p99_under_10ms_at_1000_per_s: p99.median < 10,
      throughput_at_least_half_of_ceiling: acrossRuns(ratios).median >= 0.5,
    },
    runs,
  };
  const memory = {
    description:
      'resident memory (VmRSS) of `ringhook serve` (telephony off, 10,000 accounts): idle 1.5 s after start, and sampled every 100 ms under the load of the webhook benchmark',
    figures: { idle_rss_mb: round(idle.rss_mb), under_load: underLoad },
    targets: { under_150mb: underLoad.hwm_mb < 150 },
  };
  return { webhook, memory };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { webhook, memory } = await runWebhookBench();
  log('wrote', writeResult('webhook', webhook), writeResult('memory', memory));
}
