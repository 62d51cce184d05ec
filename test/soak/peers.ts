// Shared by the fault tests and the soak runs: `ringhook serve` as a real process (kill -9 able), and
// a SIPp phone that logs every SIP message it receives, so INVITEs can be counted per number.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeUdpPortPair } from '../helpers/ports.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(REPO_ROOT, 'bin', 'ringhook.js');

export interface ServeProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or null when killed by a signal). */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resident memory of the serve process, in bytes (from /proc). */
  rssBytes(): number;
}

export { buildOnce } from '../helpers/cli.js';

/** `inside`: a command that runs serve somewhere else, e.g. ['ip', 'netns', 'exec', 'home'] for a network namespace. */
/** `bin`: another ringhook's bin/ringhook.js (an older release, for the upgrade tests). */
export async function startServe(
  env: Record<string, string>,
  timeoutMs = 60_000,
  inside: string[] = [],
  bin = BIN,
): Promise<ServeProcess> {
  let output = '';
  const [command, ...args] = [...inside, process.execPath, bin, 'serve'];
  const child = spawn(command!, args, {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (c: Buffer) => {
    output = (output + c.toString()).slice(-200_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  while (!output.includes('ringhook is listening')) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`serve exited ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`serve did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    rssBytes() {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
  };
}

/** Runs a CLI command with --json; `okStatuses` are the exit codes whose JSON is the answer (a test call that was not answered exits 1). */
export function runCliJson(args: string[], env: Record<string, string>, okStatuses: number[] = [0]): any {
  const res = spawnSync(process.execPath, [BIN, ...args, '--json'], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    encoding: 'utf8',
  });
  if (!okStatuses.includes(res.status ?? -1))
    throw new Error(`ringhook ${args.join(' ')} failed: ${res.stdout}${res.stderr}`);
  return JSON.parse(res.stdout);
}

export interface CountingPhone {
  /** Stops SIPp (gracefully, so its message log is complete) and returns the INVITEs it got: Call-IDs per called number. */
  stop(): Promise<Map<string, Set<string>>>;
}

/** A SIPp UAS that rings `ringMs`, then answers 486 Busy Here, logging every message (-trace_msg). */
export async function startCountingPhone(port: number, ringMs: number, timeoutSec = 180): Promise<CountingPhone> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-phone-'));
  const scenario = fs
    .readFileSync(path.join(REPO_ROOT, 'test/soak/sipp/ring-then-busy.xml'), 'utf8')
    .replaceAll('RING_MS', String(ringMs));
  fs.writeFileSync(path.join(dir, 'scenario.xml'), scenario);
  const log = path.join(dir, 'messages.log');
  // From this process's port block: SIP port + 10000 landed in the kernel's ephemeral range.
  const mediaPort = await freeUdpPortPair();
  const child = spawn(
    'sipp',
    [
      '-sf',
      'scenario.xml',
      '-i',
      '127.0.0.1',
      '-p',
      String(port),
      '-m',
      '100000',
      '-timeout',
      `${timeoutSec}s`,
      '-nostdin',
      '-mi',
      '127.0.0.1',
      '-mp',
      String(mediaPort),
      '-trace_msg',
      '-message_file',
      log,
      '-message_overwrite',
      'false',
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killer = setTimeout(() => child.kill('SIGKILL'), (timeoutSec + 5) * 1000);
  killer.unref();
  // Wait until SIPp has bound its UDP port.
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (let i = 0; i < 200; i++) {
    if (
      fs
        .readFileSync('/proc/net/udp', 'utf8')
        .split('\n')
        .some((l) => l.trim().split(/\s+/)[1]?.endsWith(hex))
    )
      break;
    if (child.exitCode !== null) throw new Error('sipp exited at start');
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGUSR1');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      clearTimeout(killer);
      const text = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
      fs.rmSync(dir, { recursive: true, force: true });
      return countInvites(text);
    },
  };
}

/** INVITE requests in a SIPp message log: distinct Call-IDs per Request-URI user (the dialed number). */
export function countInvites(log: string): Map<string, Set<string>> {
  const byNumber = new Map<string, Set<string>>();
  for (const block of log.split(/message received \[\d+\] bytes :/)) {
    const body = block.trimStart();
    const m = /^INVITE sip:([^@;>\s]+)@/.exec(body);
    if (!m) continue;
    const callId = /^(?:Call-ID|i):\s*(\S+)/im.exec(body)?.[1];
    if (!callId) continue;
    const set = byNumber.get(m[1]!) ?? new Set<string>();
    set.add(callId);
    byNumber.set(m[1]!, set);
  }
  return byNumber;
}
