// Listeners: HTTPS (listhen) for everyone, and an optional plain-HTTP port that answers
// "HTTPS is required" to everybody except trusted reverse proxies that say X-Forwarded-Proto: https.
import { answerPlainHttpOnTls } from './plain-on-tls.js';
import { STATUS_CODES, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Server as TlsServer } from 'node:tls';
import { listen, type Listener } from 'listhen';
import { UserError } from '../lib/errors.js';
import { ApiError } from './errors.js';
import type { Logger } from '../lib/log.js';
import type { AddressMatcher } from '../core/connections/address-match.js';
import { loadTls, saveSelfSigned, type TlsMaterial } from './tls.js';
import { makeSelfSigned } from './self-signed.js';
import { type ConnectionGuard, connectionGuard, connectionLimits } from './connection-guard.js';
import {
  CONNECTION_TIMEOUTS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  type ConnectionLimits,
  KEEP_ALIVE_MS,
} from '../core/connections/connection-caps.js';
import { acmePlainHttp } from './acme-challenge.js';

export interface ServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  httpPort: number | null;
  tls: { cert: string; key: string } | null;
  dataDir: string;
  trustProxy: AddressMatcher;
  /** Host names the self-signed certificate is made for. */
  certificateNames: string[];
  /** false: refuse to start without a configured certificate rather than make a self-signed one. */
  allowSelfSigned?: boolean;
  /** Caps on open connections (both listeners together) and their first timeouts; unset: core/connections/connection-caps.ts's defaults. */
  connections?: Partial<ConnectionLimits>;
  /**
   * ringhook's own certificate (ACME): the one to serve (null: none yet, a self-signed one until it
   * comes), and the HTTP-01 answers the plain-HTTP port gives, which sends everything else to HTTPS.
   */
  acme?: {
    certificate: TlsMaterial | null;
    answer: (token: string) => Promise<string | undefined>;
    publicOrigin: string;
  };
  logger: Logger;
}

export interface RunningServers {
  httpsPort: number;
  httpPort: number | null;
  selfSigned: boolean;
  /** Serves another certificate from the next handshake on; open connections keep theirs. */
  setCertificate(material: TlsMaterial): void;
  close(): Promise<void>;
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Only a trusted proxy may forward a request that reached it over HTTPS; everything else on plain HTTP is refused. */
export function plainHttpGate(trustProxy: AddressMatcher, handler: NodeHandler): NodeHandler {
  return (req, res) => {
    const proto = req.headers['x-forwarded-proto'];
    if (
      trustProxy.matches(req.socket.remoteAddress) &&
      typeof proto === 'string' &&
      proto.trim().toLowerCase() === 'https'
    ) {
      handler(req, res);
      return;
    }
    const error = new ApiError('https_required', 'HTTPS is required: use the https:// webhook URL.');
    res.writeHead(error.status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'close',
    });
    res.end(JSON.stringify(error.toBody()));
    req.resume();
  };
}

/** How long a self-signed certificate made here is valid (browsers cap a certificate's life at 825 days). */
const SELF_SIGNED_DAYS = 825;

/** Connections the kernel queues for accept (Linux caps it at net.core.somaxconn, 4096 by default). */
const LISTEN_BACKLOG = 4_096;

/**
 * Node listens with a queue of 511 connections waiting to be accepted, and listhen gives no way to
 * ask for more. In a flood that reconnects in bursts the queue overflows and the kernel drops new
 * connections' SYNs, a webhook's among them, which its client sends again only 1, 3, 7 s later. So
 * the queue is deepened: listen() again on the listening socket changes its backlog (Linux).
 */
function deepenBacklog(server: Server): void {
  (server as unknown as { _handle?: { listen?: (backlog: number) => number } })._handle?.listen?.(LISTEN_BACKLOG);
}

function hardenTimeouts(server: Server): void {
  // A sender that trickles its request is cut off (Node looks every 30 s, so within 15–45 s);
  // TradingView itself gives up after 3 s.
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  server.keepAliveTimeout = KEEP_ALIVE_MS;
}

/** What Node refuses before any handler sees the request, answered as every error is: in JSON. */
function clientErrorOf(error: NodeJS.ErrnoException): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new ApiError('headers_too_large');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError('request_timeout');
  return new ApiError('bad_request', `The request is malformed (${error.code ?? 'unreadable'}).`);
}

function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Gone, or an answer already on its way: nothing can be said.
    const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (error.code === 'ECONNRESET' || !socket.writable || answering) {
      socket.destroy();
      return;
    }
    const refusal = clientErrorOf(error);
    const body = JSON.stringify(refusal.toBody());
    // Written, then the connection destroyed, as Node's own answer does: ended only, a client that
    // keeps its side open would keep the socket for good, and could still finish its request.
    socket.write(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    socket.destroy();
  });
}

async function listenOn(
  handler: NodeHandler,
  options: {
    host: string;
    port: number;
    https: false | { cert: string; key: string };
  },
  what: string,
  guard: ConnectionGuard,
): Promise<Listener> {
  const port =
    options.port === 0
      ? { random: true }
      : {
          port: options.port,
          ports: [],
          portRange: [options.port, options.port] as [number, number],
          alternativePortRange: [options.port, options.port] as [number, number],
          random: false,
        };
  try {
    const listener = await listen(guard.gate(handler), {
      hostname: options.host,
      port,
      https: options.https,
      showURL: false,
      autoClose: false,
      isProd: true,
      public: !['localhost', '127.0.0.1', '::1'].includes(options.host),
      qr: false,
    });
    if (options.port !== 0 && listener.address.port !== options.port) {
      await listener.close();
      throw new Error(`port ${options.port} is not available`);
    }
    deepenBacklog(listener.server as Server);
    hardenTimeouts(listener.server as Server);
    answerClientErrors(listener.server as Server);
    if (options.https) answerPlainHttpOnTls(listener.server as TlsServer);
    guard.attach(listener.server as Server, options.https !== false);
    return listener;
  } catch (error) {
    const message = (error as Error).message;
    const fix =
      /EACCES/.test(message) && options.port < 1024
        ? 'a port below 1024 needs root or CAP_NET_BIND_SERVICE (systemd: AmbientCapabilities=CAP_NET_BIND_SERVICE; see docs/internet.md)'
        : 'choose another port or stop what uses it';
    throw new UserError(`cannot listen for ${what} on ${options.host}:${options.port}: ${message}; ${fix}`);
  }
}

export async function startServers(handler: NodeHandler, options: ServerOptions): Promise<RunningServers> {
  const acme = options.acme;
  const existing = acme?.certificate
    ? { material: acme.certificate, selfSigned: false }
    : loadTls(options.tls, options.dataDir);
  if (!options.tls && !acme && options.allowSelfSigned === false) {
    throw new UserError(
      'no TLS certificate is configured and RINGHOOK_SELF_SIGNED=off: set RINGHOOK_TLS_CERT and RINGHOOK_TLS_KEY to PEM files',
    );
  }
  const https = existing?.material ?? makeSelfSigned(options.certificateNames, SELF_SIGNED_DAYS);
  const { total, perAddress, ...timeouts } = options.connections ?? {};
  const limits = connectionLimits(
    { total, perAddress: perAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS },
    { ...CONNECTION_TIMEOUTS, ...timeouts },
  );
  // One guard for both listeners: together they hold at most the descriptor budget.
  const guard = connectionGuard({ limits, trustProxy: options.trustProxy, logger: options.logger });
  const secure = await listenOn(handler, { host: options.host, port: options.port, https }, 'HTTPS', guard);
  const selfSigned = existing?.selfSigned ?? true;
  if (!existing) {
    saveSelfSigned(options.dataDir, https);
    options.logger.info('made a self-signed TLS certificate', { names: options.certificateNames });
  }
  if (selfSigned && acme) {
    options.logger.info('serving a self-signed certificate until the ACME certificate arrives');
  } else if (selfSigned) {
    options.logger.warn(
      "serving HTTPS with a self-signed certificate: charting platforms such as TradingView need a certificate from a public CA. The short path: set RINGHOOK_ACME_DOMAIN to this server's public name (ringhook then gets and renews a free certificate itself); or set RINGHOOK_TLS_CERT and RINGHOOK_TLS_KEY, or put a reverse proxy with one in front",
    );
  }
  let plain: Listener | null = null;
  if (options.httpPort !== null) {
    try {
      const plainHandler = acme
        ? acmePlainHttp({
            answer: acme.answer,
            publicOrigin: acme.publicOrigin,
            trustProxy: options.trustProxy,
            handler,
            logger: options.logger,
          })
        : plainHttpGate(options.trustProxy, handler);
      plain = await listenOn(
        plainHandler,
        { host: options.host, port: options.httpPort, https: false },
        'plain HTTP',
        guard,
      );
    } catch (error) {
      await secure.close();
      throw error;
    }
  }
  return {
    httpsPort: secure.address.port,
    httpPort: plain ? plain.address.port : null,
    selfSigned,
    setCertificate(material) {
      (secure.server as TlsServer).setSecureContext({ cert: material.cert, key: material.key });
    },
    async close() {
      await Promise.all([secure.close(), plain?.close()]);
      guard.flush();
    },
  };
}
