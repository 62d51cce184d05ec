// SmsSender over SMPP 3.4 (npm `smpp`): one transceiver session kept bound (enquire_link
// keep-alive, reconnect with backoff), submit_sm with GSM 7-bit / UCS-2 and concatenation or
// message_payload, bounded waits on ESME_RTHROTTLED, delivery receipts matched to message ids.

import { randomInt } from 'node:crypto';
import * as smpp from 'smpp';
import type { Logger } from '../lib/log.js';
import type { SmppConfig } from '../config/index.js';
import { createReportHub } from './delivery.js';
import { sleep as realSleep, type Sleep } from '../lib/sleep.js';
import { type Attempt, withRetry } from './retry.js';
import { createSmppReceipts, type SmppReceipts } from './smpp-receipts.js';
import { planSmppParts, type SmppPart } from './segments.js';
import { destinationAddress, smppStatusName, sourceAddress, THROTTLE_STATUSES } from './smpp-params.js';
import { type RequestError, SmppLink } from './smpp-link.js';
import type { SmsCheck, SmsRequest, SmsResult, SmsSender } from './types.js';

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

export function createSmppSmsSender(options: SmppSenderOptions, deps: SmppSenderDeps): SmsSender {
  const cfg = options.smpp;
  const sleep = deps.sleep ?? realSleep;
  const randomByte = deps.randomByte ?? (() => randomInt(0, 256));
  const log = deps.logger.child({ component: 'sms', gateway: 'smpp' });
  const hub = createReportHub((error) => log.error('delivery report listener failed', { error }));
  const params = submitParamsFor(cfg, sourceAddress(options.from, cfg.sourceTon, cfg.sourceNpi));
  const receipts = createSmppReceipts(cfg.deliveryReceipts, log, hub);

  const link = new SmppLink(
    cfg,
    options.timeoutMs,
    deps.connect ?? ((o) => smpp.connect(o)),
    log,
    receipts.onDeliverSm,
  );
  link.connectNow();

  async function send(req: SmsRequest): Promise<SmsResult> {
    let parts: SmppPart[];
    try {
      parts = planSmppParts(req.text, { usePayload: cfg.usePayload, concatReference: randomByte() });
    } catch (error) {
      return { status: 'failed', error: (error as Error).message };
    }
    const started = Date.now();
    const result = await withRetry(options.retryAttempts, options.retryDelayMs, sleep, async (attempt) => {
      const bound = await link.whenBound();
      if (!bound.ok) {
        log.warn('smpp not bound', { reference: req.reference, attempt, error: bound.error.message });
        return { done: false, retry: bound.error.retryable, value: failed(bound.error.message) };
      }
      return submitParts(
        {
          link,
          session: bound.session,
          receipts,
          params,
          sleep,
          log,
          throttleRetries: cfg.throttleRetries,
          throttleDelayMs: cfg.throttleDelayMs,
        },
        req,
        parts,
      );
    });
    if (result.status === 'sent')
      log.info('sms handed to smsc', {
        reference: req.reference,
        messageId: result.messageId,
        parts: result.parts,
        ms: Date.now() - started,
      });
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

const failed = (error: string): SmsResult => ({ status: 'failed', error });

/** The submit_sm fields of one part to `to`, from the session's settings and the sender's address. */
function submitParamsFor(
  cfg: SmppConfig,
  source: ReturnType<typeof sourceAddress>,
): (to: string, part: SmppPart) => Record<string, unknown> {
  return (to, part) => {
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
  };
}

/** What one attempt at submitting a message's parts uses. */
interface Submitting {
  link: SmppLink;
  session: smpp.Session;
  receipts: SmppReceipts;
  params: (to: string, part: SmppPart) => Record<string, unknown>;
  sleep: Sleep;
  log: Logger;
  throttleRetries: number;
  throttleDelayMs: number;
}

/**
 * One attempt: each part submitted in turn on a bound session, waiting out throttling a bounded
 * number of times. Retried (by withRetry) only when nothing can have reached the SMSC.
 */
async function submitParts(
  { link, session, receipts, params, sleep, log, throttleRetries, throttleDelayMs }: Submitting,
  req: SmsRequest,
  parts: readonly SmppPart[],
): Promise<Attempt> {
  const ids: string[] = [];
  // Receipts can arrive before the last part is even submitted: follow each id at once.
  const tracking = receipts.startTracking(parts.length);
  for (const [i, part] of parts.entries()) {
    const which = parts.length > 1 ? ` part ${i + 1}/${parts.length}` : '';
    for (let throttled = 0; ; throttled++) {
      let resp: smpp.PDU;
      try {
        resp = await link.request(session, 'submit_sm', params(req.to, part));
      } catch (error) {
        const e = error as RequestError;
        if (ids.length > 0) tracking.drop();
        if (e.notSent && ids.length === 0)
          return { done: false, retry: true, value: failed(`submit_sm${which}: ${e.message}`) };
        return {
          done: false,
          retry: false,
          value: failed(`submit_sm${which}: ${e.message}; the SMSC may have accepted it`),
        };
      }
      const status = resp.command_status;
      if (status === 0) {
        const id = String(resp.message_id ?? '');
        ids.push(id);
        tracking.add(id);
        break;
      }
      if (THROTTLE_STATUSES.has(status) && throttled < throttleRetries) {
        log.warn('smpp throttled, waiting', {
          reference: req.reference,
          status: smppStatusName(status),
          delayMs: throttleDelayMs,
        });
        await sleep(throttleDelayMs);
        continue;
      }
      const name = smppStatusName(status);
      const after = throttled > 0 ? ` (after ${throttled} throttling retr${throttled === 1 ? 'y' : 'ies'})` : '';
      if (ids.length === 0)
        return { done: false, retry: false, value: failed(`submit_sm${which} refused: ${name}${after}`) };
      tracking.drop();
      return {
        done: false,
        retry: false,
        value: failed(`submit_sm${which} refused: ${name}${after}; ${ids.length} part(s) were accepted`),
      };
    }
  }
  return { done: true, value: { status: 'sent', messageId: ids[0] || null, parts: parts.length } };
}
