// Runs test/helpers/smpp-server.pl (an SMSC built on Perl's Net::SMPP, independent of the npm
// `smpp` package) on loopback and collects the JSON events it prints.

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureSmsPeers } from './kannel.js';
import { waitFor } from './wait.js';

const SCRIPT = fileURLToPath(new URL('./smpp-server.pl', import.meta.url));

export interface SmscEvent {
  event: string;
  [field: string]: unknown;
}

export interface SmscOptions {
  /** 0 (default): any free port. Give the port of a stopped server to restart it in place. */
  port?: number;
  systemId?: string;
  password?: string;
  /** Answer ESME_RTHROTTLED to the first N submit_sm of each connection. */
  throttle?: number;
  receiptStat?: string;
  receiptDelayS?: number;
  noReceipts?: boolean;
  /** Answer every submit_sm with this command_status (e.g. 0x45 ESME_RSUBMITFAIL). */
  rejectStatus?: number;
  /** Read a submit_sm, report it (as `message`), then close the connection without answering. */
  dropOnSubmit?: boolean;
  /** Seconds to wait before answering each submit_sm. */
  submitDelayS?: number;
}

export interface Smsc {
  readonly port: number;
  readonly systemId: string;
  readonly password: string;
  url(password?: string): string;
  events(): SmscEvent[];
  /** Waits for an event (among all, or those after index `from`) matching the predicate. */
  waitForEvent(pred: (e: SmscEvent) => boolean, options?: { from?: number; timeoutMs?: number }): Promise<SmscEvent>;
  stop(): Promise<void>;
  stderr(): string;
}

export async function startSmsc(options: SmscOptions = {}): Promise<Smsc> {
  ensureSmsPeers();
  const systemId = options.systemId ?? 'ringhook';
  const password = options.password ?? 'smsc-secret';
  const args = [SCRIPT, '--port', String(options.port ?? 0), '--system-id', systemId, '--password', password];
  if (options.throttle) args.push('--throttle', String(options.throttle));
  if (options.receiptStat) args.push('--receipt-stat', options.receiptStat);
  if (options.receiptDelayS !== undefined) args.push('--receipt-delay', String(options.receiptDelayS));
  if (options.noReceipts) args.push('--no-receipts');
  if (options.rejectStatus !== undefined) args.push('--reject-status', `0x${options.rejectStatus.toString(16)}`);
  if (options.dropOnSubmit) args.push('--drop-on-submit');
  if (options.submitDelayS !== undefined) args.push('--submit-delay', String(options.submitDelayS));
  const child: ChildProcess = spawn('perl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const events: SmscEvent[] = [];
  let err = '';
  let buf = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buf += chunk.toString('utf8');
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        events.push(JSON.parse(line) as SmscEvent);
      } catch {
        err += `unparsable line: ${line}\n`;
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const waitForEvent: Smsc['waitForEvent'] = (pred, o = {}) =>
    waitFor(
      `SMSC event (${events.length} so far; stderr: ${err.slice(-300)})`,
      () => events.slice(o.from ?? 0).find(pred),
      o.timeoutMs ?? 10_000,
      20,
    );

  let listening: SmscEvent;
  try {
    listening = await waitForEvent((e) => e.event === 'listening', { timeoutMs: 5_000 });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const port = Number(listening.port);
  return {
    port,
    systemId,
    password,
    url: (pw = password) => `smpp://${encodeURIComponent(systemId)}:${encodeURIComponent(pw)}@127.0.0.1:${port}`,
    events: () => [...events],
    waitForEvent,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // The script passes SIGTERM on to the processes it forked for each connection.
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
