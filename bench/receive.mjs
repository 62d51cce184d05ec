// The webhook's store step on PostgreSQL alone, no HTTP: N alerts through store.calls.receiveAlert
// (the server-side receive function, batched as serve batches them) with C in flight, on a fresh
// database of a running cluster. For comparing two builds of ringhook process by process, interleaved
// (A B A B …) by a timer run from outside: RINGHOOK_ROOT names the checkout whose dist/ is measured.
//   BENCH_PG_URL=postgres://user@127.0.0.1:PORT/postgres RINGHOOK_ROOT=/path/to/checkout node bench/receive.mjs
// BENCH_CONTROLS=on gives every account a duplicate window and an address list (#41), each alert a
// client address inside it: what those checks add (a build without them ignores the setting).
// Prints one JSON line: alerts/s and the latency quantiles of the receives.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import postgres from 'postgres';
import { ROOT } from './lib/common.mjs';

const root = process.env.RINGHOOK_ROOT ?? ROOT;
const url = process.env.BENCH_PG_URL;
if (!url) throw new Error('set BENCH_PG_URL to a PostgreSQL superuser URL (a database is created per run)');
const alerts = Number(process.env.BENCH_ALERTS ?? 3000);
const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? 32);
const controls = process.env.BENCH_CONTROLS === 'on';
// Premium allows 10 a minute per account: enough accounts that none is refused.
const accountCount = Math.ceil(alerts / 8);

const { openPostgresStore } = await import(path.join(root, 'dist/store/postgres/index.js'));
const { SecretBox } = await import(path.join(root, 'dist/store/secret-box.js'));
const { parseAlertBody } = await import(path.join(root, 'dist/core/webhook/payload.js'));

const admin = postgres(url, { max: 1, onnotice: () => {} });
const name = `bench_receive_${process.pid}_${Date.now()}`;
await admin.unsafe(`CREATE DATABASE ${name}`);
const dbUrl = url.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
const store = await openPostgresStore({
  url: dbUrl,
  nodeId: 'bench',
  secrets: new SecretBox(randomBytes(32), 'bench'),
  poolSize: 5,
});
try {
  const accounts = [];
  for (let i = 0; i < accountCount; i++) {
    accounts.push(
      await store.accounts.create({
        phone: `+1415${String(5_000_000 + i).padStart(7, '0')}`,
        plan: 'premium',
        smsBackup: false,
        name: '',
        ...(controls && { dedupeSeconds: 60, webhookSources: '198.51.100.0/24, 2001:db8::/32' }),
      }),
    );
  }
  const alertOf = (i) => {
    const parsed = parseAlertBody(
      new TextEncoder().encode(
        JSON.stringify({ message: `BTCUSD crossed ${100_000 + i}`, ticker: 'BTCUSD', price: i }),
      ),
      'application/json',
    );
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.alert;
  };
  const latencies = [];
  let next = 0;
  let accepted = 0;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < alerts) {
        const i = next++;
        const a = accounts[i % accounts.length];
        const t0 = performance.now();
        const r = await store.calls.receiveAlert({
          userId: a.userId,
          apiKey: a.apiKey,
          payload: { ok: true, alert: alertOf(i) },
          address: '198.51.100.7',
        });
        latencies.push(performance.now() - t0);
        if (r.outcome === 'accepted') accepted++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((x, y) => x - y);
  const q = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] * 100) / 100;
  console.log(
    JSON.stringify({
      root,
      controls,
      alerts,
      accepted,
      in_flight: inFlight,
      alerts_per_s: Math.round(alerts / seconds),
      p50_ms: q(0.5),
      p99_ms: q(0.99),
      // This process's CPU per alert during the receives (the client side: items, JSON, the driver).
      node_cpu_us_per_alert: Math.round((cpu.user + cpu.system) / alerts),
    }),
  );
  if (accepted !== alerts) process.exitCode = 1;
} finally {
  await store.close();
  await admin.unsafe(`DROP DATABASE ${name} WITH (FORCE)`);
  await admin.end({ timeout: 1 });
}
