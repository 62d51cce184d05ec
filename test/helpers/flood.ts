// Connection floods from many loopback addresses (127.0.0.x, all on lo), as an attacker with that many
// addresses would hold them: TLS connections that send one request each and then hold it, kept
// alive, or bare TCP connections that send nothing; a connection that is closed is opened again.
// And a probe: webhooks from a fresh address, each on a new connection, timed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { request } from './https-client.js';
import { type ServeChild, startServeChild } from './serve-child.js';

export interface Flood {
  /** Connections open now (TLS: handshaken), opened and closed by the server so far. */
  counts(): Promise<{ open: number; opened: number; closed: number }>;
  stop(): void;
}

export interface FloodOptions {
  port: number;
  /** Source addresses, e.g. 127.0.0.10 … */
  addresses: string[];
  perAddress: number;
  /** 'request': TLS, one GET /healthz, then held; 'silent': bare TCP that sends nothing. */
  kind: 'request' | 'silent';
  /** Pause before opening a closed connection again. */
  reopenMs?: number;
}

/** The flood, run by test/helpers/flood-process.mjs in a process of its own. */
export function flood(options: FloodOptions): Flood {
  return floodProcess(process.execPath, path.join(__dirname, 'flood-process.mjs'), options);
}

export interface SlowReadOptions {
  port: number;
  addresses: string[];
  perAddress: number;
  /** What each connection asks for, `pipelined` times at once and once more a second, never reading. */
  path: string;
  pipelined: number;
  /** Pause before opening a closed connection again. */
  reopenMs?: number;
}

/** Slow readers with small receive windows, run by test/helpers/slow-read-flood.py in a process of its own. */
export function slowReadFlood(options: SlowReadOptions): Flood {
  return floodProcess('python3', path.join(__dirname, 'slow-read-flood.py'), options);
}

function floodProcess(command: string, script: string, options: object): Flood {
  const child = spawn(command, [script, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let lines = '';
  child.stdout!.on('data', (c: Buffer) => (lines += c.toString()));
  return {
    async counts() {
      const before = lines.length;
      child.stdin!.write('?\n');
      while (lines.length === before || !lines.endsWith('\n')) await new Promise((r) => setTimeout(r, 20));
      const [open, opened, closed] = lines.trim().split('\n').at(-1)!.split(' ').map(Number) as [
        number,
        number,
        number,
      ];
      return { open, opened, closed };
    },
    stop() {
      child.stdin!.end();
    },
  };
}

export const loopbackAddresses = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `127.0.0.${from + i}`);

export interface ProbeResult {
  answered: number;
  sent: number;
  statuses: number[];
  /** Milliseconds of each answered one, sorted. */
  times: number[];
  p99: number;
  errors: string[];
}

/** `count` webhooks one after another from `localAddress`, each on a connection of its own, to the URLs in turn. */
export async function probeWebhooks(
  urls: string[],
  options: { count: number; localAddress: string; ca?: string; plain?: boolean },
): Promise<ProbeResult> {
  const times: number[] = [];
  const statuses: number[] = [];
  const errors: string[] = [];
  for (let i = 0; i < options.count; i++) {
    const started = performance.now();
    try {
      const reply = await within(
        10_000,
        request(urls[i % urls.length]!, {
          method: 'POST',
          body: `probe ${i}`,
          headers: { 'content-type': 'text/plain', connection: 'close' },
          localAddress: options.localAddress,
          plain: options.plain,
          ...(options.ca && { ca: options.ca }),
        }),
      );
      times.push(performance.now() - started);
      statuses.push(reply.status);
    } catch (error) {
      errors.push((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    }
  }
  times.sort((a, b) => a - b);
  const p99 = times.length ? times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)]! : Number.NaN;
  return { answered: times.length, sent: options.count, statuses, times, p99, errors };
}

/** The promise's value, or a 'timeout' error after `ms`: a webhook never answered counts as lost. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'timeout' })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A process's resident memory in bytes (Linux: VmRSS). */
export function residentBytes(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) * 1024;
}

/** Descriptors a process holds open (Linux, same user or root). */
export function descriptorsOf(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

export type LimitedServe = ServeChild;

/** `ringhook serve` under a hard and soft limit of open files, as a unit's LimitNOFILE sets it. */
export function serveWithFileLimit(nofile: number, env: Record<string, string>): Promise<LimitedServe> {
  return startServeChild({ env, under: ['prlimit', `--nofile=${nofile}:${nofile}`], startTimeoutMs: 30_000 });
}
