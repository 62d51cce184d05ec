// `ringhook serve` as a real process for the certificate tests, and a TLS client that checks what
// it serves as a client on the internet would: the name in SNI, only the authority's root trusted.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import tls from 'node:tls';
import { REPO_ROOT } from './cli.js';

export const NAMES = ['alerts.ringhook.test', 'www.ringhook.test'];

export interface Serve {
  child: ChildProcess;
  output: () => string;
  waitFor: (text: string | RegExp, timeoutMs: number) => Promise<void>;
}

const serves: ChildProcess[] = [];

export function startServe(env: Record<string, string>): Promise<Serve> {
  let output = '';
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'ringhook.js'), 'serve'], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  serves.push(child);
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const waitFor = async (text: string | RegExp, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!(typeof text === 'string' ? output.includes(text) : text.test(output))) {
      if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`no "${text}" within ${timeoutMs} ms:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return waitFor('ringhook is listening', 30_000).then(() => ({ child, output: () => output, waitFor }));
}

export async function stopServes(): Promise<void> {
  for (const child of serves.splice(0)) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

/** A TLS connection as a client on the internet makes it: the name in SNI, Pebble's root as the only trust. */
export function connect(port: number, root: string, servername = NAMES[0]!): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, ca: root }, () => resolve(socket));
    socket.once('error', reject);
  });
}

export async function servedSerial(port: number, root: string): Promise<{ serial: string; names: string }> {
  const socket = await connect(port, root);
  const peer = socket.getPeerCertificate();
  socket.destroy();
  return { serial: peer.serialNumber, names: peer.subjectaltname ?? '' };
}
