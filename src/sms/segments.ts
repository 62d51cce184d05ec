// How a text becomes SMS parts: the encoding it needs and where it is cut. Pure, no I/O.
// Limits (3GPP TS 23.040): one SMS carries 140 octets = 160 GSM septets or 70 UCS-2 units; with
// the 6-octet concatenation header (UDH 05 00 03 ref total seq) a part carries 153 septets or 67 units.

import { encodeGsm7, encodeUcs2, gsm7CharLength, isGsm7 } from './gsm7.js';

export type SmsEncoding = 'gsm7' | 'ucs2';

export const SINGLE_LIMIT: Readonly<Record<SmsEncoding, number>> = { gsm7: 160, ucs2: 70 };
export const PART_LIMIT: Readonly<Record<SmsEncoding, number>> = { gsm7: 153, ucs2: 67 };
/** Most SMSCs and phones accept up to 255 parts; operators commonly cap far lower. */
export const MAX_CONCAT_PARTS = 255;

/** GSM 7-bit when every character allows it, UCS-2 otherwise. */
export function detectEncoding(text: string): SmsEncoding {
  return isGsm7(text) ? 'gsm7' : 'ucs2';
}

/** Units of the encoding one character takes: septets for GSM, UTF-16 code units for UCS-2. */
function unitLength(ch: string, encoding: SmsEncoding): number {
  return encoding === 'gsm7' ? gsm7CharLength(ch) : ch.length;
}

function totalUnits(text: string, encoding: SmsEncoding): number {
  let n = 0;
  for (const ch of text) n += unitLength(ch, encoding);
  return n;
}

/**
 * Cuts the text into the pieces each SMS part carries. One piece when it fits a single SMS.
 * Never cuts an escape sequence (GSM) nor a surrogate pair (UCS-2).
 */
export function splitSms(text: string, encoding: SmsEncoding = detectEncoding(text)): string[] {
  if (totalUnits(text, encoding) <= SINGLE_LIMIT[encoding]) return [text];
  const limit = PART_LIMIT[encoding];
  const parts: string[] = [];
  let current = '';
  let used = 0;
  for (const ch of text) {
    const len = unitLength(ch, encoding);
    if (used + len > limit) {
      parts.push(current);
      current = '';
      used = 0;
    }
    current += ch;
    used += len;
  }
  if (current !== '' || parts.length === 0) parts.push(current);
  return parts;
}

/** Parts the text needs as concatenated SMS (1 when it fits one SMS): splitSms's count, without making the parts. */
export function countSmsParts(text: string): number {
  const encoding = detectEncoding(text);
  if (totalUnits(text, encoding) <= SINGLE_LIMIT[encoding]) return 1;
  const limit = PART_LIMIT[encoding];
  let parts = 1;
  let used = 0;
  for (const ch of text) {
    const len = unitLength(ch, encoding);
    if (used + len > limit) {
      parts++;
      used = 0;
    }
    used += len;
  }
  return parts;
}

export function encodeText(text: string, encoding: SmsEncoding): Buffer {
  return encoding === 'gsm7' ? encodeGsm7(text) : encodeUcs2(text);
}

/** The concatenation header: IEI 0x00 (8-bit reference), length 3, reference, total, sequence (1-based). */
export function concatUdh(reference: number, total: number, sequence: number): Buffer {
  return Buffer.from([0x05, 0x00, 0x03, reference & 0xff, total, sequence]);
}

/** SMPP data_coding for the encoding: 0 = SMSC default alphabet (GSM 7-bit), 8 = UCS-2. */
export function dataCoding(encoding: SmsEncoding): number {
  return encoding === 'gsm7' ? 0x00 : 0x08;
}

export interface SmppPart {
  /** short_message bytes, with the UDH in front when esm_class has UDHI. */
  shortMessage: Buffer;
  /** message_payload TLV bytes (payload mode only; shortMessage is then empty). */
  messagePayload?: Buffer;
  esmClass: number;
  dataCoding: number;
}

const ESM_UDHI = 0x40;

/**
 * The submit_sm bodies for a text: one part when it fits, concatenated parts with a UDH
 * otherwise, or a single message_payload submit when `usePayload` is set.
 */
export function planSmppParts(text: string, options: { usePayload: boolean; concatReference: number }): SmppPart[] {
  const encoding = detectEncoding(text);
  const coding = dataCoding(encoding);
  if (options.usePayload) {
    return [
      { shortMessage: Buffer.alloc(0), messagePayload: encodeText(text, encoding), esmClass: 0, dataCoding: coding },
    ];
  }
  const pieces = splitSms(text, encoding);
  if (pieces.length === 1) {
    return [{ shortMessage: encodeText(text, encoding), esmClass: 0, dataCoding: coding }];
  }
  if (pieces.length > MAX_CONCAT_PARTS)
    throw new RangeError(`text needs ${pieces.length} parts, more than ${MAX_CONCAT_PARTS}`);
  return pieces.map((piece, i) => ({
    shortMessage: Buffer.concat([
      concatUdh(options.concatReference, pieces.length, i + 1),
      encodeText(piece, encoding),
    ]),
    esmClass: ESM_UDHI,
    dataCoding: coding,
  }));
}
