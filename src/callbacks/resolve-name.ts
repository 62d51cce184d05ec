// Looks a callback's host name up in DNS, bounded in time. c-ares (dns.Resolver) asks the name
// servers itself over its own sockets and is cancelled at the deadline; the system's getaddrinfo
// (dns.lookup) would wait in libuv's thread pool (four threads that files, hashing and compression
// share) for as long as the system resolver keeps trying, and a name whose DNS never answers held
// a thread for 10 s per try. /etc/hosts is therefore not read; `localhost` names are loopback.
import { Resolver } from 'node:dns/promises';
import { isLocalhostName, LOCALHOST_ADDRESSES } from '../core/callbacks/callback-address.js';

export type Resolved = Array<{ address: string; family: number }>;

/** The name's addresses (IPv4 first), or a rejection with a DNS error code (ETIMEOUT at the deadline). */
export type ResolveName = (host: string, timeoutMs: number, signal?: AbortSignal) => Promise<Resolved>;

export interface ResolverOptions {
  /** Name servers (`address` or `address:port`) instead of /etc/resolv.conf's: the tests' DNS server. */
  servers?: readonly string[] | undefined;
}

/** A DNS error with its code, as dns.lookup gives one. */
function dnsError(code: string, host: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code} ${host}`), { code, hostname: host });
}

export function dnsResolver(options: ResolverOptions = {}): ResolveName {
  return async (host, timeoutMs, signal) => {
    if (isLocalhostName(host)) return [...LOCALHOST_ADDRESSES];
    if (signal?.aborted) throw dnsError('ECANCELLED', host);
    // One resolver per lookup: cancelling it at the deadline ends this lookup's queries and no other's.
    // Each query is sent again within the time (a lost UDP packet); the timer is the bound.
    const resolver = new Resolver({ timeout: Math.max(100, Math.floor(timeoutMs / 3)), tries: 3 });
    if (options.servers?.length) resolver.setServers([...options.servers]);
    let timedOut = false;
    const cancel = () => resolver.cancel();
    const timer = setTimeout(() => {
      timedOut = true;
      cancel();
    }, timeoutMs);
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
      const found: Resolved = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (found.length > 0) return found;
      if (timedOut) throw dnsError('ETIMEOUT', host);
      const failure = [v4, v6].find(
        (r): r is PromiseRejectedResult =>
          r.status === 'rejected' && (r.reason as NodeJS.ErrnoException).code !== 'ENODATA',
      );
      throw failure ? failure.reason : dnsError('ENODATA', host);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
    }
  };
}
