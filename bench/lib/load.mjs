// Load generator, run as its own process: POSTs alerts over HTTPS with keep-alive, rotating through
// accounts, either at a fixed rate (open loop: latency counted from the scheduled send time, so a
// slow server cannot hide its queue) or as fast as a fixed number of in-flight requests allow
// (closed loop, for throughput). Bounded in count and in time. Prints one JSON object on stdout.
//   node load.mjs '{"url":"https://127.0.0.1:8443","ca":"cert.pem","accounts":"accounts.txt",...}'
import fs from 'node:fs';
import https from 'node:https';

const opts = JSON.parse(process.argv[2]);
const {
  url,
  ca,
  accounts: accountsFile,
  start = 0,
  mode = 'rate',
  rate = 1000,
  durationMs = 5000,
  maxRequests = 100_000,
  connections = 32,
  concurrency = 32,
  warmup = 0,
  body,
} = opts;

const base = new URL(url);
const accounts = accountsFile
  ? fs
      .readFileSync(accountsFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '))
  : [['x', 'y']];
const agent = new https.Agent({
  keepAlive: true,
  maxSockets: connections,
  ca: fs.readFileSync(ca),
  keepAliveMsecs: 10_000,
});
// `body` replaces the alert (e.g. an invalid one, to load the refusals' path).
const BODY = Buffer.from(
  body ??
    JSON.stringify({
      ticker: 'BTCUSD',
      price: '64012.5',
      action: 'buy',
      strategy: 'breakout',
      message: 'BTC crossed 64,000 on the 5 minute chart',
    }),
);

let cursor = start;
function nextPath() {
  const [userId, apiKey] = accounts[cursor++ % accounts.length];
  return `/webhook/${userId}/${apiKey}`;
}

const statuses = {};
let errors = 0;
const errorSamples = [];
const latencies = []; // ms, from the scheduled time (rate mode) or the send time (max mode)
const serviceTimes = []; // ms, from the send time

function send(scheduledAt, record) {
  return new Promise((resolve) => {
    const sentAt = performance.now();
    const req = https.request(
      {
        host: base.hostname,
        port: base.port,
        method: 'POST',
        path: nextPath(),
        agent,
        headers: { 'content-type': 'application/json', 'content-length': BODY.length },
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          const done = performance.now();
          if (record) {
            statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
            latencies.push(done - scheduledAt);
            serviceTimes.push(done - sentAt);
          }
          resolve();
        });
      },
    );
    req.on('error', (error) => {
      if (record) {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(error.message);
      }
      resolve();
    });
    req.end(BODY);
  });
}

async function warmUp() {
  // Opens the connections (TLS handshakes) and warms the JIT before anything is recorded.
  const until = performance.now() + warmup;
  const loops = Array.from({ length: connections }, async () => {
    while (performance.now() < until) await send(performance.now(), false);
  });
  await Promise.all(loops);
}

async function fixedRate() {
  const interval = 1000 / rate;
  const total = Math.min(maxRequests, Math.floor((rate * durationMs) / 1000));
  const t0 = performance.now() + 5;
  const pending = [];
  let sent = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && t0 + sent * interval <= now) {
        pending.push(send(t0 + sent * interval, true));
        sent++;
      }
      if (sent >= total) return resolve();
      setTimeout(tick, Math.max(0, Math.min(1, t0 + sent * interval - now)));
    };
    tick();
  });
  const sentEnd = performance.now();
  // Bounded wait for the stragglers.
  await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, 10_000).unref())]);
  return { target_rate: rate, sent, send_duration_ms: sentEnd - t0, duration_ms: performance.now() - t0 };
}

async function maxThroughput() {
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  let sent = 0;
  const loops = Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline && sent < maxRequests) {
      sent++;
      const at = performance.now();
      await send(at, true);
    }
  });
  await Promise.all(loops);
  return { concurrency, sent, duration_ms: performance.now() - t0 };
}

const cpuBefore = process.cpuUsage();
if (warmup > 0) await warmUp();
const cpuStart = process.cpuUsage();
const wallStart = performance.now();
const run = mode === 'rate' ? await fixedRate() : await maxThroughput();
const wall = performance.now() - wallStart;
const cpu = process.cpuUsage(cpuStart);
agent.destroy();

const sorted = Float64Array.from(latencies).sort();
const sortedService = Float64Array.from(serviceTimes).sort();
const q = (s, p) => (s.length ? s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] : NaN);
const ok = statuses[200] ?? 0;
process.stdout.write(
  `${JSON.stringify({
    mode,
    ...run,
    start,
    used_accounts_until: cursor,
    statuses,
    errors,
    error_samples: errorSamples,
    accepted: ok,
    accepted_per_s: (ok * 1000) / run.duration_ms,
    latency_ms: {
      p50: q(sorted, 0.5),
      p90: q(sorted, 0.9),
      p99: q(sorted, 0.99),
      max: sorted[sorted.length - 1] ?? NaN,
    },
    service_time_ms: { p50: q(sortedService, 0.5), p99: q(sortedService, 0.99) },
    generator_cpu_pct: ((cpu.user + cpu.system) / 1000 / wall) * 100,
    warmup_cpu_ms: (cpuStart.user - cpuBefore.user + cpuStart.system - cpuBefore.system) / 1000,
  })}\n`,
);
