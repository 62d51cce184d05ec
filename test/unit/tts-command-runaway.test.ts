// An operator's speech command that writes without end (RINGHOOK_TTS_COMMAND) is stopped soon after
// its output passes the size bound. How far past it depends on how soon the process notices, so the
// file runs alone (vitest.config.ts): with five other files on 2 cores, `cat /dev/zero` once wrote
// 332 MB before the check got the CPU.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runSpeechCommand } from '../../src/speech/tts-command.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rh-tts-runaway-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('stops a writer that does not stop at the size bound', async () => {
  const started = Date.now();
  await expect(runSpeechCommand('cat /dev/zero', '', dir, { timeoutMs: 20_000, maxBytes: 1_000_000 })).rejects.toThrow(
    'it wrote more than 1000000 bytes',
  );
  expect(Date.now() - started).toBeLessThan(5000);
  expect((await stat(join(dir, 'command-stdout'))).size).toBeLessThan(200_000_000);
});
