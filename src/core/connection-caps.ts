// How many connections the HTTPS (and plain HTTP) listener holds: each costs a file descriptor and
// memory (~30 KB for TLS), so one address, and everybody together, is capped, and a connection
// must complete its TLS handshake and then start a request within a few seconds. Pure.

export interface ConnectionLimits {
  /** All connections together (trusted proxies included): keeps file descriptors for the database, Asterisk and speech. */
  total: number;
  /** From one address (an IPv6 /64); trusted proxies, which carry everybody's requests, are not held to it. */
  perAddress: number;
  /** Time for the TLS handshake after the connection is accepted. */
  handshakeMs: number;
  /** Time from the connection ready (TLS done) until its first request has arrived; later requests: keep-alive's own timeout. */
  firstRequestMs: number;
}

export const CONNECTION_TIMEOUTS = { handshakeMs: 10_000, firstRequestMs: 10_000 } as const;
// TradingView sends every customer's alerts from 4 addresses: at a burst (1,000 alerts a second, each
// taking tens of milliseconds) one of them may hold ~50 connections at once; a NAT'd office's browsers
// hold ~7 each (6 plus a live stream).
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;
/** With no known limit of open files (or a huge one): at most this many connections. */
export const MAX_DEFAULT_CONNECTIONS = 4_096;

/** The total cap when none is configured: half the open-file limit (the rest for everything else), at least 64. */
export function defaultMaxConnections(openFileLimit: number | undefined): number {
  if (openFileLimit === undefined || !Number.isFinite(openFileLimit)) return MAX_DEFAULT_CONNECTIONS;
  return Math.max(64, Math.min(MAX_DEFAULT_CONNECTIONS, Math.floor(openFileLimit / 2)));
}

export interface OpenConnections {
  total: number;
  /** Open from the new connection's address. */
  fromAddress: number;
}

/** Which cap one more connection would exceed, or undefined when it may open. */
export function connectionRefusal(
  open: OpenConnections,
  trustedProxy: boolean,
  limits: Pick<ConnectionLimits, 'total' | 'perAddress'>,
): 'total' | 'perAddress' | undefined {
  if (!trustedProxy && open.fromAddress >= limits.perAddress) return 'perAddress';
  if (open.total >= limits.total) return 'total';
  return undefined;
}

/**
 * With every slot taken, a new connection (a webhook, say) is let in by closing the oldest one that
 * has not sent a request yet: such a connection loses nothing, whereas refusing the new one would
 * let a flood from many addresses shut everybody out for the 20 s of its timeouts.
 */
export function evictsForRoom(refusal: 'total' | 'perAddress' | undefined, waitingForFirstRequest: number): boolean {
  return refusal === 'total' && waitingForFirstRequest > 0;
}
