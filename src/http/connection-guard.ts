// Holds the listener's connections to the caps and timeouts of core/connection-caps.ts. Node keeps
// a connection that never completes its TLS handshake, or never sends a request, for good (the
// request timeouts start with a request): one client held 2,017 idle connections and real webhooks
// were refused for want of file descriptors. When every slot is taken, the oldest connection that
// has sent no request yet makes room for a new one. Refusals are logged one line a minute with a count.
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { throttleKey } from '../core/address-key.js';
import {
  connectionRefusal,
  defaultMaxConnections,
  evictsForRoom,
  type ConnectionLimits,
} from '../core/connection-caps.js';
import type { Logger } from '../lib/log.js';
import { refusalTally } from '../lib/refusal-tally.js';
import type { AddressMatcher } from '../core/address-match.js';

interface Tracked {
  key: string;
  timer: NodeJS.Timeout | undefined;
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

/** `tls`: the server is HTTPS, so a connection has a handshake to complete before its first request. */
export function guardConnections(server: Server, tls: boolean, options: GuardOptions): void {
  const { limits } = options;
  const tracked = new Map<Socket, Tracked>();
  const perAddress = new Map<string, number>();
  /** Connections that have not sent a request yet, oldest first. */
  const waiting = new Set<Socket>();
  const refusals = refusalTally(options.logger, 'connections refused');
  const evictions = refusalTally(options.logger, 'idle connections closed to make room');
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
    waiting.delete(socket);
    const left = (perAddress.get(entry.key) ?? 1) - 1;
    if (left > 0) perAddress.set(entry.key, left);
    else perAddress.delete(entry.key);
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const key = throttleKey(address);
    const refused = connectionRefusal(
      { total: tracked.size, fromAddress: perAddress.get(key) ?? 0 },
      options.trustProxy.matches(address),
      limits,
    );
    if (evictsForRoom(refused, waiting.size)) {
      const oldest = waiting.values().next().value as Socket;
      evictions.note('total');
      release(oldest);
      oldest.destroy();
    } else if (refused) {
      refusals.note(refused, { address });
      socket.destroy();
      return;
    }
    const entry: Tracked = { key, timer: undefined };
    tracked.set(socket, entry);
    waiting.add(socket);
    perAddress.set(key, (perAddress.get(key) ?? 0) + 1);
    expire(socket, entry, tls ? limits.handshakeMs : limits.firstRequestMs);
    socket.once('close', () => release(socket));
  });

  // A TLS socket wraps the accepted one (its _parent).
  const acceptedOf = (socket: Socket) => (socket as Socket & { _parent?: Socket })._parent ?? socket;
  if (tls) {
    server.on('secureConnection', (socket: Socket) => {
      const entry = tracked.get(acceptedOf(socket));
      if (entry) expire(socket, entry, limits.firstRequestMs);
    });
  }
  server.on('request', (req: { socket: Socket }) => {
    const accepted = acceptedOf(req.socket);
    const entry = tracked.get(accepted);
    if (entry && waiting.delete(accepted)) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.timer = undefined;
    }
  });
  server.on('close', () => {
    refusals.flush();
    evictions.flush();
  });
}
