// Speech files are readable by the Asterisk that plays them only: real files under umask 022, made
// by the real engines (flite, espeak-ng through sox, the operator's command).
import { mkdtempSync, rmSync } from 'node:fs';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { folderMode, mediaModes } from '../../src/core/speech/media-modes.js';
import { prepareMediaDir } from '../../src/speech/media-dir.js';
import { createTts } from '../../src/speech/tts.js';

let dir: string;
let umask: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rh-media-'));
  umask = process.umask(0o022);
});
afterEach(() => {
  process.umask(umask);
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = async (file: string) => (await stat(file)).mode & 0o7777;

it('a managed Asterisk (serve’s own user): folders 0700, files 0600; an external one: 0750 and 0640 through the group', () => {
  expect(mediaModes('managed')).toEqual({ dir: 0o700, file: 0o600 });
  expect(mediaModes('external')).toEqual({ dir: 0o750, file: 0o640 });
  expect(folderMode(0o42775, 0o750)).toBe(0o2750);
  expect(folderMode(0o40755, 0o700)).toBe(0o700);
});

it.each([
  ['flite', {}],
  ['espeak-ng', { engine: 'espeak-ng' as const }],
  ['a command', { command: 'flite -o /dev/stdout' }],
])('writes each speech file with the mode given, whatever the umask (%s)', async (_name, engine) => {
  for (const fileMode of [0o600, 0o640]) {
    const tts = createTts({ cacheDir: join(dir, `speech-${fileMode}`), fileMode, ...engine });
    try {
      const speech = await tts.synthesize(`Mode ${fileMode.toString(8)} check.`);
      expect(await modeOf(speech.path)).toBe(fileMode);
    } finally {
      tts.close();
    }
  }
});

it('sets the media folders’ modes, keeps an operator’s setgid, and closes the files an older version left 0644', async () => {
  const media = join(dir, 'media');
  await mkdir(media, { mode: 0o755 });
  await chmod(media, 0o2775);
  await mkdir(join(media, 'speech'), { mode: 0o755 });
  const old = join(media, 'speech', 'old.wav');
  await writeFile(old, 'RIFF', { mode: 0o644 });
  const speech = prepareMediaDir(media, mediaModes('external'));
  expect(speech).toBe(join(media, 'speech'));
  expect(await modeOf(media)).toBe(0o2750);
  expect(await modeOf(speech)).toBe(0o2750);
  expect(await modeOf(old)).toBe(0o640);

  const fresh = join(dir, 'fresh');
  prepareMediaDir(fresh, mediaModes('managed'));
  expect(await modeOf(fresh)).toBe(0o700);
  expect(await modeOf(join(fresh, 'speech'))).toBe(0o700);
  prepareMediaDir(media, mediaModes('managed'));
  expect(await modeOf(old)).toBe(0o600);
});
