// While machine detection listens, the channel's receive counters are read every TALK.rtpReadMs:
// a phone with silence suppression sends no audio (or only comfort noise) while its user is
// silent, and TALK_DETECT, which hears only the frames that arrive, never hears that silence. The
// gaps the counters show are it (core/calls/talk-verdict: audioGaps). Read over ARI on Asterisk's HTTP
// thread, not the channel's: the reading works while the message plays.
import { audioGaps, TALK } from '../core/calls/talk-verdict.js';
import type { AriCallControl } from '../pbx/index.js';
import type { CallLedger } from './call-ledger.js';
import type { CallSession } from './call-session.js';

export interface AudioWatchDesk {
  readonly settings: { ari: Pick<AriCallControl, 'rtpStatistics'>; now: () => number };
  readonly ledger: Pick<CallLedger, 'note'>;
  isActive(session: CallSession): boolean;
}

/**
 * Reads the counters until the listening is done or the call ends (one reading at most after it);
 * `changed` is told when a gap begins or ends.
 */
export function watchAudio(desk: AudioWatchDesk, session: CallSession, changed: () => void): void {
  const listening = () => session.talk !== undefined && session.talk.phase !== 'done' && desk.isActive(session);
  const read = async () => {
    const talk = session.talk;
    if (!talk || !listening()) return;
    const askedAt = desk.settings.now();
    let bytes: number;
    try {
      bytes = (await desk.settings.ari.rtpStatistics(session.channelId)).rxoctetcount;
    } catch (error) {
      // Detection goes on with TALK_DETECT alone (a phone that goes quiet after "Hello?" may then be taken for a machine).
      if (listening()) desk.ledger.note(session.call.callId, 'audio watch', `stopped: ${(error as Error).message}`);
      return;
    }
    const now = desk.settings.now();
    const before = talk.audio.gaps;
    talk.audio = audioGaps(talk.audio, { atMs: now - (session.answeredAt ?? now), bytes });
    const after = talk.audio.gaps;
    if (after.length !== before.length || after.at(-1)?.toMs !== before.at(-1)?.toMs) changed();
    // Not one of the session's timers: the script disarms those when it stops the message for a machine's greeting.
    setTimeout(() => void read(), Math.max(0, askedAt + TALK.rtpReadMs - desk.settings.now())).unref();
  };
  // The first reading after the first interval: the answer's moment is the message's (its play request goes first).
  setTimeout(() => void read(), TALK.rtpReadMs).unref();
}
