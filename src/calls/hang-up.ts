// Hanging up a channel, the same way from every part of call control: a failure is never thrown
// (the call's end is decided by its channel's end, or by the timer armed for it), and always logged
// with its reason: at debug when the channel is gone already (nothing was left to hang up), else as
// a warning (the channel may still be up; the longest-call timer on the channel ends it).
import type { Logger } from '../lib/log.js';
import { AriError } from '../pbx/index.js';
import type { AriCallControl } from '../pbx/index.js';

export interface HangUpDeps {
  ari: Pick<AriCallControl, 'hangup'>;
  logger: Logger;
}

/** Hangs the channel up; resolves whatever Asterisk answers. `why` and `callId` go into the log. */
export async function hangUp(
  { ari, logger }: HangUpDeps,
  channelId: string,
  context: { why: string; callId?: string | undefined },
): Promise<void> {
  try {
    await ari.hangup(channelId);
  } catch (error) {
    const gone = error instanceof AriError && error.kind === 'http' && error.status === 404;
    const fields = { channel_id: channelId, call_id: context.callId, why: context.why, error };
    if (gone) logger.debug('hang-up: the channel was gone already', fields);
    else logger.warn('hangup failed', fields);
  }
}
