// Answering-machine detection: an answered call is sent into the managed dialplan's AMD context
// and comes back into the Stasis app with the verdict (Stasis(ringhook,amd,STATUS,CAUSE)). While it
// is there, the channel is out of ringhook's hands; its hang-up is still reported.
import type { CallDesk } from './call-desk.js';
import { alertsOf, arm, type CallSession } from './call-session.js';

/** The dialplan context that runs answering-machine detection (asterisk/extensions.conf). */
export const AMD_CONTEXT = 'ringhook-amd';

/** AMD listens 5 s at most, then a machine's greeting may take 20 s to end: past this, the call is hung up. */
const DETECTION_LIMIT_MS = 35_000;

export class MachineDetection {
  constructor(private readonly desk: CallDesk) {}

  async start(session: CallSession): Promise<void> {
    session.detecting = true;
    arm(session, DETECTION_LIMIT_MS, () => void this.desk.hangup(session, 'answering-machine detection did not finish'));
    try {
      await this.desk.settings.ari.continueInDialplan(session.channelId, AMD_CONTEXT);
    } catch (error) {
      if (!session.detecting || !this.desk.isActive(session)) return;
      // An Asterisk without ringhook's dialplan (an external one): the message is spoken without the check.
      this.desk.settings.logger.warn('answering-machine detection unavailable; speaking at once', { call_id: session.call.callId, error });
      this.verdict(session, 'NOTSURE', 'unavailable');
    }
  }

  /** AMD's verdict, as the channel came back with it. */
  verdict(session: CallSession, status: string, cause: string): void {
    if (!session.detecting) return;
    session.detecting = false;
    session.machine = status === 'MACHINE';
    this.desk.ledger.detection(alertsOf(session), status, cause);
    // The verdict is in (session.machine set): the message may be spoken.
    void this.desk.script.answered(session);
  }
}
