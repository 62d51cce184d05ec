// Holds the two listeners' connections, together, to the caps and timeouts of
// core/connection-caps.ts. Node keeps a connection that never completes its TLS handshake, or never
// sends a request, for good (the request timeouts start with a request): one client held 2,017 idle
// connections and real webhooks were refused for want of file descriptors; sixteen addresses that
// sent a request now and then held every slot with keep-alive. So every connection not in the middle
// of a request is kept in one list, longest idle first, and at the total cap the first of it makes
// room for a new one; under pressure keep-alive is cut short. Refusals, evictions and failed accepts
// (EMFILE) are logged one line a minute with a count.
import fs from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { throttleKey } from '../core/address-key.js';
import type { AddressMatcher } from '../core/address-match.js';
import {
  admission,
  type ConnectionLimits,
  defaultMaxConnections,
  descriptorsExhausted,
  type IdleConnection,
  keepAliveMs,
} from '../core/connection-caps.js';
import type { Logger } from '../lib/log.js';
import { refusalTally } from '../lib/refusal-tally.js';

interface Tracked {
  key: string;
  timer: NodeJS.Timeout | undefined;
  /** Requests under way on it (pipelined ones count each). */
  busy: number;
  served: boolean;
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
  timeouts: Pick<ConnectionLimits, 'handshakeMs' | 'firstRequestMs'>,
): ConnectionLimits {
  return {
    total: configured.total ?? defaultMaxConnections(openFileLimit()),
    perAddress: configured.perAddress,
    ...timeouts,
  };
}

export interface ConnectionGuard {
  /** Holds this listener's connections to the shared caps; `tls`: a connection has a handshake to complete first. */
  attach(server: Server, tls: boolean): void;
  /** Writes the counted refusals (at stop). */
  flush(): void;
}

// A TLS socket wraps the accepted one (its _parent).
const acceptedOf = (socket: Socket) => (socket as Socket & { _parent?: Socket })._parent ?? socket;

/** One guard for every listener: the caps count the connections of all of them together. */
export function connectionGuard(options: GuardOptions): ConnectionGuard {
  const { limits } = options;
  const tracked = new Map<Socket, Tracked>();
  const perAddress = new Map<string, number>();
  /** Connections not in the middle of a request, longest idle first (a Set keeps insertion order). */
  const idle = new Set<Socket>();
  const refusals = refusalTally(options.logger, 'connections refused');
  const evictions = refusalTally(options.logger, 'idle connections closed to make room');
  const acceptFailures = refusalTally(options.logger, 'cannot accept connections');
  // libuv answers EMFILE by accepting and closing the waiting connections itself, and tells Node
  // nothing: the descriptors in use are looked at instead, every few seconds and at each refusal.
  const limit = openFileLimit();
  let lastLook = 0;
  const lookAtDescriptors = () => {
    lastLook = Date.now();
    const open = openDescriptors(limit);
    if (open !== undefined && descriptorsExhausted(open, limit))
      acceptFailures.note('EMFILE', { open_files: open, limit, connections: tracked.size });
  };
  const watch = setInterval(lookAtDescriptors, 5_000).unref();
  const expire = (socket: Socket, entry: Tracked, ms: number) => {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => socket.destroy(), ms).unref();
  };
  /** Forgets a connection (at once, so that its slot counts as free before its close event). */
  const release = (socket: Socket) => {
    const entry = tracked.get(socket);
    if (!entry) return;
    if (entry.timer) clearTimeout(entry.timer);
    tracked.delete(socket);
    idle.delete(socket);
    const left = (perAddress.get(entry.key) ?? 1) - 1;
    if (left > 0) perAddress.set(entry.key, left);
    else perAddress.delete(entry.key);
  };
  function* idleOldestFirst(): Generator<IdleConnection<Socket>> {
    for (const socket of idle) yield { connection: socket, served: tracked.get(socket)?.served ?? false };
  }

  const onConnection = (tls: boolean) => (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const key = throttleKey(address);
    const decision = admission(
      { total: tracked.size, fromAddress: perAddress.get(key) ?? 0, addresses: perAddress.size },
      options.trustProxy.matches(address),
      limits,
      idleOldestFirst(),
    );
    if (!decision.admit) {
      if (Date.now() - lastLook > 1_000) lookAtDescriptors();
      refusals.note(decision.refusal, { address });
      socket.destroy();
      return;
    }
    if (decision.close) {
      evictions.note(tracked.get(decision.close)?.served ? 'kept alive' : 'before a request');
      release(decision.close);
      decision.close.destroy();
    }
    const entry: Tracked = { key, timer: undefined, busy: 0, served: false };
    tracked.set(socket, entry);
    idle.add(socket);
    perAddress.set(key, (perAddress.get(key) ?? 0) + 1);
    expire(socket, entry, tls ? limits.handshakeMs : limits.firstRequestMs);
    socket.once('close', () => release(socket));
  };

  const onRequest = (server: Server) => (req: IncomingMessage, res: ServerResponse) => {
    const accepted = acceptedOf(req.socket);
    const entry = tracked.get(accepted);
    if (!entry) return;
    entry.busy += 1;
    entry.served = true;
    idle.delete(accepted);
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    res.once('close', () => {
      entry.busy -= 1;
      if (entry.busy > 0 || tracked.get(accepted) !== entry || accepted.destroyed) return;
      // Idle again: to the end of the list, and under pressure cut short (Node's keep-alive otherwise).
      idle.add(accepted);
      const keepAlive = keepAliveMs(tracked.size, limits, Math.random());
      if (keepAlive < server.keepAliveTimeout) expire(accepted, entry, keepAlive);
    });
  };

  return {
    attach(server, tls) {
      server.on('connection', onConnection(tls));
      if (tls) {
        server.on('secureConnection', (socket: Socket) => {
          const entry = tracked.get(acceptedOf(socket));
          if (entry && entry.busy === 0 && !entry.served) expire(socket, entry, limits.firstRequestMs);
        });
      }
      server.on('request', onRequest(server));
      // A failed accept (EMFILE: out of file descriptors) is an 'error' of the listening server; the
      // client is reset. Told, counted, and the listener keeps listening.
      server.on('error', (error: NodeJS.ErrnoException) => {
        if (error.syscall === 'accept') acceptFailures.note(error.code ?? 'unknown', { error: error.message });
      });
    },
    flush() {
      clearInterval(watch);
      refusals.flush();
      evictions.flush();
      acceptFailures.flush();
    },
  };
}
