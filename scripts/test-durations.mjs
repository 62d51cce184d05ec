// Writes test/durations.json, each test file's duration in the last full run (seconds, wall time
// with the others running beside it), from vitest's JSON report. The sequencer starts the longest
// files first by it on a machine with no run of its own, as a fresh clone in CI (test/helpers/sequencer.ts).
// Only files that passed are taken (a failed file stopped early); the others keep their entry.
// Usage: npm run test:durations (after npm test), or node scripts/test-durations.mjs REPORT.json
import fs from 'node:fs';
import path from 'node:path';

const reportPath = process.argv[2] ?? 'test-results/vitest.json';
const outPath = 'test/durations.json';
let report;
try {
  report = JSON.parse(fs.readFileSync(reportPath, 'utf8'));
} catch (error) {
  console.error(
    `ringhook: cannot read the test report ${reportPath} (${error.code ?? error.message}): run npm test first`,
  );
  process.exit(1);
}
const durations = fs.existsSync(outPath) ? JSON.parse(fs.readFileSync(outPath, 'utf8')) : {};
let taken = 0;
for (const file of report.testResults ?? []) {
  if (file.status !== 'passed' || !file.endTime || !file.startTime) continue;
  durations[path.relative(process.cwd(), file.name)] = Math.max(
    0.01,
    Math.round((file.endTime - file.startTime) / 10) / 100,
  );
  taken += 1;
}
for (const name of Object.keys(durations)) if (!fs.existsSync(name)) delete durations[name];
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
fs.writeFileSync(outPath, `${JSON.stringify(sorted, null, 1)}\n`);
console.log(`ringhook: ${outPath}: ${taken} files from ${reportPath}, ${Object.keys(sorted).length} in all`);
