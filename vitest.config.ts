import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/helpers/sequencer.js';

// How many test files run at once. Most files wait on real peers part of the time (a phone ringing, a
// call talking, a timeout running out): with three per core both cores of the CI machine are busy through
// the run (measured: 935 s of tests, against 974–1,007 s with two per core: docs/development.md). RINGHOOK_TEST_WORKERS
// overrides it (a test-only variable: docs/development.md).
const WORKERS = Number(process.env.RINGHOOK_TEST_WORKERS) || Math.max(2, os.availableParallelism() * 3);

// Files that need the machine to themselves, run one at a time after all the others: each times
// something on the CPU against a bound, and a neighbour's load would be measured with it.
const ALONE = [
  // the webhook's p99 under a connection flood, against a baseline taken just before
  'test/e2e/connection-flood.test.ts',
  // originate → INVITE at the phone under 100 ms, the slowest of 20 calls
  'test/e2e/ari-latency.test.ts',
  // a known user's wrong key must take as long as an unknown user's: µs medians of 30,000 calls
  'test/unit/auth-timing.test.ts',
  // no file write waits over 200 ms while serve answers a burst of TLS sign-ins
  'test/contract/dashboard-signin-burst.test.ts',
  // other accounts' webhooks under 500 ms (p99) while serve answers a flood of TLS connections with
  // wrong credentials: serve's share of the CPU is what it times (4 files beside it: 900 ms)
  'test/soak/credentials-flood.test.ts',
  // a runaway speech command is stopped within 200 MB of output: how far it gets is how soon the check runs
  'test/unit/tts-command-runaway.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    setupFiles: ['test/helpers/setup.ts'],
    // Builds dist/ once before the workers start (the files that run the CLI or serve use it).
    globalSetup: ['test/helpers/global-setup.ts'],
    maxWorkers: WORKERS,
    // The longest files first across the projects (test/helpers/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // Every file runs in parallel with the others: each takes its own ports (test/helpers/ports.ts),
    // temporary folders and peers. By folder, so that a new file needs no line here.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // Pure code and quick tools. In processes too: in worker threads the files shared one
          // process's libuv pool of 4 threads, and a password hash (scrypt) waited behind the other
          // files' hashing and file I/O past its 30 s (test/unit/dashboard.test.ts, test/store/auth.test.ts).
          include: ['test/unit/**/*.test.ts', 'test/tooling/**/*.test.ts'],
          exclude: ALONE,
          pool: 'forks',
          // A worker runs file after file in one process: vitest and the modules are imported once per
          // worker, not once per file (half of these files' CPU: docs/development.md). What the files
          // share is the module cache, so a unit file leaves no state in a module and restores what it
          // changes (timers, process.env).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'peers',
          // Files with real peers (PostgreSQL, Asterisk, phones, serve, Chromium).
          include: [
            'test/store/**/*.test.ts',
            'test/contract/**/*.test.ts',
            'test/cli/**/*.test.ts',
            'test/e2e/**/*.test.ts',
            'test/binary/**/*.test.ts',
            'test/soak/**/*.test.ts',
          ],
          exclude: ALONE,
          pool: 'forks',
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: ALONE,
          pool: 'forks',
          // One worker, in a group of its own that starts when every other file has finished.
          fileParallelism: false,
        },
      },
    ],
  },
});
