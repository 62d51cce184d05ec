// SMPP values ringhook chooses or interprets: addresses, command_status meanings. Pure, no I/O.

/** SMPP 3.4 command_status values ringhook names in errors (5.1.3). */
export const SMPP_STATUS: Readonly<Record<number, string>> = {
  0x00: 'ESME_ROK',
  0x01: 'ESME_RINVMSGLEN (message length is invalid)',
  0x03: 'ESME_RINVCMDID (invalid command id)',
  0x04: 'ESME_RINVBNDSTS (incorrect bind status)',
  0x05: 'ESME_RALYBND (already bound)',
  0x08: 'ESME_RSYSERR (system error)',
  0x0a: 'ESME_RINVSRCADR (invalid source address)',
  0x0b: 'ESME_RINVDSTADR (invalid destination address)',
  0x0d: 'ESME_RBINDFAIL (bind failed)',
  0x0e: 'ESME_RINVPASWD (invalid password)',
  0x0f: 'ESME_RINVSYSID (invalid system_id)',
  0x14: 'ESME_RMSGQFUL (message queue full)',
  0x45: 'ESME_RSUBMITFAIL (submit_sm failed)',
  0x48: 'ESME_RINVSRCTON (invalid source TON)',
  0x49: 'ESME_RINVSRCNPI (invalid source NPI)',
  0x50: 'ESME_RINVDSTTON (invalid destination TON)',
  0x51: 'ESME_RINVDSTNPI (invalid destination NPI)',
  0x53: 'ESME_RINVSYSTYP (invalid system_type)',
  0x58: 'ESME_RTHROTTLED (throttling error)',
  0x61: 'ESME_RINVSCHED (invalid scheduled delivery time)',
  0x62: 'ESME_RINVEXPIRY (invalid validity period)',
  0x64: 'ESME_RX_T_APPN (temporary application error)',
  0x65: 'ESME_RX_P_APPN (permanent application error)',
  0x66: 'ESME_RX_R_APPN (rejected by application)',
};

export function smppStatusName(status: number): string {
  return SMPP_STATUS[status] ?? `command_status 0x${status.toString(16).padStart(8, '0')}`;
}

/** Answers to submit_sm that mean "not now": wait and submit again (bounded). */
export const THROTTLE_STATUSES: ReadonlySet<number> = new Set([0x58, 0x14]);

/** Bind refusals that a new attempt with the same settings will not fix. */
const PERMANENT_BIND: ReadonlySet<number> = new Set([0x0d, 0x0e, 0x0f, 0x53]);
export function bindErrorRetryable(status: number): boolean {
  return !PERMANENT_BIND.has(status);
}

export interface SmppAddress {
  addr: string;
  ton: number;
  npi: number;
}

/**
 * The source address for RINGHOOK_SMS_FROM. With 'auto': "+15551234567" → international (TON 1,
 * NPI 1, without "+"); a name with letters → alphanumeric (TON 5, NPI 0); other digits (short
 * codes, national numbers) → unknown TON 0, NPI 1.
 */
export function sourceAddress(from: string, ton: number | 'auto', npi: number | 'auto'): SmppAddress {
  let auto: SmppAddress;
  if (/^\+\d+$/.test(from)) auto = { addr: from.slice(1), ton: 1, npi: 1 };
  else if (/[^\d]/.test(from)) auto = { addr: from, ton: 5, npi: 0 };
  else auto = { addr: from, ton: 0, npi: 1 };
  return { addr: auto.addr, ton: ton === 'auto' ? auto.ton : ton, npi: npi === 'auto' ? auto.npi : npi };
}

/** The destination for an E.164 number: digits only, TON/NPI from configuration (default 1/1). */
export function destinationAddress(to: string, ton: number, npi: number): SmppAddress {
  return { addr: to.replace(/^\+/, ''), ton, npi };
}
