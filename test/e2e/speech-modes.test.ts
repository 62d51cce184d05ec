// Speech files under a real serve with its managed Asterisk, the media folder outside the data dir
// (RINGHOOK_MEDIA_DIR) as an older version left it (0755, a 0644 file): at start the folders become
// 0700 and every speech file 0600, the fixed phrases serve makes at start included.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { freeUdpPort } from '../helpers/ports.js';
import { managedTelephonyEnv, realClock, startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let media: string;
let umask: number;

beforeAll(async () => {
  await provisionAsterisk();
  umask = process.umask(0o022);
  media = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-media-'));
  fs.chmodSync(media, 0o755);
  fs.mkdirSync(path.join(media, 'speech'), { mode: 0o755 });
  fs.writeFileSync(path.join(media, 'speech', 'older.wav'), 'RIFF', { mode: 0o644 });
  t = await startTestService(
    { ...(await managedTelephonyEnv(await freeUdpPort())), RINGHOOK_MEDIA_DIR: media },
    realClock(),
  );
}, 300_000);

afterAll(async () => {
  await t?.stop();
  process.umask(umask);
  if (media) fs.rmSync(media, { recursive: true, force: true });
});

const modeOf = (file: string) => fs.statSync(file).mode & 0o7777;

it('makes the media folders 0700 and every speech file 0600 (readable by serve’s user, and so its Asterisk, only)', async () => {
  expect(modeOf(media)).toBe(0o700);
  const speech = path.join(media, 'speech');
  expect(modeOf(speech)).toBe(0o700);
  const wavs = () => fs.readdirSync(speech).filter((f) => f.endsWith('.wav'));
  // The older file and the fixed phrases serve starts making at start: it answers before they are
  // made (they were not yet, once, with five files beside it).
  await expect.poll(() => wavs().length, { timeout: 20_000 }).toBeGreaterThan(1);
  for (const f of wavs()) expect(modeOf(path.join(speech, f)), f).toBe(0o600);
});
