// One POST of a status callback, and only to an address the SSRF rule lets it reach: the name is
// resolved once, every address it gives is checked (core/callback-address), and the connection is
// pinned to the checked address (a second lookup, DNS rebinding, cannot move it). Redirects are not
// followed; the whole exchange is bounded in time.
import { lookup as dnsLookup } from 'node:dns/promises';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressMatcher } from '../core/address-match.js';
import { callbackAddressRefusal, unmapAddress } from '../core/callback-address.js';

export interface PostDeps {
  allow: AddressMatcher;
  timeoutMs: number;
  /** Extra certificate authorities to trust (tests' self-signed receivers); unset: the system's list. */
  ca?: string | undefined;
  /** Resolves a name to its addresses; the system resolver by default. */
  resolve?: (host: string) => Promise<Array<{ address: string; family: number }>>;
}

export type PostResult =
  | { kind: 'answered'; status: number; body: string; address: string }
  /** Never sent: the URL or its addresses are not allowed. */
  | { kind: 'refused'; reason: string }
  /** Sent or tried, no HTTP answer: connection refused, TLS, timeout. */
  | { kind: 'failed'; reason: string; address?: string };

const MAX_ANSWER_BYTES = 4096;

const systemResolve = (host: string) => dnsLookup(host, { all: true, verbatim: true });

/** The address to connect to, or why none may be. */
export async function pickAddress(
  host: string,
  deps: Pick<PostDeps, 'allow' | 'resolve'>,
): Promise<{ address: string; family: number } | { refused: string }> {
  const bare = host.replace(/^\[|\]$/g, '');
  let found: Array<{ address: string; family: number }>;
  if (isIP(bare) !== 0) found = [{ address: bare, family: isIP(bare) }];
  else {
    try {
      found = await (deps.resolve ?? systemResolve)(bare);
    } catch (error) {
      return { refused: `${bare} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'DNS error'})` };
    }
  }
  if (found.length === 0) return { refused: `${bare} has no address` };
  // One address of the name in a forbidden range refuses the name: it may be tried by a rebinding.
  for (const { address } of found) {
    const refusal = callbackAddressRefusal(address, deps.allow);
    if (refusal) return { refused: `${bare} resolves to ${refusal}` };
  }
  const first = found[0]!;
  const plain = unmapAddress(first.address);
  return { address: plain, family: isIP(plain) };
}

export async function postCallback(
  url: string,
  headers: Record<string, string>,
  body: string,
  deps: PostDeps,
): Promise<PostResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { kind: 'refused', reason: 'the callback URL is not a URL' };
  }
  if (target.protocol !== 'https:') return { kind: 'refused', reason: 'the callback URL must be https://' };
  const picked = await pickAddress(target.hostname, deps);
  if ('refused' in picked) return { kind: 'refused', reason: picked.refused };
  const { address, family } = picked;
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: unknown[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const hostname = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise<PostResult>((resolve) => {
    const req = https.request(
      target,
      {
        method: 'POST',
        agent: false,
        lookup: pinned,
        ...(isIP(hostname) === 0 && { servername: hostname }),
        ...(deps.ca && { ca: deps.ca }),
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8').slice(0, MAX_ANSWER_BYTES);
          resolve({ kind: 'answered', status: res.statusCode ?? 0, body: text, address });
        });
        res.on('error', (error) => finish(error));
      },
    );
    const finish = (error: Error) => {
      clearTimeout(timer);
      resolve({ kind: 'failed', reason: error.message, address });
    };
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${deps.timeoutMs / 1000} s`)),
      deps.timeoutMs,
    );
    // The pinned lookup decides the address; this check says so again on the socket itself.
    req.on('socket', (socket) =>
      socket.once('connect', () => {
        const remote = socket.remoteAddress;
        if (remote && unmapAddress(remote) !== address)
          req.destroy(new Error(`connected to ${remote}, not the checked ${address}`));
      }),
    );
    req.on('error', finish);
    req.end(body);
  });
}
