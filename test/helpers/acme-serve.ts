// `ringhook serve` as a real process for the certificate tests, and a TLS client that checks what
// it serves as a client on the internet would: the name in SNI, only the authority's root trusted.
import tls from 'node:tls';
import { type ServeChild, startServeChild } from './serve-child.js';

export const NAMES = ['alerts.ringhook.test', 'www.ringhook.test'];

export type Serve = ServeChild;

const serves: ServeChild[] = [];

export async function startServe(env: Record<string, string>): Promise<Serve> {
  const serve = await startServeChild({ env, startTimeoutMs: 30_000 });
  serves.push(serve);
  return serve;
}

export async function stopServes(): Promise<void> {
  for (const serve of serves.splice(0)) await serve.stop();
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
