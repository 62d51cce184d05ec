// A real Kannel on loopback for the SMS tests: bearerbox + smsbox (the sendsms HTTP gateway) and
// fakesmsc (Kannel's fake SMS centre, which logs every message it gets on stderr). Everything runs
// from a temp dir on free ports; stop() ends exactly the processes started here.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeTcpPort } from './ports.js';
import { waitFor } from './wait.js';

const FAKESMSC = '/usr/lib/kannel/test/fakesmsc';
const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';
const ENSURE = fileURLToPath(new URL('../../scripts/ensure-sms-peers.sh', import.meta.url));

export function ensureSmsPeers(): void {
  if (existsSync(FAKESMSC) && existsSync(BEARERBOX) && existsSync(SMSBOX) && existsSync('/usr/share/perl5/Net/SMPP.pm'))
    return;
  execFileSync('bash', [ENSURE], { stdio: 'inherit' });
}

/** A TCP port from this test process's own block (test/helpers/ports.ts). */
export const freePort = freeTcpPort;

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** One message as fakesmsc printed it: `Got message N: <FROM TO [udh UDH] (text|data|ucs-2) CONTENT>`. */
export interface FakeSmscMessage {
  from: string;
  to: string;
  udh: Buffer | null;
  kind: 'text' | 'data' | 'ucs-2';
  bytes: Buffer;
  /** The content decoded: UTF-16BE for ucs-2, UTF-8 otherwise (Kannel hands 7-bit text over as UTF-8). */
  text: string;
}

/** Kannel's octstr_url_encode: %XX for bytes, '+' for space. */
function urlDecodeBytes(s: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
      out.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === '+') out.push(0x20);
    else out.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(out);
}

export function parseFakesmscLine(line: string): FakeSmscMessage | null {
  const m = /Got message \d+: <(.*)>\s*$/.exec(line);
  if (!m) return null;
  const body = m[1]!;
  const tokens = body.split(' ');
  const [from, to] = tokens;
  let rest = tokens.slice(2);
  let udh: Buffer | null = null;
  if (rest[0] === 'udh') {
    udh = urlDecodeBytes(rest[1] ?? '');
    rest = rest.slice(2);
  }
  const kind = rest[0] as FakeSmscMessage['kind'];
  const content = rest.slice(1).join(' ');
  let bytes: Buffer;
  if (kind === 'text') bytes = Buffer.from(content, 'utf8');
  else bytes = urlDecodeBytes(content);
  const text = kind === 'ucs-2' ? Buffer.from(bytes).swap16().toString('utf16le') : bytes.toString('utf8');
  return { from: from ?? '', to: to ?? '', udh, kind, bytes, text };
}

/**
 * Joins concatenated parts (UDH IEI 0x00: ref, total, seq) into whole texts, in arrival order.
 * fakesmsc prints parts that carry a UDH as "data" whatever their coding, so the caller says
 * whether they hold UCS-2.
 */
export function reassemble(
  messages: FakeSmscMessage[],
  options: { udhPartsAreUcs2?: boolean } = {},
): { from: string; to: string; text: string; parts: number; kind: string }[] {
  const out: { from: string; to: string; text: string; parts: number; kind: string }[] = [];
  const groups = new Map<string, FakeSmscMessage[]>();
  for (const msg of messages) {
    const udh = msg.udh;
    if (!udh || udh.length < 6 || udh[1] !== 0x00) {
      out.push({ from: msg.from, to: msg.to, text: msg.text, parts: 1, kind: msg.kind });
      continue;
    }
    const [ref, total] = [udh[3]!, udh[4]!];
    const key = `${msg.to}/${ref}`;
    const list = groups.get(key) ?? [];
    list.push(msg);
    groups.set(key, list);
    if (list.length === total) {
      list.sort((a, b) => a.udh![5]! - b.udh![5]!);
      // Decode after joining: a UCS-2 surrogate pair may straddle two parts in other senders.
      const joined = Buffer.concat(list.map((p) => p.bytes));
      const text =
        msg.kind === 'ucs-2' || options.udhPartsAreUcs2
          ? Buffer.from(joined).swap16().toString('utf16le')
          : joined.toString('utf8');
      out.push({ from: msg.from, to: msg.to, text, parts: total, kind: msg.kind });
      groups.delete(key);
    }
  }
  return out;
}

export interface KannelPeer {
  /** sendsms URL with the test user's credentials (or others, to test a rejection). */
  sendsmsUrl(username?: string, password?: string): string;
  readonly sendsmsPort: number;
  readonly username: string;
  readonly password: string;
  /** Every message fakesmsc has printed so far. */
  messages(): FakeSmscMessage[];
  /** Waits until fakesmsc has printed at least `count` messages in total. */
  waitForMessages(count: number, timeoutMs?: number): Promise<FakeSmscMessage[]>;
  /** Stops smsbox (the HTTP side) only: the sendsms port then refuses connections. */
  stopSmsbox(): Promise<void>;
  stop(): Promise<void>;
  /** Everything the three processes wrote, for a failing test's message. */
  logs(): string;
}

function startProcess(cmd: string, args: string[], cwd: string, onLine: (line: string) => void): ChildProcess {
  const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let buf = '';
  const feed = (chunk: Buffer) => {
    buf += chunk.toString('utf8');
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      onLine(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  };
  child.stdout!.on('data', feed);
  child.stderr!.on('data', feed);
  return child;
}

async function stopProcess(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}

export async function startKannel(): Promise<KannelPeer> {
  ensureSmsPeers();
  const dir = mkdtempSync(join(tmpdir(), 'ringhook-kannel-'));
  const [adminPort, boxPort, smscPort, sendsmsPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const username = 'ringhook';
  const password = 'kannel-test-secret';
  const adminPassword = 'admin-test';
  const conf = join(dir, 'kannel.conf');
  writeFileSync(
    conf,
    `group = core
admin-port = ${adminPort}
admin-password = ${adminPassword}
admin-interface = 127.0.0.1
admin-allow-ip = 127.0.0.1
smsbox-port = ${boxPort}
smsbox-interface = 127.0.0.1
box-allow-ip = 127.0.0.1
log-level = 0
log-file = "${dir}/bearerbox.log"
dlr-storage = internal

group = smsc
smsc = fake
smsc-id = fake
port = ${smscPort}
our-host = 127.0.0.1
connect-allow-ip = 127.0.0.1

group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = ${boxPort}
sendsms-port = ${sendsmsPort}
sendsms-interface = 127.0.0.1
log-level = 0
log-file = "${dir}/smsbox.log"

group = sendsms-user
username = ${username}
password = ${password}
concatenation = true
max-messages = 10

group = sms-service
keyword = default
text = "ringhook test: no service"
`,
  );

  const logLines: string[] = [];
  const received: FakeSmscMessage[] = [];
  const log = (who: string) => (line: string) => {
    logLines.push(`[${who}] ${line}`);
    if (logLines.length > 5_000) logLines.shift();
  };
  let bearerbox: ChildProcess | null = null;
  let smsbox: ChildProcess | null = null;
  let fakesmsc: ChildProcess | null = null;
  const stopAll = async () => {
    await stopProcess(fakesmsc);
    await stopProcess(smsbox);
    await stopProcess(bearerbox);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    bearerbox = startProcess(BEARERBOX, [conf], dir, log('bearerbox'));
    await waitFor('bearerbox smsbox-port', async () => ((await portOpen(boxPort)) ? true : undefined));
    smsbox = startProcess(SMSBOX, [conf], dir, log('smsbox'));
    await waitFor('smsbox sendsms-port', async () => ((await portOpen(sendsmsPort)) ? true : undefined));
    await waitFor('fake smsc port', async () => ((await portOpen(smscPort)) ? true : undefined));
    fakesmsc = startProcess(
      FAKESMSC,
      ['-H', '127.0.0.1', '-r', String(smscPort), '-i', '0.1', '-m', '0', '1 2 text unused'],
      dir,
      (line) => {
        log('fakesmsc')(line);
        const msg = parseFakesmscLine(line);
        if (msg) received.push(msg);
      },
    );
    const statusUrl = `http://127.0.0.1:${adminPort}/status.txt?password=${adminPassword}`;
    await waitFor('fakesmsc online and smsbox connected', async () => {
      const text = await fetch(statusUrl).then(
        (r) => r.text(),
        () => '',
      );
      return /FAKE:\d+ \(online/.test(text) && /smsbox:.*on-line/.test(text) ? true : undefined;
    });
  } catch (error) {
    const tail = logLines.slice(-40).join('\n');
    await stopAll();
    throw new Error(`Kannel did not start: ${(error as Error).message}\n${tail}`);
  }

  return {
    sendsmsPort,
    username,
    password,
    sendsmsUrl: (u = username, p = password) =>
      `http://127.0.0.1:${sendsmsPort}/cgi-bin/sendsms?username=${encodeURIComponent(u)}&password=${encodeURIComponent(p)}`,
    messages: () => [...received],
    waitForMessages: (count, timeoutMs = 10_000) =>
      waitFor(
        `${count} message(s) at fakesmsc (got ${received.length})`,
        () => (received.length >= count ? [...received] : undefined),
        timeoutMs,
      ),
    stopSmsbox: async () => {
      await stopProcess(smsbox);
      smsbox = null;
    },
    stop: stopAll,
    logs: () => logLines.join('\n'),
  };
}
