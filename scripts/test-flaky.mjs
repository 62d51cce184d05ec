// npm run test:flaky -- <file> [N] [--load K]: runs one test file N times (10 by default) with K
// busy loops beside it (2 by default: both cores of the CI machine taken), one run after the other,
// and prints how many passed and failed, and each failure's test and first error line. The busy
// loops are this script's children and are killed when it ends, on Ctrl-C or a kill too; each loop
// also ends by itself once this script is gone (even after a kill -9), so none is left spinning.
// Every run's output is kept in a folder of its own (printed at the start) for reading.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: npm run test:flaky -- <test file> [runs, default 10] [--load busy loops, default 2]';

function parseArgs(argv) {
  const positional = [];
  let load = 2;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--load' || arg.startsWith('--load=')) {
      const value = arg === '--load' ? argv[++i] : arg.slice('--load='.length);
      load = Number(value);
      if (!Number.isInteger(load) || load < 0 || load > 64) fail(`--load takes a whole number 0–64, not "${value}"`);
    } else if (arg === '-h' || arg === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else positional.push(arg);
  }
  const [file, runsText, ...rest] = positional;
  if (!file || rest.length > 0) fail(USAGE);
  const runs = runsText === undefined ? 10 : Number(runsText);
  if (!Number.isInteger(runs) || runs < 1 || runs > 1000) fail(`runs must be a whole number 1–1000, not "${runsText}"`);
  // npm runs scripts from the package's folder: a path is the caller's, from where npm was run.
  const absolute = path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
  if (!fs.existsSync(absolute) || !fs.statSync(absolute).isFile()) fail(`no test file ${file}`);
  return { file: path.relative(ROOT, absolute), runs, load };
}

function fail(message) {
  console.error(`test:flaky: ${message}`);
  process.exit(2);
}

/**
 * A busy loop that checks, every few million turns, that its parent is still this script: an
 * orphan (its parent killed with -9) ends itself instead of spinning on.
 */
const BUSY_LOOP = `const parent = ${process.pid}; for (let i = 1; ; i++) if ((i & 0xffffff) === 0 && process.ppid !== parent) process.exit(0);`;

const children = new Set();
/** A signal came: no further run starts. */
let stopping = false;

function startBusyLoops(count) {
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, ['-e', BUSY_LOOP], { stdio: 'ignore' });
    children.add(child);
    child.once('exit', () => children.delete(child));
  }
}

/** Kills the busy loops and a vitest still running, each by the pid this script started. */
function killChildren(signal = 'SIGKILL') {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    try {
      // vitest leads a process group of its own (detached): its workers and their peers go with it.
      if (child.ringhookGroup) process.kill(-child.pid, signal);
      else child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

process.on('exit', () => killChildren());
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    stopping = true;
    console.log(`\ntest:flaky: ${signal}: the busy loops are killed, the run in progress is stopped`);
    // The loops at once; vitest's group is asked first (its files stop their peers), killed 5 s later.
    killChildren('SIGTERM');
    const stopped = setInterval(() => {
      if (children.size === 0) process.exit(130);
    }, 100);
    setTimeout(() => {
      clearInterval(stopped);
      process.exit(130);
    }, 5_000);
  });
}

/** One run of the file: its exit status, its duration and its failures as vitest's JSON report has them. */
function runOnce(file, logPath, reportPath) {
  return new Promise((resolve) => {
    const started = Date.now();
    const log = fs.openSync(logPath, 'w');
    const vitest = path.join(ROOT, 'node_modules', '.bin', 'vitest');
    const child = spawn(
      vitest,
      ['run', file, '--reporter=default', '--reporter=json', `--outputFile.json=${reportPath}`],
      { cwd: ROOT, stdio: ['ignore', log, log], detached: true, env: { ...process.env, FORCE_COLOR: '0' } },
    );
    child.ringhookGroup = true;
    children.add(child);
    child.once('exit', (code, signal) => {
      children.delete(child);
      fs.closeSync(log);
      resolve({
        code: code ?? signal,
        seconds: (Date.now() - started) / 1000,
        failures: failuresOf(reportPath, logPath),
      });
    });
  });
}

/** Each failed test's name and first error line; a file that failed to run, its first error line. */
function failuresOf(reportPath, logPath) {
  let report;
  try {
    report = JSON.parse(fs.readFileSync(reportPath, 'utf8'));
  } catch {
    const line = fs
      .readFileSync(logPath, 'utf8')
      .split('\n')
      .find((l) => /error/i.test(l));
    return [{ test: '(no report)', error: (line ?? 'vitest wrote no report').trim() }];
  }
  const failures = [];
  for (const file of report.testResults ?? []) {
    const tests = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of tests)
      failures.push({ test: t.fullName ?? t.title, error: firstLine(t.failureMessages?.[0] ?? '') });
    if (file.status === 'failed' && tests.length === 0)
      failures.push({ test: '(the file failed to run)', error: firstLine(file.message ?? '') });
  }
  return failures;
}

const firstLine = (text) =>
  String(text)
    .split('\n')
    .find((l) => l.trim() !== '')
    ?.trim() ?? '(no message)';

const { file, runs, load } = parseArgs(process.argv.slice(2));
if (process.env.RINGHOOK_TEST_PEERS_PROVISIONED !== '1') {
  // As npm test does: the peers installed once (a quick no-op once done), then not checked by each run.
  console.log('test:flaky: checking the test peers (scripts/provision-test-peers.sh)');
  const provisioned = spawnSync('bash', [path.join(ROOT, 'scripts/provision-test-peers.sh')], { stdio: 'inherit' });
  if (provisioned.status !== 0) fail('the test peers could not be provisioned');
  process.env.RINGHOOK_TEST_PEERS_PROVISIONED = '1';
}
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-flaky-'));
console.log(`test:flaky: ${file}, ${runs} run(s), ${load} busy loop(s) beside it; logs in ${logDir}`);
startBusyLoops(load);
let passed = 0;
const failedRuns = [];
for (let i = 1; i <= runs; i++) {
  const logPath = path.join(logDir, `run-${i}.log`);
  const result = await runOnce(file, logPath, path.join(logDir, `run-${i}.json`));
  // Stopped by a signal: its handler ends the script, this run counts for nothing.
  if (stopping) await new Promise(() => {});
  const ok = result.code === 0 && result.failures.length === 0;
  if (ok) passed++;
  else failedRuns.push({ run: i, logPath, ...result });
  const failures = ok
    ? []
    : result.failures.length > 0
      ? result.failures
      : [{ test: '', error: `exit ${result.code}` }];
  console.log(`run ${i}/${runs}: ${ok ? 'passed' : 'FAILED'} in ${result.seconds.toFixed(0)} s`);
  for (const f of failures) console.log(`  ${f.test ? `${f.test}: ` : ''}${f.error}`);
}
killChildren();
console.log(
  `test:flaky: ${file}: ${passed} passed, ${failedRuns.length} failed of ${runs} (load: ${load} busy loop(s), load average ${os.loadavg()[0].toFixed(1)} at the end)`,
);
for (const r of failedRuns) console.log(`  run ${r.run}: ${r.logPath}`);
process.exit(failedRuns.length > 0 ? 1 : 0);
