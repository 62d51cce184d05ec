// npm run bench: builds, runs every benchmark (bounded: ~12 minutes here), writes bench/results/*.json
// and bench/results/SUMMARY.md. `node bench/run.mjs webhook growth` runs a subset.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RESULTS_DIR, log, machine, writeResult } from './lib/common.mjs';
import { runWebhookBench } from './webhook.mjs';
import { runGrowthBench } from './growth.mjs';
import { runTelephonyBench } from './telephony.mjs';
import { runBurstBench } from './burst.mjs';
import { runClusterBench } from './cluster.mjs';
import { buildModel } from './model.mjs';
import { runSameJobBench } from './same-job.mjs';
import { writeSummary } from './summary.mjs';

const only = process.argv.slice(2);
const want = (name) => only.length === 0 || only.includes(name);
const started = Date.now();
const load = os.loadavg();
const hardStop = setTimeout(() => {
  log('bench: 20 minutes reached, stopping');
  process.exit(2);
}, 20 * 60_000);
hardStop.unref();

if (want('webhook')) {
  const { webhook, memory } = await runWebhookBench();
  writeResult('webhook', webhook);
  writeResult('memory', memory);
}
if (want('growth')) writeResult('growth', await runGrowthBench());
if (want('telephony')) {
  const r = await runTelephonyBench();
  for (const [k, v] of Object.entries(r)) if (v) writeResult(k.replace(/_/g, '-'), v);
}
// Not in the default run (minutes of CPU on a small machine): `npm run bench burst`.
if (only.includes('burst')) {
  const runs = [];
  for (const cps of (process.env.BURST_CPS ?? '50,200').split(',').map(Number)) runs.push(await runBurstBench({ cps }));
  writeResult('burst', { runs });
}
// Not in the default run either (needs PostgreSQL: scripts/provision-test-peers.sh; ~3 minutes): `npm run bench cluster`.
// BENCH_PIN=1 pins PostgreSQL and the nodes to separate cores (taskset); bench/model.mjs then says what N nodes on C cores take.
if (only.includes('cluster')) {
  const cluster = await runClusterBench({ pin: process.env.BENCH_PIN === '1' });
  writeResult('cluster', cluster);
  writeResult('model', buildModel(cluster));
}
// ringhook against the same-job minimal server, interleaved in one run (#58; ~2 minutes): in the default
// run, since its ratios are the figures #58 sets goals for.
if (want('same-job')) await runSameJobBench();
const seconds = Math.round((Date.now() - started) / 1000);
fs.writeFileSync(
  path.join(RESULTS_DIR, 'run.json'),
  `${JSON.stringify({ machine: machine(), load_average_at_start: load, seconds, ran: only.length ? only : ['all'], finished_at: new Date().toISOString() }, null, 2)}\n`,
);
writeSummary();
log(`bench: done in ${seconds} s; see ${path.join(RESULTS_DIR, 'SUMMARY.md')}`);
