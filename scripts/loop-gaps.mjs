#!/usr/bin/env node
// What ran in each long gap of the event loop: reads the `<n>.cpuprofile` and `<n>.gaps.json` pairs
// RINGHOOK_TEST_LOOP_PROFILE=<folder> writes (test/helpers/loop-cpu.ts) and prints, for each gap over
// the threshold (ms of CPU, default 30), the functions its samples were in: inclusive (the stacks that
// held the turn) and self (where the time went, garbage collection included).
// Usage: node scripts/loop-gaps.mjs <folder> [threshold-ms] [rows]
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const [dir, thresholdArg = '30', rowsArg = '14'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/loop-gaps.mjs <folder> [threshold-ms] [rows]');
  process.exit(2);
}
const threshold = Number(thresholdArg);
const rows = Number(rowsArg);

for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.gaps.json'))
  .sort()) {
  const name = file.slice(0, -'.gaps.json'.length);
  const gaps = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
  const profile = JSON.parse(readFileSync(path.join(dir, `${name}.cpuprofile`), 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n) => {
    const f = n.callFrame;
    const where = f.url ? `${f.url.replace(/^.*\/(src|node_modules|test)\//, '$1/')}:${f.lineNumber + 1}` : '';
    return `${f.functionName || '(anonymous)'} ${where}`.trim();
  };
  const times = [];
  let t = profile.startTime;
  for (const d of profile.timeDeltas) {
    t += d;
    times.push(t);
  }
  const worst = Math.max(0, ...gaps.map((g) => g.cpuMs));
  console.log(`\n== ${name}: ${gaps.length} gaps over 20 ms, the most CPU in one ${worst.toFixed(1)} ms`);
  for (const gap of gaps.filter((g) => g.cpuMs >= threshold)) {
    const self = new Map();
    const inclusive = new Map();
    let sampled = 0;
    for (let i = 0; i < profile.samples.length; i++) {
      if (times[i] < gap.startUs || times[i] > gap.endUs) continue;
      const dt = (times[i + 1] ?? times[i]) - times[i];
      sampled += dt;
      let node = byId.get(profile.samples[i]);
      self.set(label(node), (self.get(label(node)) ?? 0) + dt);
      const seen = new Set();
      while (node) {
        const l = label(node);
        if (!seen.has(l)) {
          seen.add(l);
          inclusive.set(l, (inclusive.get(l) ?? 0) + dt);
        }
        node = byId.get(parent.get(node.id));
      }
    }
    const top = (m) =>
      [...m.entries()]
        .filter(([l]) => l !== '(root)')
        .sort((a, b) => b[1] - a[1])
        .slice(0, rows)
        .map(([l, us]) => `    ${(us / 1000).toFixed(1).padStart(6)} ms  ${l}`)
        .join('\n');
    console.log(
      `\n-- gap of ${((gap.endUs - gap.startUs) / 1000).toFixed(1)} ms, ${gap.cpuMs.toFixed(1)} ms CPU, ${(sampled / 1000).toFixed(1)} ms sampled (at +${((gap.startUs - profile.startTime) / 1e6).toFixed(2)} s)`,
    );
    console.log(`  inclusive:\n${top(inclusive)}\n  self:\n${top(self)}`);
  }
}
