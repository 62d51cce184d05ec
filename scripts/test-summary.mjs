// Prints the closing line of `npm test`, "N passed, N failed, N skipped", from vitest's JSON report.
// A test file that failed to run (an import error, a beforeAll that threw) counts as one failed,
// and so does a run that exited non-zero with no failure counted: the line never says 0 failed
// for a failed run. Usage: node scripts/test-summary.mjs REPORT.json VITEST_EXIT_STATUS
import fs from 'node:fs';

const [reportPath, exitStatus] = process.argv.slice(2);
let report;
try {
  report = JSON.parse(fs.readFileSync(reportPath, 'utf8'));
} catch {
  console.log('ringhook: the test runner wrote no results');
  console.log('0 passed, 1 failed, 0 skipped');
  process.exit(0);
}
let failed = report.numFailedTests;
for (const file of report.testResults ?? []) {
  const testFailed = (file.assertionResults ?? []).some((t) => t.status === 'failed');
  if (file.status === 'failed' && !testFailed) {
    failed += 1;
    console.log(`ringhook: ${file.name} failed to run: ${String(file.message ?? '').split('\n')[0]}`);
  }
}
if (Number(exitStatus) !== 0 && failed === 0) {
  failed = 1;
  console.log(`ringhook: the test runner exited ${exitStatus} with no failed test (an error outside the tests)`);
}
// The slowest files, so that the next slowdown is seen when it comes (#44).
const durations = (report.testResults ?? [])
  .map((file) => ({ name: file.name, ms: (file.endTime ?? 0) - (file.startTime ?? 0) }))
  .filter((file) => file.ms > 0)
  .sort((a, b) => b.ms - a.ms);
if (durations.length > 0) {
  const total = durations.reduce((sum, file) => sum + file.ms, 0);
  console.log(`ringhook: the slowest test files (of ${durations.length}, ${(total / 1000).toFixed(0)} s in all):`);
  for (const file of durations.slice(0, 20)) {
    const name = file.name.replace(`${process.cwd()}/`, '');
    console.log(`  ${(file.ms / 1000).toFixed(1).padStart(7)} s  ${name}`);
  }
}
const skipped = report.numPendingTests + (report.numTodoTests ?? 0);
console.log(`${report.numPassedTests} passed, ${failed} failed, ${skipped} skipped`);
