// A German account's call, through the managed Asterisk to a SIPp phone that answers and presses
// 1: every file Asterisk is told to play is German speech (the intro, the message with its decimal
// comma, the prompt, then the confirmation), made by espeak-ng's German voice, and it reaches the
// phone as sound. The files are named by the speech cache key (engine, voice, text), so the media
// URIs of the ARI playbacks say which text in which voice was played.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import { spokenAlerts } from '../../src/core/speech/spoken-alerts.js';
import { speechCacheKey } from '../../src/speech/tts.js';
import { createAccount } from '../helpers/accounts.js';
import { type CallingService, useCallingService } from '../helpers/calling-service.js';
import { startAnsweringPhone } from '../helpers/answering-phone.js';
import { spokenUlaw } from '../helpers/rtp-phone.js';
import { smsSettled } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

const service = useCallingService({ RINGHOOK_AMD: 'off' });
let calling: CallingService;
/** Every ARI play: the channel and the media URIs, in order. */
const played: Array<{ channelId: string; media: string[] }> = [];

beforeAll(() => {
  calling = service.get();
  const ari = calling.t.service.telephony!.ari;
  const play = ari.play.bind(ari);
  ari.play = (channelId, playbackId, media) => {
    played.push({ channelId, media: [media].flat() });
    return play(channelId, playbackId, media);
  };
});

it('a German account hears the German intro, message, prompt and confirmation, in espeak-ng German', async () => {
  const de = LANGUAGES.de;
  const message = 'DAX > 18250.5 on the 4H';
  const account = await createAccount(calling.t.service.stores.accounts, {
    language: 'de',
    smsBackup: true,
    requireConfirm: true,
  });
  expect(account).toMatchObject({ language: 'de', voice: 'espeak-ng', intro: null });
  const phone = await startAnsweringPhone(calling.trunkPort);
  const { rtp } = phone;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-languages-'));
  const hello = spokenUlaw(dir, 'hallo', 'Hallo?', { silenceMs: 2_000 });
  try {
    const res = await calling.t.post(`/webhook/${account.userId}/${account.apiKey}`, message, {
      'content-type': 'text/plain',
    });
    expect(res.status, res.text).toBe(200);
    const callId = res.json.call_id as string;
    const media = await phone.media();
    await waitFor(
      'the call to be answered',
      () => (calling.progress.get(callId)?.status === 'answered' ? true : undefined),
      20_000,
      10,
    );
    await rtp.play(media, hello.samples);
    await waitFor('the message at the phone', () => (rtp.loudAt().length > 50 ? true : undefined), 20_000, 20);
    await rtp.digit(media, '1');
    const row = await calling.t.waitForCall(callId, smsSettled, 60_000);
    expect(row.status).toBe('acknowledged');

    const speechDir = path.join(calling.t.dataDir, 'media', 'speech');
    const file = (text: string, voice = 'de', engine: 'espeak-ng' | 'flite' = 'espeak-ng') =>
      `sound:${path.join(speechDir, speechCacheKey(text, voice, engine))}`;
    const spoken = spokenAlerts([message], de);
    // The message as a German trader reads it: "über", the decimal comma, "4 Stunden".
    expect(spoken).toBe('D A X über 18250,5 on the 4 Stunden');
    const mine = played.filter((p) => p.channelId === `rh-${callId}`).map((p) => p.media);
    expect(mine).toEqual([
      [file(de.prompts.intro), file(de.prompts.keys), file(spoken), file(de.prompts.prompt)],
      [file(de.prompts.confirmed)],
    ]);
    // Nothing English was played to the call.
    const english = LANGUAGES.en.prompts;
    for (const text of [english.intro, english.keys, english.prompt, english.confirmed])
      expect(mine.flat()).not.toContain(file(text, 'slt', 'flite'));
    // The files Asterisk played are there, as 8 kHz WAV.
    for (const uri of mine.flat()) {
      const wav = fs.readFileSync(`${uri.slice('sound:'.length)}.wav`);
      expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
      expect(wav.readUInt32LE(24)).toBe(8000);
    }
    expect(rtp.loudAt().length).toBeGreaterThan(100);
  } finally {
    await phone.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
