// The receipt URL the gateway is given: the operator's RINGHOOK_SMS_DLR_URL plus ringhook's own
// secret token, so that the receipt route can tell the gateway's calls from anybody else's.
import type { SmsConfig } from '../config/index.js';

/**
 * A query parameter rather than a path segment: the route stays at the operator's path (what a
 * reverse proxy forwards), and Kannel's dlr-url and Twilio's StatusCallback keep it verbatim.
 */
export const RECEIPT_TOKEN_PARAM = 'rh_token';

/** The operator's URL, its own query string kept, with the token added. */
export function receiptUrl(publicUrl: string, token: string): string {
  const url = new URL(publicUrl);
  url.hash = '';
  const param = `${RECEIPT_TOKEN_PARAM}=${encodeURIComponent(token)}`;
  url.search = url.search.length > 1 ? `${url.search}&${param}` : `?${param}`;
  return url.toString();
}

/** The SMS config whose receipt URL carries the token; unchanged when no receipts are asked. */
export function withReceiptToken(config: SmsConfig, token: string | null): SmsConfig {
  if (config.gateway !== 'http' || !config.dlrUrl || !token) return config;
  return { ...config, dlrUrl: receiptUrl(config.dlrUrl, token) };
}
