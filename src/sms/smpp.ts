// SmsSender over SMPP 3.4 (npm `smpp`): one transceiver session kept bound (enquire_link
// keep-alive, reconnect with backoff), submit_sm with GSM 7-bit / UCS-2 and concatenation or
// message_payload, bounded waits on ESME_RTHROTTLED, delivery receipts matched to message ids.

import { randomInt } from 'node:crypto';
import { isIP } from 'node:net';
import * as smpp from 'smpp';
import { backoffDelay } from '../core/backoff.js';
import type { Logger } from '../lib/log.js';
import type { SmppConfig } from '../config/sms.js';
import { createReportHub, receiptIdForms, smppReceiptReport } from './delivery.js';
import { sleep as realSleep, type Sleep } from '../lib/sleep.js';
import { withRetry } from './retry.js';
import { planSmppParts, type SmppPart } from './segments.js';
import { bindErrorRetryable, destinationAddress, smppStatusName, sourceAddress, THROTTLE_STATUSES } from './smpp-params.js';
import type { DeliveryReport, DeliveryStatus, SmsCheck, SmsRequest, SmsResult, SmsSender } from './types.js';

export interface SmppSenderOptions {
  smpp: SmppConfig;
  from: string;
  timeoutMs: number;
  retryAttempts: number;
  retryDelayMs: number;
}

export interface SmppSenderDeps {
  logger: Logger;
  sleep?: Sleep;
  /** Opens an SMPP session; defaults to the `smpp` package's connect. */
  connect?: (options: smpp.SessionOptions) => smpp.Session;
  /** The 8-bit concatenation reference of a long message. */
  randomByte?: () => number;
}

interface LinkError {
  message: string;
  retryable: boolean;
}

type BoundResult = { ok: true; session: smpp.Session } | { ok: false; error: LinkError };

class RequestError extends Error {
  constructor(
    message: string,
    /** true when the request certainly never left (socket not writable). */
    readonly notSent: boolean,
  ) {
    super(message);
  }
}

function describeSocketError(error: unknown): string {
  const e = error as { code?: string; message?: string };
  if (e?.code && e.message && !e.message.includes(e.code)) return `${e.code}: ${e.message}`;
  return e?.message ?? String(error);
}

/** The connection: connect, bind_transceiver, keep alive, reconnect; requests with timeouts. */
class SmppLink {
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
    let bound = false;
    const connectTimer = setTimeout(() => {
      this.lastError = { message: `${this.where}: no bound session within ${cfg.connectTimeoutMs} ms`, retryable: true };
      session.destroy();
    }, cfg.connectTimeoutMs);

    session.on('error', (error: unknown) => {
      this.lastError = { message: `${this.where}: ${describeSocketError(error)}`, retryable: true };
      session.destroy();
    });
    session.on('close', () => {
      clearTimeout(connectTimer);
      if (this.session !== session) return;
      this.session = null;
      this.stopKeepAlive();
      for (const p of [...this.pending]) if (p.session === session) p.fail(new RequestError('SMPP connection closed before the answer', false));
      if (bound) this.log.warn('smpp session lost', { where: this.where, error: this.lastError?.message });
      if (this.state === 'closed') return;
      this.state = 'down';
      if (!this.lastError) this.lastError = { message: `${this.where}: connection closed by the SMSC`, retryable: true };
      this.notify();
      this.scheduleReconnect();
    });
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
    session.on(cfg.tls ? 'secureConnect' : 'connect', () => {
      session.bind_transceiver(
        {
          system_id: cfg.systemId,
          password: cfg.password,
          system_type: cfg.systemType,
          interface_version: 0x34,
          addr_ton: 0,
          addr_npi: 0,
          address_range: '',
        },
        (pdu) => {
          clearTimeout(connectTimer);
          if (this.session !== session) return;
          if (pdu.command_status === 0) {
            bound = true;
            this.state = 'bound';
            this.failures = 0;
            this.lastError = null;
            this.startKeepAlive(session);
            this.log.info('smpp bound', { where: this.where });
            this.notify();
            return;
          }
          const retryable = bindErrorRetryable(pdu.command_status);
          this.lastError = { message: `${this.where}: bind_transceiver refused: ${smppStatusName(pdu.command_status)}`, retryable };
          this.log.error('smpp bind refused', { where: this.where, status: pdu.command_status, error: this.lastError.message });
          session.destroy();
        },
      );
    });
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
    if (this.state === 'closed') return Promise.resolve({ ok: false, error: { message: 'SMS sender is closed', retryable: true } });
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
        else if (this.state !== 'connecting') done({ ok: false, error: this.lastError ?? { message: `${this.where}: not bound`, retryable: true } });
      };
      const timer = setTimeout(
        () =>
          done({ ok: false, error: this.lastError ?? { message: `${this.where}: no bound session within ${this.cfg.connectTimeoutMs} ms`, retryable: true } }),
        this.cfg.connectTimeoutMs + 100,
      );
      this.waiters.add(waiter);
    });
  }

  request(session: smpp.Session, command: 'submit_sm' | 'enquire_link' | 'unbind', params: Record<string, unknown>): Promise<smpp.PDU> {
    return new Promise((resolve, reject) => {
      const entry = {
        session,
        fail: (e: RequestError) => {
          clearTimeout(timer);
          this.pending.delete(entry);
          reject(e);
        },
      };
      const timer = setTimeout(() => entry.fail(new RequestError(`no ${command}_resp within ${this.timeoutMs} ms`, false)), this.timeoutMs);
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
    if (wasBound) await this.request(session, 'unbind', {}).catch(() => undefined);
    const timer = setTimeout(() => session.destroy(), 1_000);
    session.close();
    await closed;
    clearTimeout(timer);
  }
}

interface Tracked {
  messageId: string;
  total: number;
  delivered: Set<string>;
}

const MAX_TRACKED = 10_000;

export function createSmppSmsSender(options: SmppSenderOptions, deps: SmppSenderDeps): SmsSender {
  const cfg = options.smpp;
  const sleep = deps.sleep ?? realSleep;
  const randomByte = deps.randomByte ?? (() => randomInt(0, 256));
  const log = deps.logger.child({ component: 'sms', gateway: 'smpp' });
  const hub = createReportHub((error) => log.error('delivery report listener failed', { error }));
  const source = sourceAddress(options.from, cfg.sourceTon, cfg.sourceNpi);
  /** gateway id of each part → the message it belongs to. */
  const tracked = new Map<string, Tracked>();

  function onDeliverSm(pdu: smpp.PDU): void {
    const esm = Number(pdu.esm_class ?? 0);
    const kind = esm & 0x3c;
    if (kind !== 0x04 && kind !== 0x20) {
      log.info('smpp deliver_sm that is not a receipt ignored', { esm_class: esm });
      return;
    }
    const sm = pdu.short_message as { message?: unknown } | Buffer | undefined;
    const text = Buffer.isBuffer(sm) ? sm.toString('latin1') : typeof sm?.message === 'string' ? sm.message : '';
    const receipt = smppReceiptReport({
      text,
      receiptedMessageId: typeof pdu.receipted_message_id === 'string' ? pdu.receipted_message_id : undefined,
      messageState: typeof pdu.message_state === 'number' ? pdu.message_state : undefined,
    });
    if (!receipt) {
      log.warn('smpp receipt not understood', { text: text.slice(0, 200) });
      return;
    }
    const trackedId = receiptIdForms(receipt.gatewayId).find((id) => tracked.has(id));
    const t = trackedId === undefined ? undefined : tracked.get(trackedId);
    if (!t) {
      hub.emit({ messageId: receipt.gatewayId, status: receipt.status, detail: receipt.detail });
      return;
    }
    let status: DeliveryStatus | null = receipt.status;
    if (receipt.status === 'delivered') {
      t.delivered.add(trackedId!);
      status = t.delivered.size >= t.total ? 'delivered' : null;
    }
    if (status === 'delivered' || status === 'failed') {
      for (const [id, other] of tracked) if (other === t) tracked.delete(id);
    }
    if (status) {
      const report: DeliveryReport = { messageId: t.messageId, status, detail: t.total > 1 ? `${receipt.detail} (${t.total} parts)` : receipt.detail };
      log.info('sms delivery report', { ...report });
      hub.emit(report);
    }
  }

  const link = new SmppLink(cfg, options.timeoutMs, deps.connect ?? ((o) => smpp.connect(o)), log, onDeliverSm);
  link.connectNow();

  function submitParams(to: string, part: SmppPart): Record<string, unknown> {
    const dest = destinationAddress(to, cfg.destTon, cfg.destNpi);
    return {
      service_type: '',
      source_addr_ton: source.ton,
      source_addr_npi: source.npi,
      source_addr: source.addr,
      dest_addr_ton: dest.ton,
      dest_addr_npi: dest.npi,
      destination_addr: dest.addr,
      esm_class: part.esmClass,
      registered_delivery: cfg.deliveryReceipts ? 1 : 0,
      data_coding: part.dataCoding,
      short_message: part.shortMessage,
      ...(part.messagePayload ? { message_payload: part.messagePayload } : {}),
    };
  }

  /** Starts following the receipts of a message; each part's id is added as the SMSC accepts it. */
  function startTracking(total: number): { add(id: string): void; drop(): void } {
    const t: Tracked = { messageId: '', total, delivered: new Set() };
    const ids: string[] = [];
    return {
      add(id) {
        if (!cfg.deliveryReceipts) return;
        if (!t.messageId) t.messageId = id;
        ids.push(id);
        tracked.set(id, t);
        while (tracked.size > MAX_TRACKED) tracked.delete(tracked.keys().next().value!);
      },
      drop() {
        for (const id of ids) tracked.delete(id);
      },
    };
  }

  async function send(req: SmsRequest): Promise<SmsResult> {
    let parts: SmppPart[];
    try {
      parts = planSmppParts(req.text, { usePayload: cfg.usePayload, concatReference: randomByte() });
    } catch (error) {
      return { status: 'failed', error: (error as Error).message };
    }
    const started = Date.now();
    const failed = (error: string): SmsResult => ({ status: 'failed', error });
    const result = await withRetry(options.retryAttempts, options.retryDelayMs, sleep, async (attempt) => {
      const bound = await link.whenBound();
      if (!bound.ok) {
        log.warn('smpp not bound', { reference: req.reference, attempt, error: bound.error.message });
        return { done: false, retry: bound.error.retryable, value: failed(bound.error.message) };
      }
      const ids: string[] = [];
      // Receipts can arrive before the last part is even submitted: follow each id at once.
      const tracking = startTracking(parts.length);
      for (const [i, part] of parts.entries()) {
        const which = parts.length > 1 ? ` part ${i + 1}/${parts.length}` : '';
        for (let throttled = 0; ; throttled++) {
          let resp: smpp.PDU;
          try {
            resp = await link.request(bound.session, 'submit_sm', submitParams(req.to, part));
          } catch (error) {
            const e = error as RequestError;
            if (ids.length > 0) tracking.drop();
            if (e.notSent && ids.length === 0) return { done: false, retry: true, value: failed(`submit_sm${which}: ${e.message}`) };
            return { done: false, retry: false, value: failed(`submit_sm${which}: ${e.message}; the SMSC may have accepted it`) };
          }
          const status = resp.command_status;
          if (status === 0) {
            const id = String(resp.message_id ?? '');
            ids.push(id);
            tracking.add(id);
            break;
          }
          if (THROTTLE_STATUSES.has(status) && throttled < cfg.throttleRetries) {
            log.warn('smpp throttled, waiting', { reference: req.reference, status: smppStatusName(status), delayMs: cfg.throttleDelayMs });
            await sleep(cfg.throttleDelayMs);
            continue;
          }
          const name = smppStatusName(status);
          const after = throttled > 0 ? ` (after ${throttled} throttling retr${throttled === 1 ? 'y' : 'ies'})` : '';
          if (ids.length === 0) return { done: false, retry: false, value: failed(`submit_sm${which} refused: ${name}${after}`) };
          tracking.drop();
          return { done: false, retry: false, value: failed(`submit_sm${which} refused: ${name}${after}; ${ids.length} part(s) were accepted`) };
        }
      }
      return { done: true, value: { status: 'sent', messageId: ids[0] || null, parts: parts.length } };
    });
    if (result.status === 'sent')
      log.info('sms handed to smsc', { reference: req.reference, messageId: result.messageId, parts: result.parts, ms: Date.now() - started });
    return result;
  }

  async function check(): Promise<SmsCheck> {
    const bound = await link.whenBound();
    if (!bound.ok) return { ok: false, detail: bound.error.message };
    const t0 = Date.now();
    try {
      await link.request(bound.session, 'enquire_link', {});
      return { ok: true, detail: `bound to ${link.where}; enquire_link answered in ${Date.now() - t0} ms` };
    } catch (error) {
      return { ok: false, detail: `${link.where}: enquire_link: ${(error as Error).message}` };
    }
  }

  return {
    kind: 'smpp',
    send,
    check,
    close: () => link.close(),
    onDeliveryReport: hub.on,
  };
}
