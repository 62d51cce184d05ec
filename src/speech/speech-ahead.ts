// Speech made ahead of its call. While a burst's alerts wait for the trunk's pace, an engine nobody
// waits for makes the messages of the next ones, in dial order, in the voice each will speak with
// when its turn comes (core/speech/speech-plan: voiceWhenDue; the owner's, when dearer than the burst
// voice, is left to the call's own plan). The call then finds its message made and is
// placed at once, where it would otherwise wait for speech made on a machine by then busy with the
// calls talking. Speech a call asks for comes first: tts.ahead starts a message only with an engine
// free and no call's speech waiting, at most one an engine.
import type { CallSpeech, Synthesis } from '../core/speech/languages.js';
import { burstVoiceOf, voiceWhenDue } from '../core/speech/speech-plan.js';
import { spokenAlerts } from '../core/speech/spoken-alerts.js';
import type { JapaneseReader } from '../core/speech/speakable.js';
import type { Tts } from './tts-api.js';

/** A queued alert; `speaks`: what its call would say alone (none for a test call or an account that takes none). */
export interface AlertToSpeak {
  callId: string;
  phone: string;
  speaks?: { message: string; speech: CallSpeech };
}

export interface SpeechAheadDeps {
  tts: Pick<Tts, 'ahead' | 'fastestMakingMs'>;
  /** RINGHOOK_BURST_VOICE. */
  burstVoice: string | undefined;
  /** RINGHOOK_TRUNK_CPS. */
  callsPerSecond: number | undefined;
  /** The kanji reader if loaded (asking for it otherwise): a Japanese message is made ahead only with it, as its call will say it. */
  japanese?: (() => JapaneseReader | undefined) | undefined;
}

export class SpeechAhead {
  /** Alerts whose speech was asked for ahead (made, being made, or failed: never asked twice). */
  private readonly asked = new Set<string>();

  constructor(private readonly deps: SpeechAheadDeps) {}

  /**
   * Asks for the speech of the first alerts of `line` (the queue in dial order, `length` long;
   * undefined for one not read yet) not asked for yet, while an engine is free. An alert whose phone
   * has one before it in the line is skipped: it will ride along in that one's call, which says
   * both. `done` is called as each is done (made or not): an engine is free again.
   */
  next(line: Iterable<AlertToSpeak | undefined>, length: number, done: () => void): void {
    let position = 0;
    const phones = new Set<string>();
    for (const alert of line) {
      position++;
      if (!alert) continue;
      const ridesAlong = phones.has(alert.phone);
      phones.add(alert.phone);
      const speaks = alert.speaks;
      if (!speaks || ridesAlong || this.asked.has(alert.callId)) continue;
      const voice = this.voiceWhenDue(speaks.speech, length - position);
      if (!voice) continue;
      // The text only when an engine takes it: this runs at every turn of the dialer.
      const japanese = speaks.speech.language.code === 'ja';
      const readJapanese = japanese ? this.deps.japanese?.() : undefined;
      if (japanese && this.deps.japanese && !readJapanese) continue;
      const say = () => spokenAlerts([speaks.message], speaks.speech.language, { readJapanese });
      const asked = this.deps.tts.ahead(say, voice.synthesis);
      if (!asked) return;
      this.asked.add(alert.callId);
      void asked.then(done);
    }
  }

  /** The alert left the queue; whether any other is still asked for. */
  forget(callId: string): boolean {
    this.asked.delete(callId);
    return this.asked.size > 0;
  }

  /** Forgets every alert not queued any more (those that left without forget). */
  keepOnly(isQueued: (callId: string) => boolean, queued: number): void {
    if (this.asked.size > queued) for (const id of this.asked) if (!isQueued(id)) this.asked.delete(id);
  }

  /**
   * The voice the alert's call will speak with when its turn comes; undefined when that is the
   * owner's and dearer than the burst voice. That one is left to the call's own plan: while a burst
   * is still arriving, few alerts are behind the first ones, and making slt ahead for them (the
   * owner's, ~10 times kal's cost) was CPU taken from the burst for calls that then spoke kal.
   */
  private voiceWhenDue(speech: CallSpeech, behind: number): { synthesis: Synthesis | undefined } | undefined {
    const { tts, burstVoice, callsPerSecond } = this.deps;
    const { burst, cheaper } = burstVoiceOf(speech.language, speech.synthesis, burstVoice, tts.fastestMakingMs);
    if (!cheaper) return { synthesis: speech.synthesis };
    return voiceWhenDue(behind, callsPerSecond, cheaper) === 'burst' ? { synthesis: burst } : undefined;
  }
}
