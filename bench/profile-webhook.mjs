// Profiles `serve` under the max-throughput webhook load: node --cpu-prof, then prints the top
// functions by self time. Usage: node bench/profile-webhook.mjs [full|normal]
import fs from 'node:fs';
import path from 'node:path';
import { log } from './lib/common.mjs';
import { freshDataDir, seedAccounts, startServe } from './lib/ringhook.mjs';
import { loadRun } from './webhook.mjs';

const sync = process.argv[2] ?? 'full';
const dataDir = freshDataDir(`profile-${sync}`);
seedAccounts(dataDir, 10_000);
const profDir = path.join(dataDir, 'prof');
const serve = await startServe(dataDir, {
  env: { RINGHOOK_DB_SYNC: sync },
  nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`],
  ...(process.env.RINGHOOK_ROOT && { root: process.env.RINGHOOK_ROOT }),
});
const cursor = { value: 0 };
const common = {
  accountsFile: path.join(dataDir, 'accounts.txt'),
  ca: serve.cert,
  cursor,
  connections: 32,
  concurrency: 32,
  warmupMs: 500,
};
const r = await loadRun(serve.url, { ...common, mode: 'max', durationMs: 4000, pid: serve.pid });
log(
  `sync=${sync}: ${r.accepted_per_s.toFixed(0)}/s, server cpu ${r.server_cpu_pct}%, statuses ${JSON.stringify(r.statuses)}`,
);
await serve.stop();
const file = fs.readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
const prof = JSON.parse(fs.readFileSync(path.join(profDir, file), 'utf8'));
const self = new Map();
const dt = prof.timeDeltas;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const hits = new Map();
prof.samples.forEach((id, i) => hits.set(id, (hits.get(id) ?? 0) + (dt[i] ?? 0)));
let total = 0;
for (const [id, us] of hits) {
  const n = byId.get(id);
  const key = `${n.callFrame.functionName || '(anon)'} ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + us);
  total += us;
}
const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 25);
for (const [k, us] of top)
  console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
console.log(`profile: ${path.join(profDir, file)}`);
