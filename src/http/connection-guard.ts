// Holds the two listeners' connections, together, to the caps and timeouts of
// core/connections/connection-caps.ts. Node keeps a connection that never completes its TLS handshake, or never
// sends a request, for good (the request timeouts start with a request): one client held 2,017 idle
// connections and real webhooks were refused for want of file descriptors; sixteen addresses that
// sent a request now and then held every slot with keep-alive. So every connection not in the middle
// of a request is kept in one list, longest idle first, and at the total cap the first of it makes
// room for a new one; under pressure keep-alive is cut short. Node has no send timeout either: a
// client that sends requests and never reads the answers held its connection, and every answer
// queued on it, for good (3,584 connections, 250 MB unsent, no webhook let in). So a connection
// with an answer under way is looked at every second: one whose client took none of it for 2 s is a
// slow reader, closed first to make room, and for 30 s (longer for a large answer) is closed; and a
// connection takes at most 4 requests ahead of its answers. Refusals, closings and failed accepts (EMFILE) are logged one line
// a minute with a count.
import fs from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { throttleKey } from '../core/connections/address-key.js';
import type { AddressMatcher } from '../core/connections/address-match.js';
import {
  admission,
  type ConnectionLimits,
  defaultMaxConnections,
  descriptorsExhausted,
  type AnswerBytes,
  type IdleConnection,
  KEEP_ALIVE_MS,
  keepAliveMs,
  pipelinedTooDeep,
  sendState,
  tookSome,
} from '../core/connections/connection-caps.js';
import type { Logger } from '../lib/log.js';
import { ApiError } from './errors.js';
import { type RefusalTally, refusalTally } from '../lib/refusal-tally.js';

interface Tracked {
  key: string;
  timer: NodeJS.Timeout | undefined;
  /** Requests under way on it (pipelined ones count each). */
  busy: number;
  served: boolean;
  /** The socket the answers are written to (TLS: the TLS socket over the accepted one). */
  stream: Socket | undefined;
  /** The answers' bytes at the last look, and when the client last took some. */
  bytes: AnswerBytes;
  takenAt: number;
}

/** The soft limit of open files (Linux: /proc/self/limits), or undefined where unknown. */
export function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'))?.[1];
    return line === undefined || line === 'unlimited' ? undefined : Number(line);
  } catch {
    return undefined;
  }
}

/** Descriptors open in this process (Linux: /proc/self/fd), or undefined where unknown. */
function openDescriptors(limit: number | undefined): number | undefined {
  try {
    return fs.readdirSync('/proc/self/fd').length;
  } catch (error) {
    // Listing them takes a descriptor too: none left is the answer.
    return (error as NodeJS.ErrnoException).code === 'EMFILE' ? limit : undefined;
  }
}

export interface GuardOptions {
  limits: ConnectionLimits;
  trustProxy: AddressMatcher;
  logger: Logger;
}

/** The limits with the total cap from the open-file limit when none is configured. */
export function connectionLimits(
  configured: { total: number | undefined; perAddress: number },
  timeouts: Pick<ConnectionLimits, 'handshakeMs' | 'firstRequestMs' | 'sendTimeoutMs' | 'minSendRate'>,
): ConnectionLimits {
  return {
    total: configured.total ?? defaultMaxConnections(openFileLimit()),
    perAddress: configured.perAddress,
    ...timeouts,
  };
}

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ConnectionGuard {
  /** Holds this listener's connections to the shared caps; `tls`: a connection has a handshake to complete first. */
  attach(server: Server, tls: boolean): void;
  /** The listener's request handler, given only the requests a connection may have under way. */
  gate(handler: RequestHandler): RequestHandler;
  /** Writes the counted refusals (at stop). */
  flush(): void;
}

// A TLS socket wraps the accepted one (its _parent).
const acceptedOf = (socket: Socket) => (socket as Socket & { _parent?: Socket })._parent ?? socket;

/**
 * Where a connection's answers stand: libuv's queue on the accepted TCP socket (under TLS, the
 * encrypted bytes) is what the kernel has not taken; the stream's completed writes what it has.
 */
function answerBytes(accepted: Socket, stream: Socket): AnswerBytes {
  const queued = (accepted as Socket & { _handle?: { writeQueueSize?: number } })._handle?.writeQueueSize ?? 0;
  // bytesWritten counts every byte handed to write(), completed or not; writableLength those not completed.
  const completed = (stream.bytesWritten ?? 0) - stream.writableLength;
  return { waiting: queued + stream.writableLength, completed };
}

/** One guard for every listener: the caps count the connections of all of them together. */
export function connectionGuard(options: GuardOptions): ConnectionGuard {
  return new Guard(options);
}

class Guard implements ConnectionGuard {
  private readonly limits: ConnectionLimits;
  private readonly tracked = new Map<Socket, Tracked>();
  private readonly perAddress = new Map<string, number>();
  /** Connections not in the middle of a request, longest idle first (a Set keeps insertion order). */
  private readonly idle = new Set<Socket>();
  /** Connections with an answer under way, and those of them whose client takes none of it, longest first. */
  private readonly sending = new Set<Socket>();
  private readonly slowReaders = new Set<Socket>();
  private readonly refusals: RefusalTally;
  private readonly evictions: RefusalTally;
  private readonly sendTimeouts: RefusalTally;
  private readonly pipelined: RefusalTally;
  private readonly acceptFailures: RefusalTally;
  private readonly sendWatch: NodeJS.Timeout;
  // libuv answers EMFILE by accepting and closing the waiting connections itself, and tells Node
  // nothing: the descriptors in use are looked at instead, every few seconds and at each refusal.
  private readonly fileLimit = openFileLimit();
  private lastLook = 0;
  private readonly watch: NodeJS.Timeout;

  constructor(private readonly options: GuardOptions) {
    this.limits = options.limits;
    this.refusals = refusalTally(options.logger, 'connections refused');
    this.evictions = refusalTally(options.logger, 'connections closed to make room');
    this.sendTimeouts = refusalTally(options.logger, 'connections closed: the client read none of the answer');
    this.pipelined = refusalTally(options.logger, 'requests refused: too many sent ahead on one connection');
    this.acceptFailures = refusalTally(options.logger, 'cannot accept connections');
    this.watch = setInterval(() => this.lookAtDescriptors(), 5_000).unref();
    this.sendWatch = setInterval(() => this.lookAtAnswers(), 1_000).unref();
  }

  attach(server: Server, tls: boolean): void {
    server.on('connection', (socket: Socket) => this.onConnection(socket, tls));
    if (tls) {
      server.on('secureConnection', (socket: Socket) => {
        const entry = this.tracked.get(acceptedOf(socket));
        if (entry && entry.busy === 0 && !entry.served) this.expire(socket, entry, this.limits.firstRequestMs);
      });
    }
    // A failed accept (EMFILE: out of file descriptors) is an 'error' of the listening server; the
    // client is reset. Told, counted, and the listener keeps listening.
    server.on('error', (error: NodeJS.ErrnoException) => {
      if (error.syscall === 'accept') this.acceptFailures.note(error.code ?? 'unknown', { error: error.message });
    });
  }

  gate(handler: RequestHandler): RequestHandler {
    return (req, res) => {
      if (this.onRequest(req, res)) handler(req, res);
    };
  }

  flush(): void {
    clearInterval(this.watch);
    clearInterval(this.sendWatch);
    this.refusals.flush();
    this.evictions.flush();
    this.sendTimeouts.flush();
    this.pipelined.flush();
    this.acceptFailures.flush();
  }

  /** Which answers under way move, which wait on a client that takes none (slow readers), and which waited too long. */
  private lookAtAnswers(): void {
    const now = Date.now();
    for (const accepted of this.sending) {
      const entry = this.tracked.get(accepted);
      const stream = entry?.stream;
      if (!entry || !stream) continue;
      const bytes = answerBytes(accepted, stream);
      if (tookSome(entry.bytes, bytes)) entry.takenAt = now;
      entry.bytes = bytes;
      const state = sendState({ unsent: bytes.waiting, sinceProgressMs: now - entry.takenAt }, this.limits);
      if (state === 'timed out') {
        this.sendTimeouts.note('send timeout', { address: accepted.remoteAddress, unsent: bytes.waiting });
        this.close(accepted);
      } else if (state === 'slow') this.slowReaders.add(accepted);
      else this.slowReaders.delete(accepted);
    }
  }

  private close(accepted: Socket): void {
    const stream = this.tracked.get(accepted)?.stream;
    this.release(accepted);
    stream?.destroy();
    accepted.destroy();
  }

  private lookAtDescriptors(): void {
    this.lastLook = Date.now();
    const open = openDescriptors(this.fileLimit);
    if (open !== undefined && descriptorsExhausted(open, this.fileLimit))
      this.acceptFailures.note('EMFILE', { open_files: open, limit: this.fileLimit, connections: this.tracked.size });
  }

  private expire(socket: Socket, entry: Tracked, ms: number): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => socket.destroy(), ms).unref();
  }

  /** Forgets a connection (at once, so that its slot counts as free before its close event). */
  private release(socket: Socket): void {
    const entry = this.tracked.get(socket);
    if (!entry) return;
    if (entry.timer) clearTimeout(entry.timer);
    this.tracked.delete(socket);
    this.idle.delete(socket);
    this.sending.delete(socket);
    this.slowReaders.delete(socket);
    const left = (this.perAddress.get(entry.key) ?? 1) - 1;
    if (left > 0) this.perAddress.set(entry.key, left);
    else this.perAddress.delete(entry.key);
  }

  private *idleOldestFirst(): Generator<IdleConnection<Socket>> {
    for (const socket of this.idle) yield { connection: socket, served: this.tracked.get(socket)?.served ?? false };
  }

  private evictionKind(socket: Socket): string {
    if (this.slowReaders.has(socket)) return 'slow reader';
    return this.tracked.get(socket)?.served ? 'kept alive' : 'before a request';
  }

  private onConnection(socket: Socket, tls: boolean): void {
    const address = socket.remoteAddress ?? '';
    const key = throttleKey(address);
    const decision = admission(
      { total: this.tracked.size, fromAddress: this.perAddress.get(key) ?? 0, addresses: this.perAddress.size },
      this.options.trustProxy.matches(address),
      this.limits,
      this.idleOldestFirst(),
      this.slowReaders,
    );
    if (!decision.admit) {
      if (Date.now() - this.lastLook > 1_000) this.lookAtDescriptors();
      this.refusals.note(decision.refusal, { address });
      socket.destroy();
      return;
    }
    if (decision.close) {
      this.evictions.note(this.evictionKind(decision.close));
      this.close(decision.close);
    }
    const entry: Tracked = {
      key,
      timer: undefined,
      busy: 0,
      served: false,
      stream: undefined,
      bytes: { waiting: 0, completed: 0 },
      takenAt: 0,
    };
    this.tracked.set(socket, entry);
    this.idle.add(socket);
    this.perAddress.set(key, (this.perAddress.get(key) ?? 0) + 1);
    this.expire(socket, entry, tls ? this.limits.handshakeMs : this.limits.firstRequestMs);
    socket.once('close', () => this.release(socket));
  }

  /** Counts the request under way; false: refused (answered here), not for the handler. */
  private onRequest(req: IncomingMessage, res: ServerResponse): boolean {
    const accepted = acceptedOf(req.socket);
    const entry = this.tracked.get(accepted);
    if (!entry) return true;
    entry.busy += 1;
    entry.served = true;
    if (!entry.stream) entry.stream = req.socket;
    if (entry.busy === 1) {
      entry.bytes = answerBytes(accepted, req.socket);
      entry.takenAt = Date.now();
    }
    this.idle.delete(accepted);
    this.sending.add(accepted);
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    res.once('close', () => {
      entry.busy -= 1;
      if (entry.busy > 0 || this.tracked.get(accepted) !== entry || accepted.destroyed) return;
      // Idle again: to the end of the list, and under pressure cut short (Node's keep-alive otherwise).
      this.sending.delete(accepted);
      this.slowReaders.delete(accepted);
      this.idle.add(accepted);
      const keepAlive = keepAliveMs(this.tracked.size, this.limits, Math.random());
      if (keepAlive < KEEP_ALIVE_MS) this.expire(accepted, entry, keepAlive);
    });
    if (!pipelinedTooDeep(entry.busy)) return true;
    // Answered in its turn, behind the answers before it, without the handler: what a client sends
    // ahead costs a few hundred bytes, not an answer each. The connection is kept: closed, a flood
    // opens another at once, and its TLS handshakes cost more than its slot (a slow reader's goes
    // to the next fresh connection that needs it, or at the send timeout).
    this.pipelined.note('sent ahead', { address: accepted.remoteAddress });
    const refusal = new ApiError('too_many_pipelined');
    res.writeHead(refusal.status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    });
    res.end(JSON.stringify(refusal.toBody()));
    req.resume();
    return false;
  }
}
