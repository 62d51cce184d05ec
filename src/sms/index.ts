// The SMS backup as the rest of ringhook sees it: the text of an SMS, the receipts' token and Twilio's
// signature (the receipt route, part of every serve), and the gateways and the backup, loaded only
// where they are used (telephony, doctor): `serve --help` and a serve without telephony load no SMPP
// client (test/cli/start-up.test.ts), and a module this entry re-exported would be loaded with it.
export type { DeliveryReport, SmsSender } from './types.js';
export type { SmsConfig } from '../config/index.js';
export type { SmsBackup } from './backup.js';
export type { SmsHealth } from './health.js';
export type { SmsDeps } from './service.js';
export { RECEIPT_TOKEN_PARAM, withReceiptToken } from './receipts.js';
export { twilioSignature, twilioSignedUrls } from './twilio-signature.js';

/** The gateways (createSmsSender), the backup and its health. */
export const loadSmsService = () => import('./service.js');
