// Shared helpers of the benchmarks: statistics, machine description, result files, child processes.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = fileURLToPath(new URL('../', import.meta.url));
export const ROOT = path.resolve(BENCH_DIR, '..');
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');
/** Scratch space on the real disk (not tmpfs), so that fsync costs what it costs in production. */
export const DATA_DIR = path.join(BENCH_DIR, '.data');

export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

/** p50/p90/p99/max of a list of numbers (ms). */
export function summarize(values) {
  const s = Float64Array.from(values).sort();
  const r = (x) => Math.round(x * 1000) / 1000;
  return {
    n: s.length,
    p50: r(quantile(s, 0.5)),
    p90: r(quantile(s, 0.9)),
    p95: r(quantile(s, 0.95)),
    p99: r(quantile(s, 0.99)),
    max: r(s.length ? s[s.length - 1] : NaN),
    mean: r(s.reduce((a, b) => a + b, 0) / (s.length || 1)),
  };
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Median and p99 over repeated runs of one figure, plus the raw per-run values. */
export function acrossRuns(values) {
  const s = [...values].sort((a, b) => a - b);
  const r = (x) => Math.round(x * 1000) / 1000;
  return {
    median: r(median(s)),
    p99: r(quantile(s, 0.99)),
    min: r(s[0]),
    max: r(s[s.length - 1]),
    runs: values.map(r),
  };
}

export function machine() {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu_model: cpus[0]?.model ?? 'unknown',
    memory_gb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()}`,
  };
}

export function writeResult(name, result) {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  fs.writeFileSync(
    file,
    `${JSON.stringify({ name, measured_at: new Date().toISOString(), machine: machine(), ...result }, null, 2)}\n`,
  );
  return file;
}

export function log(...args) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${args.join(' ')}\n`);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Resident set size (and its peak) of a process, from /proc, in MB. */
export function rssOf(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return { rss_mb: kb('VmRSS') / 1024, hwm_mb: kb('VmHWM') / 1024 };
  } catch {
    return { rss_mb: NaN, hwm_mb: NaN };
  }
}

/** CPU time (user + system) a process has used, in ms, from /proc/PID/stat. */
export function cpuMsOf(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100; // CLK_TCK is 100 on Linux
  } catch {
    return NaN;
  }
}

/** Runs a Node script as a child and returns its stdout parsed as JSON. */
export function runNodeJson(script, args = [], options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'], ...options });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${path.basename(script)} exited with ${code}`));
      try {
        resolve(JSON.parse(out));
      } catch (_error) {
        reject(new Error(`${path.basename(script)} printed no JSON: ${out.slice(0, 200)}`));
      }
    });
  });
}

export function round(x, digits = 2) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
