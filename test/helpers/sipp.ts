// Runs SIPp (Debian sip-tester) as a test phone: a UAS on a loopback port playing one of the
// scenarios in test/e2e/sipp/, or (with `remote`) a client that sends the scenario's requests to
// that address, e.g. to register. Collects its exit code and final statistics.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeUdpPortPair } from './ports.js';

export const SCENARIO_DIR = fileURLToPath(new URL('../e2e/sipp/', import.meta.url));

export type SippScenario =
  | 'answer'
  | 'answer-cn'
  | 'answer-hangup'
  | 'dtmf-1'
  | 'dtmf-2-then-1'
  | 'busy'
  | 'busy-slow'
  | 'decline'
  | 'unavailable'
  | 'service-unavailable'
  | 'provider-503'
  | 'provider-refuses'
  | 'provider-challenges'
  | 'provider-refuses-register'
  | 'progress-then-503'
  | 'ring-forever'
  | 'answer-number'
  | 'register';

export interface SippOptions {
  scenario: SippScenario;
  /** SIP port on 127.0.0.1. */
  port: number;
  /** RTP port (scenarios that play pcap audio); needs port+1..+3 free as well. */
  mediaPort?: number;
  /** Values for [key] placeholders in the scenario (-key NAME VALUE). */
  keys?: Record<string, string | number>;
  /** Calls to take before exiting (default 1). */
  calls?: number;
  /** SIPp quits after this many seconds whatever happens (default 60). */
  timeoutSec?: number;
  /** Files written to SIPp's working directory (e.g. pcap captures named by a scenario). */
  files?: Record<string, Buffer | string>;
  /** Client mode: SIPp starts the scenario towards this `host:port` (e.g. a REGISTER to Asterisk). */
  remote?: string;
  /** The user part of the scenario's [service] (-s), e.g. the SIP user a phone registers as. */
  service?: string;
  /** Digest credentials for the scenario's [authentication] (-au, -ap). */
  auth?: { username: string; password: string };
  /**
   * Text put in the scenario before SIPp reads it, e.g. `{ '@CODE@': '404' }`: what SIPp checks
   * when it loads a scenario (a response's status code) cannot come from a -key.
   */
  substitute?: Record<string, string | number>;
  /** Keep SIPp's log of every SIP message sent and received (-trace_msg), returned as `messages`. */
  traceMessages?: boolean;
}

export interface SippResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  successfulCalls: number | undefined;
  failedCalls: number | undefined;
  /** SIPp's last statistics screen and unexpected-message log, for failure messages. */
  screen: string;
  errors: string;
  output: string;
  /** SIPp's message log (with `traceMessages`), empty otherwise. */
  messages: string;
}

export interface SippPhone {
  port: number;
  /** Resolves when SIPp exits by itself (after `calls` calls or its timeout). */
  done: Promise<SippResult>;
  stop(): Promise<SippResult>;
  /** SIPp's message log as written so far (with `traceMessages`): a test can follow a call as it goes. */
  messagesSoFar(): Promise<string>;
}

export async function startSipp(options: SippOptions): Promise<SippPhone> {
  const dir = await mkdtemp(join(tmpdir(), 'rh-sipp-'));
  for (const [name, content] of Object.entries(options.files ?? {})) {
    await writeFile(join(dir, basename(name)), content);
  }
  let scenarioFile = join(SCENARIO_DIR, `${options.scenario}.xml`);
  if (options.substitute) {
    let text = await readFile(scenarioFile, 'utf8');
    for (const [token, value] of Object.entries(options.substitute)) text = text.replaceAll(token, String(value));
    scenarioFile = join(dir, `${options.scenario}.xml`);
    await writeFile(scenarioFile, text);
  }
  const args = [
    '-sf',
    scenarioFile,
    '-i',
    '127.0.0.1',
    '-p',
    String(options.port),
    '-m',
    String(options.calls ?? 1),
    '-timeout',
    `${options.timeoutSec ?? 60}s`,
    '-nostdin',
    '-trace_screen',
    '-screen_file',
    join(dir, 'screen.log'),
    '-trace_err',
    '-error_file',
    join(dir, 'errors.log'),
  ];
  // Its media ports from this process's port block (a fixed offset from the SIP port could land
  // on another file's ports, or in an Asterisk's RTP range).
  args.push('-mi', '127.0.0.1', '-mp', String(options.mediaPort ?? (await freeUdpPortPair())));
  for (const [k, v] of Object.entries(options.keys ?? {})) args.push('-key', k, String(v));
  if (options.service !== undefined) args.push('-s', options.service);
  if (options.auth) args.push('-au', options.auth.username, '-ap', options.auth.password);
  if (options.traceMessages) args.push('-trace_msg', '-message_file', join(dir, 'messages.log'));
  if (options.remote !== undefined) args.push(options.remote);

  const child = spawn('sipp', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  // SIPp's own -timeout did not always end a phone stuck mid-call: enforce it from here too.
  const killer = setTimeout(() => child.kill('SIGKILL'), ((options.timeoutSec ?? 60) + 5) * 1000);
  killer.unref();
  let output = '';
  const keep = (c: Buffer) => {
    output = (output + c.toString('utf8')).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const done = new Promise<SippResult>((resolve) => {
    const finish = async (exitCode: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(killer);
      running.delete(phone);
      const screen = await readFile(join(dir, 'screen.log'), 'utf8').catch(() => '');
      const errors = await readFile(join(dir, 'errors.log'), 'utf8').catch(() => '');
      const messages = await readFile(join(dir, 'messages.log'), 'utf8').catch(() => '');
      resolve({
        exitCode,
        signal,
        successfulCalls: lastCount(screen, 'Successful call'),
        failedCalls: lastCount(screen, 'Failed call'),
        screen,
        errors,
        output,
        messages,
      });
      await rm(dir, { recursive: true, force: true });
    };
    child.once('error', () => void finish(null, null));
    child.once('exit', (code, signal) => void finish(code, signal));
  });
  const phone: SippPhone = {
    port: options.port,
    done,
    messagesSoFar: () => readFile(join(dir, 'messages.log'), 'utf8').catch(() => ''),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGUSR1'); // SIPp: quit gracefully, like pressing q
        // Killed, it may lose what its message log had not written yet: a phone waiting for a core
        // (a loaded machine) is given 10 s to quit.
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        const result = await done;
        clearTimeout(timer);
        return result;
      }
      return done;
    },
  };
  running.add(phone);
  // A client may have finished before its port is seen bound: the caller awaits `done`.
  if (options.remote !== undefined) return phone;
  try {
    await waitUdpBound(options.port, 5_000, done);
  } catch (error) {
    await phone.stop();
    throw error;
  }
  return phone;
}

const running = new Set<SippPhone>();

/** Stops every SIPp still running (for afterEach: a failed test must not leave a phone behind). */
export async function stopAllSipp(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop()));
}

// "Successful call | 0 | 1": the cumulative count is the last number on the line.
function lastCount(screen: string, label: string): number | undefined {
  const lines = screen.split('\n').filter((l) => l.includes(label));
  const last = lines.at(-1);
  const m = last ? /(\d+)\s*$/.exec(last.trim()) : null;
  return m ? Number(m[1]) : undefined;
}

async function waitUdpBound(port: number, timeoutMs: number, exited: Promise<SippResult>): Promise<void> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let gone: SippResult | undefined;
  void exited.then((r) => (gone = r));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`sipp exited at start (${gone.exitCode}): ${gone.output.slice(-1000)}`);
    const table = await readFile('/proc/net/udp', 'utf8');
    if (table.split('\n').some((l) => l.trim().split(/\s+/)[1]?.endsWith(hex))) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`sipp did not bind UDP port ${port} within ${timeoutMs} ms`);
}
