// Profiles `serve` and the same-job minimal server (bench/lib/minimal-server.mjs) under the same
// max-throughput webhook load, one after the other: node --cpu-prof, then the CPU each accepted
// alert costs, by where it is spent (samples of the load only: start-up is left out), and the top
// functions by self time. Usage: node bench/profile-webhook.mjs [full|normal]
import fs from 'node:fs';
import path from 'node:path';
import { log, ROOT } from './lib/common.mjs';
import { freshDataDir, seedAccounts, startMinimal, startServe } from './lib/ringhook.mjs';
import { loadRun } from './webhook.mjs';

const sync = process.argv[2] ?? 'full';
const dataDir = freshDataDir(`profile-${sync}`);
seedAccounts(dataDir, 10_000);
const common = {
  accountsFile: path.join(dataDir, 'accounts.txt'),
  cursor: { value: 0 },
  connections: 32,
  concurrency: 32,
  warmupMs: 500,
};

/** Where a sample's function lives: the part of the work it stands for. */
function category(frame) {
  const url = frame.url;
  const name = frame.functionName;
  if (name === '(garbage collector)') return 'garbage collection';
  if (name === '(idle)' || name === '(program)') return name;
  if (/store\/sqlite|better-sqlite3/.test(url) || (/^(sqliteTransaction|run|get|all)$/.test(name) && !url))
    return 'SQLite (statements, commit and its fsync)';
  if (/store\/|secret-box|crypto/.test(url) || /^(createHmac|digest|timingSafeEqual)/.test(name))
    return 'accounts: HMAC, sealed keys';
  if (/core\/(payload|extra-fields|alert)|zod/.test(url)) return 'alert parsing and validation';
  if (/\/http\/|h3|srvx|listhen|\/app\//.test(url)) return "ringhook's HTTP and webhook code";
  if (
    /^node:(_tls|tls|net|_http|http|stream|internal\/streams|events|buffer)|^(_tls|tls|net|_http|http|stream)/.test(
      url,
    ) ||
    /^(writev|writeUtf8String|onStreamRead|TLSWrap)/.test(name)
  )
    return 'Node: TLS, sockets, HTTP';
  if (url === '' && name === '(anon)') return 'native (other)';
  return 'other JavaScript';
}

async function profile(label, start) {
  const profDir = path.join(dataDir, `prof-${label}`);
  const server = await start(['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
  const r = await loadRun(server.url, { ...common, ca: server.cert, mode: 'max', durationMs: 4000, pid: server.pid });
  await server.stop();
  const file = fs.readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  const prof = JSON.parse(fs.readFileSync(path.join(profDir, file), 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  // Only the samples of the load's last seconds (the profile ends when the server stops, just after it).
  let t = prof.startTime;
  const self = new Map();
  const cats = new Map();
  prof.samples.forEach((id, i) => {
    t += prof.timeDeltas[i] ?? 0;
    const us = prof.timeDeltas[i + 1] ?? 0;
    if (t < prof.endTime - (r.duration_ms + common.warmupMs) * 1000) return;
    const n = byId.get(id);
    const key = `${n.callFrame.functionName || '(anon)'} ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + us);
    const c = category(n.callFrame);
    cats.set(c, (cats.get(c) ?? 0) + us);
  });
  const accepted = r.accepted;
  log(
    `${label}: ${r.accepted_per_s.toFixed(0)}/s, server cpu ${r.server_cpu_pct}%, statuses ${JSON.stringify(r.statuses)}`,
  );
  const perAlert = Object.fromEntries(
    [...cats]
      .filter(([c]) => c !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .map(([c, us]) => [c, +(us / 1000 / accepted).toFixed(4)]),
  );
  for (const [c, ms] of Object.entries(perAlert)) console.log(`  ${(ms * 1000).toFixed(0).padStart(5)} µs/alert  ${c}`);
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 15);
  for (const [k, us] of top)
    console.log(`    ${((us / 1000 / accepted) * 1000).toFixed(1).padStart(6)} µs/alert  ${k}`);
  return { label, accepted_per_s: r.accepted_per_s, server_cpu_pct: r.server_cpu_pct, per_alert_ms: perAlert };
}

const serveDir = dataDir;
// serve from the compiled tree, not the bundle (`bin/ringhook.js` runs dist/bundle, whose chunks name
// no module): the profile's frames then carry their module's path, which the categories read.
const unbundled = path.join(dataDir, 'unbundled');
fs.mkdirSync(path.join(unbundled, 'bin'), { recursive: true });
const tree = process.env.RINGHOOK_ROOT ?? ROOT;
fs.writeFileSync(
  path.join(unbundled, 'bin', 'ringhook.js'),
  `import { runMain } from ${JSON.stringify(path.join(tree, 'dist', 'main.js'))};\nawait runMain(process.argv.slice(2));\n`,
);
const results = [];
results.push(
  await profile('ringhook', async (nodeArgs) =>
    startServe(serveDir, {
      env: { RINGHOOK_DB_SYNC: sync },
      nodeArgs,
      root: unbundled,
    }),
  ),
);
const certFile = path.join(serveDir, 'tls', 'self-signed-cert.pem');
const keyFile = path.join(serveDir, 'tls', 'self-signed-key.pem');
results.push(
  await profile('minimal', async (nodeArgs) => ({
    ...(await startMinimal(certFile, keyFile, serveDir, undefined, nodeArgs)),
    cert: certFile,
  })),
);
fs.writeFileSync(path.join(dataDir, 'profile.json'), `${JSON.stringify(results, null, 2)}\n`);
log(`profiles and per-alert breakdown: ${dataDir}`);
