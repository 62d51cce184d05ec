// The operator's own speech engine (RINGHOOK_TTS_COMMAND) on a real call through the managed
// Asterisk to a SIPp phone. The plugged engine here is sox making a 1 kHz tone for any text, so its
// audio cannot be mistaken for the built-in engine's: every file Asterisk plays is that tone, and
// sound reaches the phone. A command that fails leaves the call to the built-in engine (flite), with
// a warning, and the call still speaks.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import { speechCacheKey } from '../../src/speech/tts.js';
import { createAccount } from '../helpers/accounts.js';
import { type CallingService, useCallingService } from '../helpers/calling-service.js';
import { freeUdpPort } from '../helpers/ports.js';
import { startRtpPhone } from '../helpers/rtp-phone.js';
import { smsSettled } from '../helpers/service.js';
import { startSipp } from '../helpers/sipp.js';
import { waitFor } from '../helpers/wait.js';
import { readPcm16 } from '../helpers/wav.js';

const TONE_COMMAND = 'cat >/dev/null; sox -n -r 16000 -b 16 -c 1 -t wav - synth 1.2 sine 1000 vol 0.5';
const FAILING_COMMAND = 'cat >/dev/null; echo "no voice model" >&2; exit 3';

/** A calling service whose ARI plays are recorded: `mediaOf(callId)` lists the files a call was played. */
function serviceWithPlays(engineCommand: string): { get(): CallingService; mediaOf(callId: string): string[] } {
  // No burst voice: a call whose own speech is forecast late for the first possible answer (the
  // command's time, a fallback's included, on a loaded machine: 1.3–3.6 s measured beside CPU hogs)
  // speaks flite's kal instead (core/speech/speech-plan), and these tests are about the command's voice and
  // its fallback, not the burst's. Without one the call keeps its own voice and waits for it.
  const service = useCallingService({
    RINGHOOK_AMD: 'off',
    RINGHOOK_TTS_COMMAND: engineCommand,
    RINGHOOK_BURST_VOICE: 'off',
  });
  const played: Array<{ channelId: string; media: string[] }> = [];
  beforeAll(() => {
    const ari = service.get().t.service.telephony!.ari;
    const play = ari.play.bind(ari);
    ari.play = (channelId, playbackId, media) => {
      played.push({ channelId, media: [media].flat() });
      return play(channelId, playbackId, media);
    };
  });
  return {
    get: () => service.get(),
    mediaOf: (callId) => played.filter((p) => p.channelId === `rh-${callId}`).flatMap((p) => p.media),
  };
}

/** The file the speech of `text` was made into, as Asterisk is told to play it. */
const speechFile = (calling: CallingService, text: string, voice: string, engine: 'flite' | 'command') =>
  `sound:${path.join(calling.t.dataDir, 'media', 'speech', speechCacheKey(text, voice, engine))}`;

/** An alert answered by the phone: the call's id, once it ended, and how many loud packets the phone got. */
async function answeredAlert(
  calling: CallingService,
  message: string,
): Promise<{ callId: string; status: string; loud: number }> {
  const account = await createAccount(calling.t.service.stores.accounts, { requireConfirm: false });
  const rtp = await startRtpPhone(await freeUdpPort());
  const phone = await startSipp({
    scenario: 'answer',
    port: calling.trunkPort,
    keys: { rtp_sink_port: rtp.port },
    timeoutSec: 90,
  });
  try {
    const res = await calling.t.post(`/webhook/${account.userId}/${account.apiKey}`, message, {
      'content-type': 'text/plain',
    });
    expect(res.status, res.text).toBe(200);
    const callId = res.json.call_id as string;
    const row = await calling.t.waitForCall(callId, smsSettled, 60_000);
    return { callId, status: row.status, loud: rtp.loudAt().length };
  } finally {
    await phone.stop();
    await rtp.close();
  }
}

/** Zero crossings a second of a 16-bit mono WAV: about 2,000 for a 1 kHz tone, far fewer and uneven for speech. */
function zeroCrossingsPerSecond(file: string): number {
  const { samples, sampleRate } = readPcm16(file);
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return crossings / (samples.length / sampleRate);
}

describe('a plugged engine', () => {
  const service = serviceWithPlays(TONE_COMMAND);

  it('speaks every part of the call, and its audio reaches the phone', async () => {
    const calling = service.get();
    const call = await answeredAlert(calling, 'BTCUSDT above 97000');
    expect(call.status).toBe('completed');
    const media = service.mediaOf(call.callId);
    expect(media.length).toBeGreaterThanOrEqual(3);
    expect(media[0]).toBe(speechFile(calling, LANGUAGES.en.prompts.intro, TONE_COMMAND, 'command'));
    for (const uri of media) {
      const rate = zeroCrossingsPerSecond(`${uri.slice('sound:'.length)}.wav`);
      expect(rate, uri).toBeGreaterThan(1_900);
      expect(rate, uri).toBeLessThan(2_100);
    }
    expect(call.loud).toBeGreaterThan(50);
  }, 120_000);
});

describe('a plugged engine that fails', () => {
  const service = serviceWithPlays(FAILING_COMMAND);

  it('falls back to the built-in engine with a warning: the call still speaks', async () => {
    const calling = service.get();
    const call = await answeredAlert(calling, 'ETHUSDT below 3000');
    expect(call.status).toBe('completed');
    expect(service.mediaOf(call.callId)[0]).toBe(speechFile(calling, LANGUAGES.en.prompts.intro, 'slt', 'flite'));
    expect(call.loud).toBeGreaterThan(50);
    const warned = await waitFor(
      'the fallback warning',
      () => calling.t.logs.find((l) => /speech command failed/.test(String(l.msg))),
      5_000,
    );
    expect(JSON.stringify(warned)).toMatch(/no voice model|exit/);
  }, 120_000);
});
