// The SMS backup in the service: one SmsSender chosen by configuration (the gateways), the backup
// and the gateway's health over it. Loaded through the entry (index.ts, loadSmsService).

import type { Logger } from '../lib/log.js';
import type { SmsConfig } from '../config/index.js';
import { createReportHub } from './delivery.js';
import { createHttpSmsSender } from './http-gateway.js';
import type { Sleep } from '../lib/sleep.js';
import { createSmppSmsSender } from './smpp.js';
import type { SmsSender } from './types.js';

export { SmsBackup } from './backup.js';
export { SmsHealth } from './health.js';

export interface SmsDeps {
  logger: Logger;
  /** Injected for tests; defaults to globalThis.fetch. */
  fetch?: typeof fetch;
  sleep?: Sleep;
  newId?: () => string;
}

/** SMS backup turned off: send() fails and says how to turn it on. */
export function createDisabledSmsSender(): SmsSender {
  const hub = createReportHub(() => {});
  return {
    kind: 'none',
    send: async () => ({ status: 'failed', error: 'SMS backup is off (RINGHOOK_SMS_GATEWAY=none)' }),
    check: async () => ({ ok: true, detail: 'SMS backup is off (RINGHOOK_SMS_GATEWAY=none)' }),
    close: async () => {},
    onDeliveryReport: hub.on,
  };
}

export function createSmsSender(config: SmsConfig, deps: SmsDeps): SmsSender {
  switch (config.gateway) {
    case 'none':
      return createDisabledSmsSender();
    case 'http':
      return createHttpSmsSender(config, deps);
    case 'smpp':
      return createSmppSmsSender(config, deps);
  }
}
