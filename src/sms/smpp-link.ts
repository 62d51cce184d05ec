// One SMPP transceiver session kept bound for the SMPP sender: bind, enquire_link keep-alive,
// reconnect with backoff, requests bounded by a timeout and failed at once when the session drops.

import { isIP } from 'node:net';
import type * as smpp from 'smpp';
import { backoffDelay } from '../core/backoff.js';
import type { Logger } from '../lib/log.js';
import type { SmppConfig } from '../config/index.js';
import { bindErrorRetryable, smppStatusName } from './smpp-params.js';

export interface LinkError {
  message: string;
  retryable: boolean;
}

export type BoundResult = { ok: true; session: smpp.Session } | { ok: false; error: LinkError };

export class RequestError extends Error {
  constructor(
    message: string,
    /** true when the request certainly never left (socket not writable). */
    readonly notSent: boolean,
  ) {
    super(message);
  }
}

export function describeSocketError(error: unknown): string {
  const e = error as { code?: string; message?: string };
  if (e?.code && e.message && !e.message.includes(e.code)) return `${e.code}: ${e.message}`;
  return e?.message ?? String(error);
}

/** One connection attempt: its session, whether it got bound, and the timer that gives up on it. */
interface BindAttempt {
  session: smpp.Session;
  bound: boolean;
  connectTimer: NodeJS.Timeout;
}

/** The connection: connect, bind_transceiver, keep alive, reconnect; requests with timeouts. */
export class SmppLink {
  state: 'down' | 'connecting' | 'bound' | 'closed' = 'down';
  private session: smpp.Session | null = null;
  /** Settles when the current session's socket has closed (created with it, so no close is missed). */
  private sessionClosed: Promise<void> = Promise.resolve();
  private lastError: LinkError | null = null;
  private failures = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private keepAliveTimer: NodeJS.Timeout | null = null;
  private readonly waiters = new Set<() => void>();
  private readonly pending = new Set<{ session: smpp.Session; fail: (e: RequestError) => void }>();

  constructor(
    private readonly cfg: SmppConfig,
    private readonly timeoutMs: number,
    private readonly connectFn: (options: smpp.SessionOptions) => smpp.Session,
    private readonly log: Logger,
    private readonly onDeliverSm: (pdu: smpp.PDU) => void,
  ) {}

  get where(): string {
    return `${this.cfg.tls ? 'smpps' : 'smpp'}://${this.cfg.systemId}@${this.cfg.host}:${this.cfg.port}`;
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  connectNow(): void {
    if (this.state !== 'down') return;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.state = 'connecting';
    const cfg = this.cfg;
    const session = this.connectFn({
      host: cfg.host,
      port: cfg.port,
      tls: cfg.tls,
      ...(cfg.tls ? { rejectUnauthorized: !cfg.tlsInsecure, ...(isIP(cfg.host) ? {} : { servername: cfg.host }) } : {}),
    });
    this.session = session;
    this.sessionClosed = new Promise<void>((resolve) => session.once('close', () => resolve()));
    const attempt: BindAttempt = {
      session,
      bound: false,
      connectTimer: setTimeout(() => {
        this.lastError = {
          message: `${this.where}: no bound session within ${cfg.connectTimeoutMs} ms`,
          retryable: true,
        };
        session.destroy();
      }, cfg.connectTimeoutMs),
    };
    session.on('error', (error: unknown) => {
      this.lastError = { message: `${this.where}: ${describeSocketError(error)}`, retryable: true };
      session.destroy();
    });
    session.on('close', () => this.onSessionClosed(attempt));
    session.on('deliver_sm', (pdu: smpp.PDU) => {
      session.send(pdu.response());
      this.onDeliverSm(pdu);
    });
    session.on('enquire_link', (pdu: smpp.PDU) => {
      session.send(pdu.response());
    });
    session.on('unbind', (pdu: smpp.PDU) => {
      this.lastError = { message: `${this.where}: the SMSC unbound the session`, retryable: true };
      session.send(pdu.response());
      session.close();
    });
    session.on(cfg.tls ? 'secureConnect' : 'connect', () => this.bind(attempt));
  }

  /** bind_transceiver on a connected session: bound and kept alive, or refused and destroyed. */
  private bind(attempt: BindAttempt): void {
    const { session } = attempt;
    session.bind_transceiver(
      {
        system_id: this.cfg.systemId,
        password: this.cfg.password,
        system_type: this.cfg.systemType,
        interface_version: 0x34,
        addr_ton: 0,
        addr_npi: 0,
        address_range: '',
      },
      (pdu) => {
        clearTimeout(attempt.connectTimer);
        if (this.session !== session) return;
        if (pdu.command_status === 0) {
          attempt.bound = true;
          this.state = 'bound';
          this.failures = 0;
          this.lastError = null;
          this.startKeepAlive(session);
          this.log.info('smpp bound', { where: this.where });
          this.notify();
          return;
        }
        const retryable = bindErrorRetryable(pdu.command_status);
        this.lastError = {
          message: `${this.where}: bind_transceiver refused: ${smppStatusName(pdu.command_status)}`,
          retryable,
        };
        this.log.error('smpp bind refused', {
          where: this.where,
          status: pdu.command_status,
          error: this.lastError.message,
        });
        session.destroy();
      },
    );
  }

  /** The session's socket closed: its requests fail at once, and a link not closed on purpose reconnects. */
  private onSessionClosed(attempt: BindAttempt): void {
    const { session } = attempt;
    clearTimeout(attempt.connectTimer);
    if (this.session !== session) return;
    this.session = null;
    this.stopKeepAlive();
    for (const p of [...this.pending])
      if (p.session === session) p.fail(new RequestError('SMPP connection closed before the answer', false));
    if (attempt.bound) this.log.warn('smpp session lost', { where: this.where, error: this.lastError?.message });
    if (this.state === 'closed') return;
    this.state = 'down';
    if (!this.lastError) this.lastError = { message: `${this.where}: connection closed by the SMSC`, retryable: true };
    this.notify();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.state === 'closed' || this.reconnectTimer) return;
    this.failures++;
    const delay = backoffDelay(this.failures, { initialMs: this.cfg.reconnectMinMs, maxMs: this.cfg.reconnectMaxMs });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connectNow();
    }, delay);
    this.reconnectTimer.unref();
  }

  private startKeepAlive(session: smpp.Session): void {
    this.stopKeepAlive();
    this.keepAliveTimer = setInterval(() => {
      this.request(session, 'enquire_link', {}).catch((error: RequestError) => {
        if (this.session !== session) return;
        this.lastError = { message: `${this.where}: enquire_link unanswered (${error.message})`, retryable: true };
        this.log.warn('smpp keep-alive failed, reconnecting', { where: this.where });
        session.destroy();
      });
    }, this.cfg.enquireLinkMs);
    this.keepAliveTimer.unref();
  }

  private stopKeepAlive(): void {
    if (this.keepAliveTimer) clearInterval(this.keepAliveTimer);
    this.keepAliveTimer = null;
  }

  /** The bound session, connecting at once if needed; fails with the reason of the attempt that failed. */
  whenBound(): Promise<BoundResult> {
    if (this.state === 'bound' && this.session) return Promise.resolve({ ok: true, session: this.session });
    if (this.state === 'closed')
      return Promise.resolve({ ok: false, error: { message: 'SMS sender is closed', retryable: true } });
    // A sender waiting: skip the rest of the reconnect pause.
    if (this.state === 'down') this.connectNow();
    return new Promise((resolve) => {
      const done = (r: BoundResult) => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(r);
      };
      const waiter = () => {
        if (this.state === 'bound' && this.session) done({ ok: true, session: this.session });
        else if (this.state !== 'connecting')
          done({ ok: false, error: this.lastError ?? { message: `${this.where}: not bound`, retryable: true } });
      };
      const timer = setTimeout(
        () =>
          done({
            ok: false,
            error: this.lastError ?? {
              message: `${this.where}: no bound session within ${this.cfg.connectTimeoutMs} ms`,
              retryable: true,
            },
          }),
        this.cfg.connectTimeoutMs + 100,
      );
      this.waiters.add(waiter);
    });
  }

  request(
    session: smpp.Session,
    command: 'submit_sm' | 'enquire_link' | 'unbind',
    params: Record<string, unknown>,
  ): Promise<smpp.PDU> {
    return new Promise((resolve, reject) => {
      const entry = {
        session,
        fail: (e: RequestError) => {
          clearTimeout(timer);
          this.pending.delete(entry);
          reject(e);
        },
      };
      const timer = setTimeout(
        () => entry.fail(new RequestError(`no ${command}_resp within ${this.timeoutMs} ms`, false)),
        this.timeoutMs,
      );
      this.pending.add(entry);
      const written = session[command](params, (pdu) => {
        clearTimeout(timer);
        this.pending.delete(entry);
        resolve(pdu);
      });
      if (!written) entry.fail(new RequestError('SMPP connection is not writable', true));
    });
  }

  async close(): Promise<void> {
    const session = this.session;
    const closed = this.sessionClosed;
    const wasBound = this.state === 'bound';
    this.state = 'closed';
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.stopKeepAlive();
    this.notify();
    if (!session) return;
    if (wasBound)
      await this.request(session, 'unbind', {}).catch((error: Error) => {
        // The session is closed below either way; the SMSC sees the connection end.
        this.log.debug('smpp unbind not answered', { where: this.where, error: error.message });
      });
    const timer = setTimeout(() => session.destroy(), 1_000);
    session.close();
    await closed;
    clearTimeout(timer);
  }
}
