// One POST of a status callback, and only to an address the SSRF rule lets it reach: the name is
// resolved once, every address it gives is checked (core/callbacks/callback-address), and the connection is
// pinned to the checked address (a second lookup, DNS rebinding, cannot move it). Redirects are not
// followed; the whole exchange, the lookup included, is bounded in time (the lookup by its own
// shorter bound too: resolve-name).
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressMatcher } from '../core/connections/address-match.js';
import { callbackAddressRefusal, unmapAddress } from '../core/callbacks/callback-address.js';
import { CALLBACK_DNS_TIMEOUT_MS } from '../core/callbacks/callback-retry.js';
import { dnsResolver, type ResolveName } from './resolve-name.js';

export interface PostDeps {
  allow: AddressMatcher;
  /** The try's whole time: the lookup, the connection and the answer. */
  timeoutMs: number;
  /** Extra certificate authorities to trust (tests' self-signed receivers); unset: the system's list. */
  ca?: string | undefined;
  /** Resolves a name to its addresses within a time; DNS (resolve-name) by default. */
  resolve?: ResolveName | undefined;
  /** Ends the try at once (the service stops): it fails as not answered. */
  signal?: AbortSignal | undefined;
}

export type PostResult =
  | { kind: 'answered'; status: number; body: string; address: string }
  /** Never sent: the URL or its addresses are not allowed. */
  | { kind: 'refused'; reason: string }
  /** Sent or tried, no HTTP answer: the name not found, connection refused, TLS, timeout. */
  | { kind: 'failed'; reason: string; address?: string };

const MAX_ANSWER_BYTES = 4096;

const systemResolve = dnsResolver();

/** The address to connect to, or why none may be (`unresolved`: DNS gave no answer in time, or none). */
export async function pickAddress(
  host: string,
  deps: Pick<PostDeps, 'allow' | 'resolve' | 'signal'> & { dnsTimeoutMs?: number },
): Promise<{ address: string; family: number } | { refused: string } | { unresolved: string }> {
  const bare = host.replace(/^\[|\]$/g, '');
  let found: Array<{ address: string; family: number }>;
  if (isIP(bare) !== 0) found = [{ address: bare, family: isIP(bare) }];
  else {
    const timeoutMs = deps.dnsTimeoutMs ?? CALLBACK_DNS_TIMEOUT_MS;
    try {
      found = await (deps.resolve ?? systemResolve)(bare, timeoutMs, deps.signal);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'DNS error';
      if (code === 'ETIMEOUT' || code === 'ECANCELLED')
        return { unresolved: `${bare}: DNS gave no answer within ${timeoutMs / 1000} s` };
      return { unresolved: `${bare} does not resolve (${code})` };
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
  const deadline = Date.now() + deps.timeoutMs;
  const picked = await pickAddress(target.hostname, {
    ...deps,
    dnsTimeoutMs: Math.min(CALLBACK_DNS_TIMEOUT_MS, deps.timeoutMs),
  });
  if ('refused' in picked) return { kind: 'refused', reason: picked.refused };
  if ('unresolved' in picked) return { kind: 'failed', reason: picked.unresolved };
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
      Math.max(0, deadline - Date.now()),
    );
    const stop = () => req.destroy(new Error('not answered before ringhook stopped'));
    if (deps.signal?.aborted) stop();
    else deps.signal?.addEventListener('abort', stop, { once: true });
    req.on('close', () => deps.signal?.removeEventListener('abort', stop));
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
