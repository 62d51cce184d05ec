import { describe, expect, it } from 'vitest';
import { callSpeech, defaultVoice } from '../../src/core/speech/languages.js';
import { type AlertToSpeak, SpeechAhead } from '../../src/speech/speech-ahead.js';

const english = callSpeech({ language: 'en', voice: defaultVoice('en'), intro: null });
const german = callSpeech({ language: 'de', voice: defaultVoice('de'), intro: null });
const alert = (callId: string, phone: string, message: string, speech = english): AlertToSpeak => ({
  callId,
  phone,
  speaks: { message, speech },
});

/** A speech engine taking `free` jobs, recording what it was asked: text and voice. */
function engine(free: number) {
  const asked: string[] = [];
  const finish: Array<() => void> = [];
  return {
    asked,
    finishAll: () => {
      for (const f of finish.splice(0)) f();
    },
    tts: {
      ahead: (say: () => string, o?: { voice?: string }) => {
        if (finish.length >= free) return undefined;
        asked.push(`${o?.voice ?? 'own'}: ${say()}`);
        return new Promise<void>((resolve) => finish.push(resolve));
      },
      fastestMakingMs: (o?: { voice?: string }) => (o?.voice === 'kal' ? 7 : 70),
    },
  };
}

describe('SpeechAhead', () => {
  it("in dial order while engines are free: the burst voice while more than a ring of calls wait behind; another language its own; the owner's dearer voice is left to the call", () => {
    const e = engine(10);
    const ahead = new SpeechAhead({ tts: e.tts, burstVoice: 'kal', callsPerSecond: 1 });
    const line = [
      alert('a', '+1', 'alpha'),
      alert('b', '+2', 'bravo'),
      alert('c', '+3', 'charlie', german),
      alert('d', '+4', 'delta'),
    ];
    ahead.next(line, line.length, () => {});
    // One a second, 1.5 a ring: 'a' has three behind it, 'b' two, 'd' none (its call says it in slt or kal, as it plans then).
    expect(e.asked).toEqual(['kal: alpha', 'kal: bravo', 'de: charlie']);
  });

  it('stops at the first alert no engine takes, asks for none twice, and goes on from there once one is done', () => {
    const e = engine(2);
    const ahead = new SpeechAhead({ tts: e.tts, burstVoice: undefined, callsPerSecond: undefined });
    const line = ['a', 'b', 'c', 'd'].map((id, i) => alert(id, `+${i}`, id));
    ahead.next(line, line.length, () => {});
    expect(e.asked).toEqual(['own: a', 'own: b']);
    ahead.next(line, line.length, () => {});
    expect(e.asked).toHaveLength(2);
    e.finishAll();
    ahead.next(line, line.length, () => {});
    expect(e.asked).toEqual(['own: a', 'own: b', 'own: c', 'own: d']);
  });

  it('skips an alert whose phone has one before it in the line (it rides along in that call), one not read yet, and one with nothing to say alone', () => {
    const e = engine(10);
    const ahead = new SpeechAhead({ tts: e.tts, burstVoice: undefined, callsPerSecond: undefined });
    const line = [
      alert('a', '+1', 'alpha'),
      undefined,
      { callId: 't', phone: '+3' },
      alert('b', '+1', 'bravo'),
      alert('c', '+2', 'charlie'),
    ];
    ahead.next(line, line.length, () => {});
    expect(e.asked).toEqual(['own: alpha', 'own: charlie']);
  });

  it('an alert that left the line and came back is asked for again; the asked are only those still queued', () => {
    const e = engine(10);
    const ahead = new SpeechAhead({ tts: e.tts, burstVoice: undefined, callsPerSecond: undefined });
    ahead.next([alert('a', '+1', 'alpha'), alert('b', '+2', 'bravo')], 2, () => {});
    ahead.forget('a');
    ahead.keepOnly((id) => id !== 'b', 0);
    ahead.next([alert('a', '+1', 'alpha'), alert('b', '+2', 'bravo')], 2, () => {});
    expect(e.asked).toEqual(['own: alpha', 'own: bravo', 'own: alpha', 'own: bravo']);
  });
});
