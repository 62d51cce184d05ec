// How many connections the two listeners (HTTPS and plain HTTP) hold together: each costs a file
// descriptor and memory (~30 KB for TLS), so one address, and everybody together, is capped, and a
// connection must complete its TLS handshake and then start a request within a few seconds. Near the
// cap, as nginx and HAProxy do, connections that are idle (between requests, or before their first)
// make room for new ones, oldest first, and keep-alive is shortened. Pure.

export interface ConnectionLimits {
  /** All connections of both listeners together (trusted proxies included): the descriptor budget. */
  total: number;
  /** From one address (an IPv6 /64); trusted proxies, which carry everybody's requests, are not held to it. */
  perAddress: number;
  /** Time for the TLS handshake after the connection is accepted. */
  handshakeMs: number;
  /** Time from the connection ready (TLS done) until its first request has arrived; later requests: keep-alive's own timeout. */
  firstRequestMs: number;
  /** Time an answer may wait, none of it taken by the client, before its connection is closed (a send timeout). */
  sendTimeoutMs: number;
  /** Bytes a second the send timeout grows by for each byte waiting (see sendState). */
  minSendRate: number;
}

// nginx's send_timeout is 60 s between two writes; ringhook's answers are small (a page, an asset, a
// WAV sample of at most 5 MB), so a client that takes none of one for 30 s is not reading.
// A large answer is one write, which completes only once the kernel has taken all of it (Node shows
// nothing in between): so the time grows with what waits, as if read at 64 KiB/s (a 5 MB WAV: 110 s).
export const CONNECTION_TIMEOUTS = {
  handshakeMs: 10_000,
  firstRequestMs: 10_000,
  sendTimeoutMs: 30_000,
  minSendRate: 64 * 1024,
} as const;
// TradingView sends every customer's alerts from 4 addresses: at a burst (1,000 alerts a second, each
// taking tens of milliseconds) one of them may hold ~50 connections at once; a NAT'd office's browsers
// hold ~7 each (6 plus a live stream). An IPv6 subscriber is given a whole /64, so a /64 counts as
// one address, with the same cap.
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;
/** With no known limit of open files (or a huge one): at most this many connections. */
export const MAX_DEFAULT_CONNECTIONS = 4_096;
/**
 * Descriptors kept out of the listeners' budget: the database pool (10), Asterisk's ARI socket and
 * its event stream, the SMS gateways' binds, SQLite and its journal, WAV files being written and
 * read, speech programs' pipes, log files, and Node's own (~30). An eighth of the limit, at least 256.
 */
export function descriptorHeadroom(openFileLimit: number): number {
  return Math.max(256, Math.floor(openFileLimit / 8));
}

/** The total cap when none is configured: the open-file limit less the headroom, between 64 and 4096. */
export function defaultMaxConnections(openFileLimit: number | undefined): number {
  if (openFileLimit === undefined || !Number.isFinite(openFileLimit)) return MAX_DEFAULT_CONNECTIONS;
  return Math.max(64, Math.min(MAX_DEFAULT_CONNECTIONS, openFileLimit - descriptorHeadroom(openFileLimit)));
}

export interface OpenConnections {
  total: number;
  /** Open from the new connection's address. */
  fromAddress: number;
  /** Addresses with connections open (for the fair share at the total cap); unset: no share applies. */
  addresses?: number;
}

/** Which cap one more connection would exceed, or undefined when it may open. */
/** Open descriptors within this many of the limit: the process is about to fail to accept (EMFILE). */
export const DESCRIPTORS_LOW = 16;

/** Whether the open descriptors leave too few for the next accepts, files and sockets. */
export function descriptorsExhausted(openDescriptors: number, openFileLimit: number | undefined): boolean {
  return openFileLimit !== undefined && openDescriptors >= openFileLimit - DESCRIPTORS_LOW;
}

export function connectionRefusal(
  open: OpenConnections,
  trustedProxy: boolean,
  limits: Pick<ConnectionLimits, 'total' | 'perAddress'>,
): 'total' | 'perAddress' | undefined {
  if (!trustedProxy && open.fromAddress >= limits.perAddress) return 'perAddress';
  if (open.total >= limits.total) return 'total';
  return undefined;
}

/** A connection that is not in the middle of a request, as the listeners know it. */
export interface IdleConnection<T> {
  connection: T;
  /** Has sent a request already (kept alive between requests) or not yet. */
  served: boolean;
}

export type Admission<T> =
  | { admit: true; close: T | undefined }
  | { admit: false; refusal: 'total' | 'perAddress' | 'share' };

/** At the total cap: does this address hold its share already (the average of the addresses open)? */
function holdsItsShare(open: OpenConnections, trustedProxy: boolean): boolean {
  if (trustedProxy || open.fromAddress === 0 || open.addresses === undefined || open.addresses === 0) return false;
  return open.fromAddress >= open.total / open.addresses;
}

/**
 * Whether a new connection opens, and which one is closed to make room for it. Over its own
 * address's cap it is refused (never let in at another's expense). At the total cap the connection
 * idle the longest is closed, whether it is kept alive between requests or has sent none yet: it
 * loses nothing (a client opens another when it has something to send), whereas refusing the new
 * one would let a flood from many addresses, each holding its connections with a request now and
 * then, shut everybody else out. But an address that holds its share already (as many as the average
 * address) is refused: a flood's reconnections then cost an accept and a close each, not a TLS
 * handshake and another's connection, and the slots go to addresses with fewer. Refused also when
 * every connection is in the middle of a request. A slow reader (an answer waiting on a client that
 * takes none of it: see sendState) is closed before any idle one: it holds a slot and serve's memory
 * for a client that is not reading, and a real one opens another when it wants to. Both lists are
 * read only as far as the first entry.
 */
export function admission<T>(
  open: OpenConnections,
  trustedProxy: boolean,
  limits: Pick<ConnectionLimits, 'total' | 'perAddress'>,
  idleOldestFirst: Iterable<IdleConnection<T>>,
  slowReadersLongestFirst: Iterable<T> = [],
): Admission<T> {
  const refusal = connectionRefusal(open, trustedProxy, limits);
  if (refusal === undefined) return { admit: true, close: undefined };
  if (refusal === 'perAddress') return { admit: false, refusal };
  if (holdsItsShare(open, trustedProxy)) return { admit: false, refusal: 'share' };
  for (const slow of slowReadersLongestFirst) return { admit: true, close: slow };
  for (const idle of idleOldestFirst) return { admit: true, close: idle.connection };
  return { admit: false, refusal };
}

/** Keep-alive between requests while connections are few, as Node's own timeout gives it. */
export const KEEP_ALIVE_MS = 65_000;
/** Keep-alive between requests when the listeners are more than half full. */
export const KEEP_ALIVE_UNDER_PRESSURE_MS = 30_000;

/**
 * How long a connection that has just finished a request may stay idle: under pressure (more than
 * half the total taken) it is cut short, so a flood that renews its connections with a request now
 * and then loses them between requests, and idle slots come free without waiting for evictions.
 * Spread over the upper half of the time (`random` in [0, 1)): connections a flood opened together
 * would otherwise all close together and come back together, and their TLS handshakes, hundreds at
 * once, hold everybody else's (a webhook's) for a second.
 */
export function keepAliveMs(total: number, limits: Pick<ConnectionLimits, 'total'>, random = 0): number {
  if (total * 2 <= limits.total) return KEEP_ALIVE_MS;
  return Math.round(KEEP_ALIVE_UNDER_PRESSURE_MS * (0.5 + random / 2));
}

/**
 * Requests one connection may have under way at once, its answers not yet sent: HTTP/1.1 lets a
 * client send requests ahead (pipelining), and each one's answer waits in serve's memory until the
 * client has read the ones before. Browsers send one at a time; a client that sends 20 and reads
 * none held 20 answers a connection.
 */
export const MAX_REQUESTS_UNDER_WAY = 4;

/** Whether a request that would make `underWay` requests under way on its connection is refused. */
export function pipelinedTooDeep(underWay: number): boolean {
  return underWay > MAX_REQUESTS_UNDER_WAY;
}

/** An answer's bytes stuck this long (none taken by the client) make its connection a slow reader. */
export const SLOW_READER_MS = 2_000;

/** What a connection's answers have got to, at one look. */
export interface AnswerBytes {
  /** Written but not yet taken by the kernel: the client's window and the socket's buffer are full. */
  waiting: number;
  /** Bytes whose write has completed, all answers of the connection together (only grows). */
  completed: number;
}

/**
 * Whether the client took some of its answers since the last look. Nothing waiting counts as taken.
 * A single large write completes only once the kernel has taken all of it, so less waiting counts too.
 */
export function tookSome(before: AnswerBytes, now: AnswerBytes): boolean {
  return now.waiting === 0 || now.completed > before.completed || now.waiting < before.waiting;
}

export interface Sending {
  /** Bytes of the answer not yet taken by the kernel (the client's window and the socket buffers are full). */
  unsent: number;
  /** Since the client last took any of it (or since the bytes were written). */
  sinceProgressMs: number;
}

/**
 * Where an answer under way stands: 'flowing' (nothing waits, or the client took some lately), 'slow'
 * (bytes waiting, none taken for SLOW_READER_MS: the first connection closed to make room), 'timed
 * out' (none taken for the send timeout, and as long again as the bytes waiting take at the minimum
 * rate: closed). Node has no send timeout of its own: such an answer
 * held its connection, and the answers pipelined behind it, for good.
 */
export function sendState(
  sending: Sending,
  limits: Pick<ConnectionLimits, 'sendTimeoutMs' | 'minSendRate'>,
): 'flowing' | 'slow' | 'timed out' {
  if (sending.unsent === 0) return 'flowing';
  if (sending.sinceProgressMs >= limits.sendTimeoutMs + (sending.unsent * 1000) / limits.minSendRate)
    return 'timed out';
  if (sending.sinceProgressMs >= SLOW_READER_MS) return 'slow';
  return 'flowing';
}
