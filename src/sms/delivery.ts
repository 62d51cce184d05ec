// Delivery reports: parsing what each gateway sends back (pure), and the listener list.

import { z } from 'zod';
import type { DeliveryReport, DeliveryStatus } from './types.js';

// ---- Kannel dlr-url ------------------------------------------------------------------------

/** Kannel's DLR types (%d): 1 delivered to phone, 2 not delivered, 4 queued at SMSC, 8 accepted by SMSC, 16 rejected by SMSC. */
export const KANNEL_DLR_MASK = 1 | 2 | 16;

/** Query parameter names ringhook puts in the dlr-url it gives Kannel. */
export const KANNEL_DLR_PARAMS = { id: 'rh_msgid', type: 'rh_dlr', reply: 'rh_reply' } as const;

/** The dlr-url for one message: Kannel fills %d (type) and %A (SMSC reply) when it calls back. */
export function kannelDlrUrl(base: string, messageId: string): string {
  const sep = base.includes('?') ? '&' : '?';
  return `${base}${sep}${KANNEL_DLR_PARAMS.id}=${encodeURIComponent(messageId)}&${KANNEL_DLR_PARAMS.type}=%d&${KANNEL_DLR_PARAMS.reply}=%A`;
}

const kannelDlrSchema = z.object({
  id: z.string().min(1).max(200),
  type: z.coerce.number().int().min(0).max(255),
  reply: z.string().max(2000).default(''),
});

export function kannelDlrStatus(type: number): DeliveryStatus {
  if (type & 1) return 'delivered';
  if (type & (2 | 16)) return 'failed';
  return 'pending';
}

const KANNEL_DLR_NAMES: Record<number, string> = {
  1: 'delivered to phone',
  2: 'not delivered to phone',
  4: 'queued on SMSC',
  8: 'delivered to SMSC',
  16: 'rejected by SMSC',
};

export function parseKannelDlr(params: URLSearchParams): DeliveryReport | null {
  const r = kannelDlrSchema.safeParse({
    id: params.get(KANNEL_DLR_PARAMS.id) ?? undefined,
    type: params.get(KANNEL_DLR_PARAMS.type) ?? undefined,
    reply: params.get(KANNEL_DLR_PARAMS.reply) ?? undefined,
  });
  if (!r.success) return null;
  const name = KANNEL_DLR_NAMES[r.data.type] ?? `type ${r.data.type}`;
  return {
    messageId: r.data.id,
    status: kannelDlrStatus(r.data.type),
    detail: r.data.reply ? `${name}: ${r.data.reply}` : name,
  };
}

// ---- Twilio status callback ----------------------------------------------------------------

const twilioStatusSchema = z.object({
  MessageSid: z.string().min(1).max(100),
  MessageStatus: z.string().min(1).max(40),
  ErrorCode: z.string().max(20).optional(),
});

export function parseTwilioStatus(params: URLSearchParams): DeliveryReport | null {
  const r = twilioStatusSchema.safeParse({
    MessageSid: params.get('MessageSid') ?? undefined,
    MessageStatus: params.get('MessageStatus') ?? undefined,
    ErrorCode: params.get('ErrorCode') ?? undefined,
  });
  if (!r.success) return null;
  const s = r.data.MessageStatus.toLowerCase();
  const status: DeliveryStatus =
    s === 'delivered' ? 'delivered' : s === 'undelivered' || s === 'failed' ? 'failed' : 'pending';
  return { messageId: r.data.MessageSid, status, detail: r.data.ErrorCode ? `${s} (error ${r.data.ErrorCode})` : s };
}

// ---- SMPP delivery receipt -----------------------------------------------------------------

/** SMPP 3.4 message_state values (5.2.28). */
export const SMPP_MESSAGE_STATES: Record<number, string> = {
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
};

export function smppStatStatus(stat: string): DeliveryStatus {
  const s = stat.toUpperCase();
  if (s.startsWith('DELIV')) return 'delivered';
  if (['EXPIRED', 'DELETED', 'UNDELIV', 'REJECTD', 'UNKNOWN'].some((x) => s.startsWith(x.slice(0, 5)))) return 'failed';
  return 'pending';
}

export interface SmppReceipt {
  id: string;
  stat: string;
  err: string;
  fields: Record<string, string>;
}

/**
 * The receipt text of SMPP 3.4 Appendix B: "id:IIII sub:SSS dlvrd:DDD submit date:YYMMDDhhmm
 * done date:YYMMDDhhmm stat:DDDDDDD err:E text: ...". Field order and case vary between SMSCs.
 */
export function parseSmppReceiptText(text: string): SmppReceipt | null {
  const fields: Record<string, string> = {};
  const re = /(id|sub|dlvrd|submit date|done date|stat|err|text):\s*/gi;
  const marks: { key: string; start: number; end: number }[] = [];
  for (let m = re.exec(text); m; m = re.exec(text))
    marks.push({ key: m[1]!.toLowerCase(), start: m.index, end: m.index + m[0].length });
  marks.forEach((mark, i) => {
    const next = marks[i + 1];
    fields[mark.key] = text.slice(mark.end, next ? next.start : text.length).trim();
  });
  if (!fields.id || !fields.stat) return null;
  return { id: fields.id, stat: fields.stat, err: fields.err ?? '', fields };
}

/**
 * The report from a deliver_sm that is a receipt: the TLVs receipted_message_id and
 * message_state win over the text when present (the text is not standardised).
 */
export function smppReceiptReport(input: {
  text: string;
  receiptedMessageId?: string | undefined;
  messageState?: number | undefined;
}): { gatewayId: string; status: DeliveryStatus; detail: string } | null {
  const parsed = parseSmppReceiptText(input.text);
  const gatewayId = (input.receiptedMessageId ?? parsed?.id ?? '').replace(/\0+$/, '');
  const stat =
    input.messageState !== undefined
      ? (SMPP_MESSAGE_STATES[input.messageState] ?? `state ${input.messageState}`)
      : parsed?.stat;
  if (!gatewayId || !stat) return null;
  const err = parsed?.err;
  return { gatewayId, status: smppStatStatus(stat), detail: err && err !== '000' ? `${stat} err:${err}` : stat };
}

/**
 * The spellings of a receipt's message id that may be the id the SMSC gave the submit: many give
 * the submit_sm_resp id in hex and write it in the receipt's text in decimal, zero-padded (the
 * reason Kannel has msg-id-type), or the other way round. The id as given comes first; another
 * base is tried only when the id shows it is not in the submit's (zero-padded digits, hex letters),
 * so that a plain decimal id never settles a different message.
 */
export function receiptIdForms(id: string): string[] {
  const forms = [id];
  if (/^0\d{1,30}$/.test(id)) {
    const hex = BigInt(id).toString(16);
    forms.push(id.replace(/^0+(?=.)/, ''), hex, hex.toUpperCase());
  }
  if (/^[0-9a-f]{1,24}$/i.test(id) && /[a-f]/i.test(id)) forms.push(BigInt(`0x${id}`).toString(10));
  return [...new Set(forms)];
}

// ---- listeners -----------------------------------------------------------------------------

export interface ReportHub {
  on(cb: (r: DeliveryReport) => void): () => void;
  emit(r: DeliveryReport): void;
}

/** A listener list; a listener that throws is logged by the caller's onError, never breaks the others. */
export function createReportHub(onError: (error: unknown) => void): ReportHub {
  const listeners = new Set<(r: DeliveryReport) => void>();
  return {
    on(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    emit(r) {
      for (const cb of listeners) {
        try {
          cb(r);
        } catch (error) {
          onError(error);
        }
      }
    },
  };
}
