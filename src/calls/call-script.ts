// What an answered call hears and how it reacts: the intro, the keys, the message and the prompt,
// in the account's language and voice. A key stops what is playing at once and acts (core/calls/keypad):
// 1 acknowledges (and is told so), 2 or * says the message again from its start (as often as the
// call's longest time allows: Asterisk ends it at RINGHOOK_MAX_CALL_SECONDS), 0 says the keys; no
// digit after the prompt hangs up. A machine (voicemail), once found, is not spoken over: the
// message stops, and after its greeting it gets the intro and the message only, then the hang-up;
// its digits do nothing. A call with decision keys (#56) says them after the message ("Press 7 for
// buy"), asks for the PIN when one guards them, and reports the decision to the desk, which ends
// the call with it and then has the script say whether it was sent.
import {
  type DecisionKey,
  type DecisionStep,
  decisionOffer,
  PIN_PAUSE_MS,
  pinChecked,
  pinPaused,
  pressDecision,
  WRONG_PIN,
} from '../core/calls/decision-keys.js';
import { describeKey, KEY_EVENT, keyAction } from '../core/calls/keypad.js';
import { DECISION_WORDS, type DecisionWords } from '../core/speech/decision-words.js';
import type { CallDecision } from '../core/records.js';
import { callPhrases } from '../core/speech/spoken-call.js';
import { sleep } from '../lib/sleep.js';
import { AriError } from '../pbx/index.js';
import type { CallLedger } from './call-ledger.js';
import { alertsOf, arm, disarmAll, type CallSession, type ScriptRecord } from './call-session.js';
import type { DialerSettings } from './dialer-options.js';

/** The confirmation is short: should its end never be reported, the call is hung up after this. */
const CONFIRMATION_MS = 8_000;
/** After a decision's last words ("Buy. Sent."), the line is hung up this long after their length. */
const CLOSING_MARGIN_MS = 700;

/**
 * What the script tells the desk, which alone applies it (call-desk.ts: apply): the call is to be
 * hung up (its closing played, no digit came, the longest call time, a failure); a decision key
 * pressed (#56: the desk ends the call with it, then tells the script, `decided`); a decision
 * refused (its PIN wrong every try: the desk records it, nothing is sent).
 */
export type ScriptOutcome =
  | { act: 'hang up'; why: string }
  | ({ act: 'decision' } & CallDecision)
  | { act: 'decision refused'; why: string };

/** What the script is given: its peers, whether the call still goes, its timeline, and where its outcomes go. */
export interface ScriptDeps {
  readonly settings: Pick<
    DialerSettings,
    'ari' | 'tts' | 'logger' | 'digitWaitMs' | 'maxTalkMs' | 'now' | 'onFirstSpeech' | 'store'
  >;
  readonly ledger: Pick<CallLedger, 'note'>;
  /** Is the call still going (it may have ended while speech was being made)? */
  isActive(session: CallSession): boolean;
  /** Told what the script came to (a timer's, a playback's end): the desk applies it; a decision's answer: whether its end was recorded. */
  outcome(session: CallSession, outcome: ScriptOutcome): Promise<boolean> | undefined;
}

/** The call's script, the only writer of its record (session.script). */
export class CallScript {
  constructor(private readonly deps: ScriptDeps) {}

  private hangUp(session: CallSession, why: string): void {
    this.deps.outcome(session, { act: 'hang up', why });
  }

  /** Makes the call's phrases while the phone rings, so that an answer is spoken to at once. */
  prepare(session: CallSession): void {
    for (const phrase of [...Object.values(callPhrases(session.speech)), ...decisionPhrases(session)])
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
    if (await this.decisionDigit(session, key)) return;
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
        await this.start(session, [this.say(session, callPhrases(session.speech).keys), ...this.choices(session)]);
        break;
      case 'ignore':
        break;
    }
  }

  /**
   * A key on an answered person's call that offers decisions (core/calls/decision-keys): a decision
   * key, or a digit of its PIN (never on the timeline). False: the keypad's own rules apply.
   */
  private async decisionDigit(session: CallSession, key: string): Promise<boolean> {
    const script = scriptOf(session);
    const offer = decisionOffer(session.call);
    if (offer.keys.length === 0 || session.line.answeredAt === undefined) return false;
    if (session.detection.machine || script.acknowledged) return false;
    if (script.decision.phase === 'pin' && script.checkingPin) return true;
    if (script.decision.phase === 'done') {
      this.noteKey(session, `${key}: ignored (the decision was refused)`);
      return true;
    }
    const step = pressDecision(script.decision, key, offer.keys, offer.pin);
    if (step.do === 'not-mine') return false;
    script.decision = step.state;
    await this.decisionStep(session, key, step);
    return true;
  }

  private async decisionStep(session: CallSession, key: string, step: DecisionStep): Promise<void> {
    const state = session.script.decision;
    switch (step.do) {
      case 'decide':
        this.noteKey(session, `${key}: decision ${step.choice.label}`);
        await this.decide(session, step.choice);
        break;
      case 'ask-pin':
        if (state.phase === 'pin') this.noteKey(session, `${key}: ${state.choice.label}, PIN asked for`);
        await this.interrupt(session);
        await this.start(session, [this.say(session, wordsOf(session).enterPin)]);
        break;
      case 'collect':
        // A digit of the PIN: what plays stops, and a pause ends the PIN.
        await this.interrupt(session);
        arm(session, PIN_PAUSE_MS, () => void this.pinPause(session));
        break;
      case 'check-pin':
        await this.checkPin(session, step.digits);
        break;
      case 'not-mine':
        break;
    }
  }

  /** The pause after a PIN's digit ran out: what was typed is checked. */
  private async pinPause(session: CallSession): Promise<void> {
    const step = pinPaused(session.script.decision);
    if (step.do === 'check-pin') await this.checkPin(session, step.digits);
  }

  /** The PIN typed, checked against its hash: the decision, another try, or (the last wrong) refused. */
  private async checkPin(session: CallSession, digits: string): Promise<void> {
    const script = scriptOf(session);
    const state = script.decision;
    if (state.phase !== 'pin') return;
    disarmAll(session);
    this.armLongestCall(session);
    script.checkingPin = true;
    let right: boolean;
    try {
      right = await this.deps.settings.store.accounts.verifyDecisionPin(session.call.userId, digits);
    } catch (error) {
      // Never the PIN itself in the log.
      this.deps.settings.logger.error('could not check a decision PIN', { call_id: session.call.callId, error });
      script.decision = { phase: 'done' };
      await this.closeWith(session, wordsOf(session).notSent, 'the decision PIN could not be checked');
      return;
    } finally {
      script.checkingPin = false;
    }
    if (!this.deps.isActive(session)) return;
    const verdict = pinChecked(state, right);
    script.decision = verdict.state;
    const words = wordsOf(session);
    switch (verdict.do) {
      case 'decide':
        this.deps.ledger.note(session.call.callId, 'pin', 'right');
        await this.decide(session, verdict.choice);
        break;
      case 'wrong-pin':
        this.deps.ledger.note(session.call.callId, 'pin', `wrong (${verdict.triesLeft} left)`);
        await this.stopPlayback(session);
        await this.start(session, [this.say(session, words.wrongPin)]);
        break;
      case 'refuse':
        this.deps.ledger.note(session.call.callId, 'pin', 'wrong: the decision is refused');
        this.deps.outcome(session, { act: 'decision refused', why: WRONG_PIN });
        await this.closeWith(session, words.refused, `decision refused: ${WRONG_PIN}`);
        break;
    }
  }

  /** Says the words, then hangs up (`why`). */
  private async closeWith(session: CallSession, text: string, why: string): Promise<void> {
    disarmAll(session);
    arm(session, CONFIRMATION_MS, () => this.hangUp(session, why));
    await this.stopPlayback(session);
    await this.start(session, [this.say(session, text)], why);
  }

  /**
   * A decision key (and its PIN, if any): the desk ends the call with it and answers whether that
   * end was recorded: "Buy. Sent." only once the write moved the step. The call has ended, so these
   * last words play on its channel without the script's timers, and the line is hung up after them.
   */
  private async decide(session: CallSession, { key, label }: DecisionKey): Promise<void> {
    scriptOf(session).acknowledged = true;
    disarmAll(session);
    const recording = this.deps.outcome(session, { act: 'decision', key, label });
    await this.stopPlayback(session);
    const recorded = (await recording) ?? false;
    const words = wordsOf(session);
    const { tts, ari, logger } = this.deps.settings;
    try {
      const said = await tts.synthesize(recorded ? words.sent(label) : words.notSent, session.speech.synthesis);
      await ari.play(session.channelId, `${session.channelId}-p${++scriptOf(session).playbackSeq}`, [said.media]);
      await sleep(said.durationMs + CLOSING_MARGIN_MS);
    } catch (error) {
      // The person hung up first: nothing is left to say or to hang up.
      if (channelGone(error)) return;
      logger.warn('could not say that the decision was sent', { call_id: session.call.callId, error });
    }
    this.hangUp(session, recorded ? 'decision sent' : 'the decision could not be recorded');
  }

  private noteKey(session: CallSession, detail: string): void {
    for (const alert of alertsOf(session)) this.deps.ledger.note(alert.callId, KEY_EVENT, detail);
  }

  /** The decision keys said ("Press 7 for buy, 8 for skip"), when the call offers them. */
  private choices(session: CallSession): Array<Promise<string>> {
    const { keys } = decisionOffer(session.call);
    return keys.length > 0 ? [this.say(session, wordsOf(session).choices(keys))] : [];
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
    await this.start(session, [
      ...intro,
      ...keys,
      session.messageMedia!,
      ...this.choices(session),
      this.say(session, phrases.prompt),
    ]);
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

const wordsOf = (session: CallSession): DecisionWords => DECISION_WORDS[session.speech.language.code];

/** The phrases a call with decision keys may say, made ahead while it rings. */
function decisionPhrases(session: CallSession): string[] {
  const { keys, pin } = decisionOffer(session.call);
  if (keys.length === 0) return [];
  const words = wordsOf(session);
  const guarded = pin ? [words.enterPin, words.wrongPin, words.refused] : [];
  return [words.choices(keys), ...keys.map((k) => words.sent(k.label)), ...guarded];
}

/** ARI's answer to a request on a channel that has hung up meanwhile. */
function channelGone(error: unknown): boolean {
  return error instanceof AriError && error.kind === 'http' && (error.status === 404 || error.status === 409);
}
