// What an answered call hears and how it reacts: the intro, the keys, the message and the prompt,
// in the account's language and voice. A key stops what is playing at once and acts (core/calls/keypad):
// 1 acknowledges (and is told so), 2 or * says the message again from its start (as often as the
// call's longest time allows: Asterisk ends it at RINGHOOK_MAX_CALL_SECONDS), 0 says the keys; no
// digit after the prompt hangs up. A machine (voicemail), once found, is not spoken over: the
// message stops, and after its greeting it gets the intro and the message only, then the hang-up;
// its digits do nothing.
import { describeKey, KEY_EVENT, keyAction } from '../core/calls/keypad.js';
import { callPhrases } from '../core/speech/spoken-call.js';
import { AriError } from '../pbx/index.js';
import type { CallLedger } from './call-ledger.js';
import { alertsOf, arm, disarmAll, type CallSession, type ScriptRecord } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';

/** The confirmation is short: should its end never be reported, the call is hung up after this. */
const CONFIRMATION_MS = 8_000;

/**
 * What the script tells the desk, which alone applies it (call-desk.ts: apply): the call is to be
 * hung up (its closing played, no digit came, the longest call time, a failure). A decision key
 * (#56) is one more outcome here: the desk records it with the call's end, then the script says so.
 */
export type ScriptOutcome = { act: 'hang up'; why: string };

/** What the script is given: its peers, whether the call still goes, its timeline, and where its outcomes go. */
export interface ScriptDeps {
  readonly settings: Pick<
    DialerSettings,
    'ari' | 'tts' | 'logger' | 'digitWaitMs' | 'maxTalkMs' | 'now' | 'onFirstSpeech'
  >;
  readonly ledger: Pick<CallLedger, 'note'>;
  /** Is the call still going (it may have ended while speech was being made)? */
  isActive(session: CallSession): boolean;
  /** Told what the script came to (a timer's, a playback's end): the desk applies it. */
  outcome(session: CallSession, outcome: ScriptOutcome): void;
}

/** The call's script, the only writer of its record (session.script). */
export class CallScript {
  constructor(private readonly deps: ScriptDeps) {}

  private hangUp(session: CallSession, why: string): void {
    this.deps.outcome(session, { act: 'hang up', why });
  }

  /** Makes the call's phrases while the phone rings, so that an answer is spoken to at once. */
  prepare(session: CallSession): void {
    for (const phrase of Object.values(callPhrases(session.speech)))
      this.say(session, phrase).catch((error: Error) => {
        // Made again when the answered call asks for it: a failure then ends the call, and is logged there.
        this.deps.settings.logger.debug('could not prepare speech', { call_id: session.call.callId, phrase, error });
      });
  }

  async answered(session: CallSession): Promise<void> {
    this.armLongestCall(session);
    await this.play(session);
  }

  /** A machine answered: the message stops (and no digit is waited for) while its greeting goes on. */
  async machineAnswered(session: CallSession): Promise<void> {
    scriptOf(session).run++;
    disarmAll(session);
    this.armLongestCall(session);
    await this.stopPlayback(session);
  }

  /** The machine's greeting and beep are over: the whole message, from its start, on the recording. */
  async leaveMessage(session: CallSession): Promise<void> {
    await this.play(session);
  }

  playbackFinished(session: CallSession, playbackId: string): void {
    // Only the current playback: one stopped by a "2" must not start the digit wait.
    const script = scriptOf(session);
    if (script.playbackId !== playbackId) return;
    script.playbackId = undefined;
    if (script.closing !== undefined) this.hangUp(session, script.closing);
    else arm(session, this.deps.settings.digitWaitMs, () => this.hangUp(session, 'no digit after the message'));
  }

  /** A key pressed: on the call's timeline with what it did (core/calls/keypad decides). */
  async digit(session: CallSession, key: string): Promise<void> {
    const action = keyAction(key, {
      answered: session.line.answeredAt !== undefined,
      machine: session.detection.machine === true,
      acknowledged: session.script.acknowledged,
    });
    for (const alert of alertsOf(session)) this.deps.ledger.note(alert.callId, KEY_EVENT, describeKey(key, action));
    switch (action.act) {
      case 'acknowledge':
        scriptOf(session).acknowledged = true;
        await this.confirm(session);
        break;
      case 'repeat':
        scriptOf(session).repeats++;
        await this.interrupt(session);
        await this.play(session);
        break;
      case 'menu':
        await this.interrupt(session);
        // Then the wait for a digit, as after the prompt.
        await this.start(session, [this.say(session, callPhrases(session.speech).keys)]);
        break;
      case 'ignore':
        break;
    }
  }

  /** Stops what plays (and the wait for a digit) for what the key asked. */
  private async interrupt(session: CallSession): Promise<void> {
    disarmAll(session);
    this.armLongestCall(session);
    await this.stopPlayback(session);
  }

  /** Says the press of 1 was heard, then hangs up. */
  private async confirm(session: CallSession): Promise<void> {
    disarmAll(session);
    arm(session, CONFIRMATION_MS, () => this.hangUp(session, 'acknowledged'));
    await this.stopPlayback(session);
    await this.start(session, [this.say(session, callPhrases(session.speech).confirmed)], 'acknowledged');
  }

  /**
   * Stops the playback in progress. It is no longer the call's own from here: its PlaybackFinished,
   * which may come while the next playback's speech is still being found, must not start the digit wait.
   */
  private async stopPlayback(session: CallSession): Promise<void> {
    const script = scriptOf(session);
    const playbackId = script.playbackId;
    script.playbackId = undefined;
    if (playbackId)
      await this.deps.settings.ari.stopPlayback(playbackId).catch((error: Error) => {
        // Most often the playback had ended already; the next playback replaces it either way.
        this.deps.settings.logger.debug('could not stop a playback', { call_id: session.call.callId, error });
      });
  }

  private armLongestCall(session: CallSession): void {
    arm(session, this.deps.settings.maxTalkMs, () => this.hangUp(session, 'longest call time reached'));
  }

  /** The media of a phrase in the call's voice. */
  private say(session: CallSession, text: string): Promise<string> {
    return this.deps.settings.tts.synthesize(text, session.speech.synthesis).then((s) => s.media);
  }

  private async play(session: CallSession): Promise<void> {
    const phrases = callPhrases(session.speech);
    const first = session.script.repeats === 0;
    const intro = first ? [this.say(session, phrases.intro)] : [];
    // A machine cannot press a digit: the message is left on it, then the call ends.
    if (session.detection.machine)
      return this.start(session, [...intro, session.messageMedia!], 'message left on the voicemail');
    // The keys are said once, before the first message: a person may press one while it plays.
    const keys = first ? [this.say(session, phrases.keys)] : [];
    await this.start(session, [...intro, ...keys, session.messageMedia!, this.say(session, phrases.prompt)]);
  }

  /** Plays the media in order once all are ready; `closing`: the call is hung up when they end. */
  private async start(session: CallSession, media: Array<Promise<string>>, closing?: string): Promise<void> {
    const script = scriptOf(session);
    const run = script.run;
    try {
      const files = await Promise.all(media);
      // Ended meanwhile, or a machine was found and the message waits for its greeting to end.
      if (!this.deps.isActive(session) || script.run !== run) return;
      const playbackId = `${session.channelId}-p${++script.playbackSeq}`;
      script.playbackId = playbackId;
      script.closing = closing;
      await this.deps.settings.ari.play(session.channelId, playbackId, files);
      script.messageStarted = true;
      const answeredAt = session.line.answeredAt;
      if (script.firstSpeechAt === undefined && answeredAt !== undefined) {
        script.firstSpeechAt = this.deps.settings.now();
        this.deps.settings.onFirstSpeech?.(script.firstSpeechAt - answeredAt);
      }
    } catch (error) {
      // The phone hung up while its playback was asked for: the call's end says how it ended, not this.
      if (!this.deps.isActive(session) || channelGone(error)) return;
      script.speechFailed = (error as Error).message;
      // Asterisk gone (killed, restarting) is its own fault, already reported: the call ends with it.
      const asteriskGone = error instanceof AriError && error.kind === 'network';
      this.deps.settings.logger[asteriskGone ? 'warn' : 'error']('could not play the message', {
        call_id: session.call.callId,
        error,
      });
      this.hangUp(session, 'speech failed');
    }
  }
}

/** The call's script record, as its one writer sees it. */
const scriptOf = (session: CallSession) => session.script as ScriptRecord;

/** ARI's answer to a request on a channel that has hung up meanwhile. */
function channelGone(error: unknown): boolean {
  return error instanceof AriError && error.kind === 'http' && (error.status === 404 || error.status === 409);
}
