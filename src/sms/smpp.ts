// placeholder, replaced below
import type { Logger } from '../log.js';
import type { SmppConfig } from './config.js';
import type { SmsSender } from './types.js';
export function createSmppSmsSender(_c: { smpp: SmppConfig }, _d: { logger: Logger }): SmsSender {
  throw new Error('not yet');
}
