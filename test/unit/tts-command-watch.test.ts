// The operator's speech command when the host has no inotify watch left (fs.watch throws ENOSPC
// or EMFILE on a busy host): a fault this machine cannot be made to give to one process alone, so
// fs.watch is replaced here by a stand-in that throws, named so. The command still runs under its
// time and size bounds; before, the time bound's timer threw and took serve down.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const watchThatThrows = () => {
    throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
  };
  return { ...real, default: { ...real, watch: watchThatThrows }, watch: watchThatThrows };
});

const { runSpeechCommand, SpeechCommandError } = await import('../../src/speech/tts-command.js');

describe('the speech command without inotify', () => {
  const made: string[] = [];
  const work = () => {
    made.push(fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-ttscmd-')));
    return made.at(-1)!;
  };
  afterAll(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('returns what the command wrote', async () => {
    expect((await runSpeechCommand('cat', 'hello', work(), { timeoutMs: 5_000, maxBytes: 1_000 })).toString()).toBe(
      'hello',
    );
  });

  it('stops a command past its time bound with an error, and nothing escapes into a timer', async () => {
    const escaped: unknown[] = [];
    const onUncaught = (error: unknown) => escaped.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      await expect(runSpeechCommand('sleep 5', 'x', work(), { timeoutMs: 200, maxBytes: 1_000 })).rejects.toThrow(
        SpeechCommandError,
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(escaped).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('stops a runaway writer by the size check alone', async () => {
    // Bounded (50 MB) even should the check fail: an unbounded writer would fill the disk.
    await expect(
      runSpeechCommand('head -c 50000000 /dev/zero', 'x', work(), { timeoutMs: 5_000, maxBytes: 100_000 }),
    ).rejects.toThrow(/more than 100000 bytes/);
  });
});
