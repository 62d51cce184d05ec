// The SMS part of the configuration, read as serve reads it (with the rest of the variables).
import { loadConfig } from '../../src/config/index.js';
import type { SmsConfig } from '../../src/config/sms.js';

export function smsConfig(env: Record<string, string | undefined>): SmsConfig {
  return loadConfig({ RINGHOOK_TELEPHONY: 'off', ...env }).sms;
}
