// The operator's speech engine (RINGHOOK_TTS_COMMAND), with real small engines written here as
// scripts: one that speaks (espeak-ng), and ones that fail, hang, write garbage or too much (the
// runaway writer: tts-command-runaway.test.ts); each failure falls back to the built-in engine with a warning.
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/log.js';
import { createTts, speechCacheKey, type SynthesizedSpeech } from '../../src/speech/tts.js';
import type { TtsOptionsInput } from '../../src/speech/tts-api.js';
import { runSpeechCommand } from '../../src/speech/tts-command.js';

let dir: string;
let cacheDir: string;
let logLines: Array<{ level: string; msg: string; reason?: string }>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rh-tts-command-'));
  cacheDir = join(dir, 'cache');
  logLines = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function engine(name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

function tts(command: string, options: Partial<TtsOptionsInput> = {}) {
  const logger = createLogger({ level: 'debug', write: (line) => logLines.push(JSON.parse(line)) });
  return createTts({ cacheDir, command, ...options }, { logger });
}

const warnings = () => logLines.filter((l) => l.level === 'warn');

async function expectTelephoneWav(speech: SynthesizedSpeech) {
  const bytes = await readFile(speech.path);
  expect(bytes.toString('latin1', 0, 4)).toBe('RIFF');
  expect(bytes.toString('latin1', 8, 12)).toBe('WAVE');
  expect(bytes.readUInt16LE(20)).toBe(1); // PCM
  expect(bytes.readUInt16LE(22)).toBe(1); // mono
  expect(bytes.readUInt32LE(24)).toBe(8000);
  expect(bytes.readUInt16LE(34)).toBe(16);
  expect(speech.durationMs).toBeGreaterThan(300);
  expect(speech.media).toBe(`sound:${speech.path.slice(0, -4)}`);
}

const builtInPath = (text: string) => join(cacheDir, `${speechCacheKey(text, 'slt', 'flite')}.wav`);

describe('a speech command that works', () => {
  it('speaks with espeak-ng writing to a pipe, as an 8 kHz mono WAV cached under the command', async () => {
    const command = await engine('espeak.sh', 'exec espeak-ng --stdin -w /dev/stdout');
    const t = tts(command);
    const first = await t.synthesize('A A P L on Nasdaq, one hundred eighty-seven point two.');
    expect(first.cached).toBe(false);
    expect(first.path).toBe(
      join(
        cacheDir,
        `${speechCacheKey('A A P L on Nasdaq, one hundred eighty-seven point two.', command, 'command')}.wav`,
      ),
    );
    await expectTelephoneWav(first);
    expect(first.durationMs).toBeGreaterThan(2000);
    expect(warnings()).toEqual([]);
    const again = await t.synthesize('A A P L on Nasdaq, one hundred eighty-seven point two.');
    expect(again).toMatchObject({ cached: true, path: first.path });
    // The command's own files went with the temp dir.
    expect((await readdir(cacheDir)).filter((name) => name.startsWith('.tmp-'))).toEqual([]);
  });

  it('goes through a shell: a pipeline and a temp file work, and the text never reaches the command line', async () => {
    const out = join(dir, 'out.wav');
    const command = `cat | espeak-ng --stdin -w ${out} && cat ${out}`;
    const speech = await tts(command).synthesize('$(touch pwned) `touch pwned2`; rm -rf /');
    await expectTelephoneWav(speech);
    expect(await readdir(process.cwd())).not.toContain('pwned');
    expect(warnings()).toEqual([]);
  });

  it('keys the cache by the command: another command, another file', async () => {
    const a = await tts(await engine('a.sh', 'exec espeak-ng --stdin -w /dev/stdout')).synthesize('same words');
    const b = await tts(await engine('b.sh', 'exec espeak-ng -v en-gb --stdin -w /dev/stdout')).synthesize(
      'same words',
    );
    expect(a.path).not.toBe(b.path);
    expect(b.cached).toBe(false);
  });

  it('is not used when a built-in engine is asked for by name', async () => {
    const counter = join(dir, 'runs');
    const command = await engine('counted.sh', `echo run >> ${counter}; exec espeak-ng --stdin -w /dev/stdout`);
    const speech = await tts(command).synthesize('hello', { engine: 'flite' });
    expect(speech.path).toBe(builtInPath('hello'));
    await expect(readFile(counter)).rejects.toThrow();
  });
});

describe('a speech command that fails falls back to the built-in engine, with a warning', () => {
  it('exits non-zero', async () => {
    const command = await engine('fails.sh', 'cat > /dev/null; echo "model not found" >&2; exit 3');
    const speech = await tts(command).synthesize('fallback when it fails');
    expect(speech.path).toBe(builtInPath('fallback when it fails'));
    await expectTelephoneWav(speech);
    expect(warnings()).toEqual([
      expect.objectContaining({
        msg: 'the speech command failed; speaking with the built-in engine',
        reason: 'it exited with 3: model not found',
      }),
    ]);
  });

  it('hangs: killed at the bound, with what it started', async () => {
    const pidFile = join(dir, 'child.pid');
    const command = await engine('hangs.sh', `sleep 30 & echo $! > ${pidFile}; wait`);
    const started = Date.now();
    const speech = await tts(command, { commandTimeoutMs: 500 }).synthesize('fallback when it hangs');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(speech.path).toBe(builtInPath('fallback when it hangs'));
    await expectTelephoneWav(speech);
    expect(warnings()).toEqual([expect.objectContaining({ reason: 'it did not finish within 500 ms' })]);
    const pid = (await readFile(pidFile, 'utf8')).trim();
    await new Promise((r) => setTimeout(r, 200));
    const state = await readFile(`/proc/${pid}/stat`, 'utf8').then(
      (s) => s.split(') ')[1]?.[0],
      () => 'gone',
    );
    expect(['gone', 'Z']).toContain(state);
  });

  it('writes garbage', async () => {
    const command = await engine('garbage.sh', 'cat > /dev/null; head -c 5000 /dev/urandom');
    const speech = await tts(command).synthesize('fallback when it writes garbage');
    expect(speech.path).toBe(builtInPath('fallback when it writes garbage'));
    await expectTelephoneWav(speech);
    expect(warnings()).toEqual([
      expect.objectContaining({ reason: 'its output is not a usable WAV: it is not a RIFF/WAVE file' }),
    ]);
  });

  it('writes a WAV header with no audio', async () => {
    const command = await engine('empty.sh', 'espeak-ng -w /dev/stdout "" ');
    const speech = await tts(command).synthesize('fallback when it is silent');
    expect(speech.path).toBe(builtInPath('fallback when it is silent'));
    expect(warnings()[0]?.reason).toMatch(/^its output is not a usable WAV: it holds \d+ bytes of audio/);
  });

  it('writes too much', async () => {
    const command = await engine('floods.sh', 'head -c 30000000 /dev/zero');
    const speech = await tts(command, { commandMaxBytes: 100_000 }).synthesize('fallback when it floods');
    expect(speech.path).toBe(builtInPath('fallback when it floods'));
    expect(warnings()).toEqual([expect.objectContaining({ reason: 'it wrote more than 100000 bytes' })]);
  });

  it('cannot be run', async () => {
    const speech = await tts(join(dir, 'no-such-engine')).synthesize('fallback when it is missing');
    expect(speech.path).toBe(builtInPath('fallback when it is missing'));
    expect(warnings()[0]?.reason).toMatch(/^it exited with 127: .*not found/);
  });

  it('rests after a failure, so that a broken engine does not slow every call, then is tried again', async () => {
    let clock = 1_000_000;
    const counter = join(dir, 'runs');
    const command = await engine('flaky.sh', `echo run >> ${counter}; exit 1`);
    const logger = createLogger({ write: (line) => logLines.push(JSON.parse(line)) });
    const t = createTts({ cacheDir, command, commandRestMs: 60_000 }, { logger, now: () => clock });
    await t.synthesize('first');
    await t.synthesize('second');
    expect((await readFile(counter, 'utf8')).trim().split('\n')).toHaveLength(1);
    expect(warnings()).toHaveLength(1);
    clock += 60_000;
    await t.synthesize('third');
    expect((await readFile(counter, 'utf8')).trim().split('\n')).toHaveLength(2);
    expect(warnings()).toHaveLength(2);
  });
});

describe('runSpeechCommand', () => {
  const limits = { timeoutMs: 5000, maxBytes: 1000 };

  it('gives the text on stdin and returns stdout', async () => {
    const out = await runSpeechCommand('tr a-z A-Z', 'hello ünïcode', dir, limits);
    expect(out.toString('utf8')).toBe('HELLO üNïCODE');
  });

  it('lets the command open /dev/stdin and /dev/stdout', async () => {
    const out = await runSpeechCommand('cat /dev/stdin > /dev/stdout', 'by name', dir, limits);
    expect(out.toString()).toBe('by name');
  });

  it('does not mind a command that ignores its input', async () => {
    const out = await runSpeechCommand('printf ok', 'x'.repeat(1_000_000), dir, limits);
    expect(out.toString()).toBe('ok');
  });
});

describe('a burst of speech', () => {
  it('runs at most maxProcesses engines at once, in the order asked; the same text is made once', async () => {
    const log = join(dir, 'runs.log');
    // Each run notes its start and end; the engine is slow enough for runs to overlap if allowed.
    const command = await engine(
      'slow.sh',
      `echo "start $$" >>${log}; sleep 0.2; espeak-ng --stdin -w /dev/stdout; echo "end $$" >>${log}`,
    );
    const t = tts(command, { maxProcesses: 2 });
    const texts = ['one', 'two', 'three', 'four', 'one'];
    const made = await Promise.all(texts.map((text) => t.synthesize(text)));
    expect(made.map((m) => m.path)[4]).toBe(made[0]!.path);
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    expect(lines.filter((l) => l.startsWith('start'))).toHaveLength(4);
    let running = 0;
    let most = 0;
    for (const line of lines) most = Math.max(most, (running += line.startsWith('start') ? 1 : -1));
    expect(most).toBe(2);
    expect(warnings()).toEqual([]);
  });
});
