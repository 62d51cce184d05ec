// The delivery receipts of an SMPP session: each part's gateway id is followed as the SMSC accepts
// it, and a long message is reported delivered once every part was (failed at its first failure).
import type * as smpp from 'smpp';
import type { Logger } from '../lib/log.js';
import { type ReportHub, receiptIdForms, smppReceiptReport } from './delivery.js';
import type { DeliveryReport, DeliveryStatus } from './types.js';

interface Tracked {
  messageId: string;
  total: number;
  delivered: Set<string>;
}

const MAX_TRACKED = 10_000;

/** One message's receipts being followed: each part's id is added as the SMSC accepts it. */
export interface ReceiptTracking {
  add(id: string): void;
  drop(): void;
}

export interface SmppReceipts {
  /** A deliver_sm from the SMSC: a receipt is matched to its message and reported. */
  onDeliverSm(pdu: smpp.PDU): void;
  /** Starts following the receipts of a message of `total` parts. */
  startTracking(total: number): ReceiptTracking;
}

export function createSmppReceipts(deliveryReceipts: boolean, log: Logger, hub: ReportHub): SmppReceipts {
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
      const report: DeliveryReport = {
        messageId: t.messageId,
        status,
        detail: t.total > 1 ? `${receipt.detail} (${t.total} parts)` : receipt.detail,
      };
      log.info('sms delivery report', { ...report });
      hub.emit(report);
    }
  }

  function startTracking(total: number): ReceiptTracking {
    const t: Tracked = { messageId: '', total, delivered: new Set() };
    const ids: string[] = [];
    return {
      add(id) {
        if (!deliveryReceipts) return;
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

  return { onDeliverSm, startTracking };
}
