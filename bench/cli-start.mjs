// What a CLI command line costs from start to exit, before and beside the work it does (#44): the
// tests run the real CLI hundreds of times, and a user waits for every `--help`. Each command line
// runs RUNS times (after one warm-up) in a fresh `node bin/ringhook.js` over dist/, on a data dir with
// one account; the figures are the process's own CPU (user + system, from bash's `times`) and wall
// time, medians over the runs. `node bench/cli-start.mjs [BASELINE]`: BASELINE, another checkout
// with dist/ built (`git worktree add /tmp/before <commit>`, `npm run build` there), is measured in
// turn with this one (A B A B …, so that a machine shared with others slows both alike). The single
// executable (dist/ringhook, npm run build:binary) is measured too when it is there.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DATA_DIR, ROOT, acrossRuns, log, writeResult } from './lib/common.mjs';

const RUNS = Number(process.env.CLI_START_RUNS ?? 10);
const COMMAND_LINES = [['--help'], ['account', '--help'], ['account', 'list', '--json'], ['calls', '--json']];
const baseline = process.argv[2] ? path.resolve(process.argv[2]) : undefined;

/** One run of `command args…`: CPU seconds of the process (and its children) and wall seconds. */
function timed(command, args, env) {
  // bash's `times` before and after: its children's user and system time ("0m0.412s 0m0.101s"),
  // taken as a difference (a shell may have charged children before it runs the command); the wall
  // time from bash's clock around the command alone.
  const script =
    'times; s=$EPOCHREALTIME; "$@" >/dev/null 2>&1; code=$?; e=$EPOCHREALTIME; times; echo "exit $code $s $e"';
  const run = spawnSync('bash', ['-c', script, 'cli-start', command, ...args], { env, encoding: 'utf8' });
  const lines = run.stdout.trim().split('\n');
  const [exit, code, start, end] = (lines[4] ?? '').split(' ');
  if (exit !== 'exit' || code !== '0') throw new Error(`${command} ${args.join(' ')}: ${lines[4] ?? run.stderr}`);
  const wall = Math.round((Number(end) - Number(start)) * 1000) / 1000;
  const seconds = (text) => {
    const [, m, s] = /(\d+)m([\d.]+)s/.exec(text) ?? [];
    return Number(m) * 60 + Number(s);
  };
  const childCpu = (line) => line.split(' ').reduce((sum, part) => sum + seconds(part), 0);
  return { cpu: Math.round((childCpu(lines[3]) - childCpu(lines[1])) * 1000) / 1000, wall };
}

function prepareDataDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, RINGHOOK_DATA_DIR: dir };
  timed(process.execPath, [path.join(ROOT, 'bin/ringhook.js'), 'account', 'create', '--phone', '+14155550123'], env);
  return env;
}

const env = prepareDataDir(path.join(DATA_DIR, 'cli-start'));
const trees = { this: ROOT, ...(baseline && { baseline }) };
const binary = path.join(ROOT, 'dist', 'ringhook');
const figures = {};
for (const args of COMMAND_LINES) {
  const line = args.join(' ');
  const samples = Object.fromEntries(Object.keys(trees).map((name) => [name, { cpu: [], wall: [] }]));
  const entries = Object.entries(trees);
  if (fs.existsSync(binary)) {
    entries.push(['binary', null]);
    samples.binary = { cpu: [], wall: [] };
  }
  for (let i = 0; i <= RUNS; i++)
    for (const [name, tree] of entries) {
      const run = tree
        ? timed(process.execPath, [path.join(tree, 'bin/ringhook.js'), ...args], env)
        : timed(binary, args, env);
      if (i === 0) continue; // the warm-up: files into the page cache
      samples[name].cpu.push(run.cpu);
      samples[name].wall.push(run.wall);
    }
  figures[line] = Object.fromEntries(
    Object.entries(samples).map(([name, s]) => [name, { cpu_s: acrossRuns(s.cpu), wall_s: acrossRuns(s.wall) }]),
  );
  if (baseline)
    figures[line].cpu_ratio_vs_baseline =
      Math.round((figures[line].this.cpu_s.median / figures[line].baseline.cpu_s.median) * 100) / 100;
  log(
    `cli-start: ${line}: ${Object.entries(figures[line])
      .filter(([, f]) => typeof f === 'object')
      .map(([name, f]) => `${name} ${f.cpu_s.median} s CPU, ${f.wall_s.median} s wall`)
      .join('; ')}`,
  );
}
const node = acrossRuns(Array.from({ length: 5 }, () => timed(process.execPath, ['-e', ''], env).cpu));
const file = writeResult('cli-start', {
  runs: RUNS,
  baseline: baseline ?? null,
  node_alone_cpu_s: node,
  figures,
});
log(`cli-start: wrote ${file}`);
