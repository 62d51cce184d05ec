// How a call that was never answered ended, from what Asterisk 22 reported (see docs/telephony.md
// for the events and causes observed with each kind of phone). Pure.
import type { UnansweredOutcome } from './call-state.js';

export interface UnansweredFacts {
  /** Q.850 cause of ChannelDestroyed. */
  cause: number;
  /** The SIP status behind it (tech_cause, Asterisk >= 22.7), when given. */
  sipCode?: number | undefined;
  /** The far end sent a final answer of its own (a ChannelHangupRequest came before the destroy). */
  farEndAnswered: boolean;
  /** The phone rang (180/183 or Dial RINGING). */
  rang: boolean;
}

const UNREACHABLE_CAUSES = new Set([1, 2, 3, 18, 20, 22, 27, 28, 31, 34, 38, 41, 42, 44, 47, 58, 88, 102, 111, 127]);

export function classifyUnanswered(f: UnansweredFacts): UnansweredOutcome {
  if (f.cause === 17 || f.sipCode === 486 || f.sipCode === 600) return 'busy';
  if (f.cause === 21 || f.sipCode === 603) return 'rejected';
  if (f.cause === 19) {
    // Asterisk reports its own ring timeout as 19/480 too: only a 480 sent by the far end means
    // the phone is unavailable; a timeout after ringing is no answer; silence is unreachable.
    if (f.farEndAnswered) return 'unreachable';
    return f.rang ? 'no_answer' : 'unreachable';
  }
  if (f.cause === 16) return f.rang ? 'no_answer' : 'unreachable';
  if (UNREACHABLE_CAUSES.has(f.cause)) return 'unreachable';
  if (f.sipCode !== undefined && (f.sipCode === 404 || f.sipCode === 408 || f.sipCode === 480 || f.sipCode >= 500))
    return 'unreachable';
  return 'failed';
}
