// The resident flite, built with the machine's real C compiler and run against Debian's real libflite.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { buildResidentFlite, type ResidentFliteBuild } from '../../src/speech/flite-resident.js';
import { type SpeechBinaries, SpeechWorkers } from '../../src/speech/speech-workers.js';
import { createTts } from '../../src/speech/tts.js';

const BINARIES = { flite: 'flite', 'espeak-ng': 'espeak-ng', festival: 'text2wave', sox: 'sox' };
const TEXT = 'burst alert 17: NVDA crossed 117';

let dir: string;
let cacheDir: string;
let buildDir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rh-flite-resident-'));
  cacheDir = join(dir, 'speech');
  buildDir = join(dir, 'build');
  await mkdir(cacheDir);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A job's directory with its text, as tts.ts writes it. */
async function job(name: string, text = TEXT): Promise<string> {
  await mkdir(join(cacheDir, name));
  await writeFile(join(cacheDir, name, 'text.txt'), text);
  return name;
}

function collectingLogger() {
  const lines: string[] = [];
  const logger = {
    ...silentLogger,
    info: (m: string) => void lines.push(`info ${m}`),
    warn: (m: string) => void lines.push(`warn ${m}`),
  };
  return { lines, logger };
}

/** Speech workers whose resident flite comes from `build`, with the lines they logged; closed after `use`. */
async function withWorkers(
  build: ResidentFliteBuild,
  use: (workers: SpeechWorkers, lines: string[]) => Promise<void>,
  binaries: SpeechBinaries = BINARIES,
): Promise<void> {
  const { lines, logger } = collectingLogger();
  const workers = new SpeechWorkers(cacheDir, binaries, {
    logger,
    buildResidentFlite: () => buildResidentFlite(buildDir, build),
  });
  try {
    await use(workers, lines);
  } finally {
    workers.close();
  }
}

const kalJob = async (workers: SpeechWorkers, name: string) =>
  workers.run({ step: 'flite', voice: 'kal', dir: await job(name) }, 10_000);

describe('resident flite', () => {
  it('is built once, under a name that holds its source', async () => {
    const program = await buildResidentFlite(buildDir);
    expect(program).toMatch(/\/flite-resident-[0-9a-f]{16}$/);
    const built = (await stat(program)).mtimeMs;
    expect(await buildResidentFlite(buildDir)).toBe(program);
    expect((await stat(program)).mtimeMs).toBe(built);
    expect(await readdir(buildDir)).toEqual([program.split('/').at(-1)]);
    const changed = await buildResidentFlite(buildDir, {
      source: `${await readFile('native/flite-resident.c', 'utf8')}\n// changed\n`,
    });
    expect(changed).not.toBe(program);
  });

  it("says what flite's own build for each voice says, byte for byte, whatever it said before", async () => {
    // The shells cannot make a thing here (no such flite): every WAV is the resident's.
    await withWorkers(
      {},
      async (workers, lines) => {
        expect(await workers.residentFliteReady()).toBe(true);
        // The 16 kHz voices draw random numbers: the same text twice, and after other voices, must not differ.
        for (const [i, voice] of ['awb', 'rms', 'slt', 'slt', 'kal', 'kal16', 'kal'].entries()) {
          const name = await job(`j${i}`);
          expect(await workers.run({ step: 'flite', voice, dir: name }, 10_000)).toBe(0);
          execFileSync(`flite_cmu_us_${voice}`, [
            '-f',
            join(cacheDir, name, 'text.txt'),
            '-o',
            join(cacheDir, name, 'cli.wav'),
          ]);
          expect(
            (await readFile(join(cacheDir, name, 'raw.wav'))).equals(await readFile(join(cacheDir, name, 'cli.wav'))),
            voice,
          ).toBe(true);
        }
        expect(lines).toEqual([expect.stringMatching(/^info flite runs resident/)]);
      },
      { ...BINARIES, flite: '/nonexistent/flite' },
    );
  });

  it('without a C compiler, flite runs a process per message and says why once', async () => {
    await withWorkers({ compiler: '/nonexistent/cc' }, async (workers, lines) => {
      expect(await workers.residentFliteReady()).toBe(false);
      expect(await kalJob(workers, 'a')).toBe(0);
      expect((await stat(join(cacheDir, 'a', 'raw.wav'))).size).toBeGreaterThan(10_000);
      expect(lines).toEqual([
        'info flite runs as a new process per message: the resident flite is not used, it could not be built: no C compiler (/nonexistent/cc) to build it',
      ]);
    });
  });

  // Fakes (named so) for faults the installed flite does not have: a libflite that cannot be
  // opened, and a resident that dies at its first job.
  it('a resident that cannot run here is not used: said once, and the shells make the speech', async () => {
    const noLibflite = '#include <stdio.h>\nint main(void) { fputs("no libflite here", stderr); return 2; }\n';
    await withWorkers({ source: noLibflite }, async (workers, lines) => {
      expect(await workers.residentFliteReady()).toBe(false);
      expect(await kalJob(workers, 'a')).toBe(0);
      expect(lines).toEqual([
        'info flite runs as a new process per message: the resident flite is not used, it could not be built: it could not be run: no libflite here',
      ]);
    });
  });

  it('a resident that ends before any resident answered is not used again; its job is made by the shells', async () => {
    const diesAtFirstJob = '#include <stdio.h>\nint main(void) { return getchar() == EOF ? 0 : 3; }\n';
    await withWorkers({ source: diesAtFirstJob }, async (workers, lines) => {
      expect(await workers.residentFliteReady()).toBe(true);
      expect(await kalJob(workers, 'a')).toBe(0);
      expect(await kalJob(workers, 'b')).toBe(0);
      expect(await workers.residentFliteReady()).toBe(false);
      expect(lines).toEqual([
        expect.stringMatching(/^info flite runs resident/),
        'warn flite runs as a new process per message: the resident flite is not used, it ended before its first answer (the speech process ended unexpectedly)',
      ]);
    });
  });

  it('tts speaks the same with it as without it', async () => {
    const { lines, logger } = collectingLogger();
    const plain = createTts({ cacheDir: join(dir, 'plain') });
    const resident = createTts({ cacheDir, residentFliteDir: buildDir }, { logger });
    try {
      // Built as tts starts; messages asked for meanwhile are made by the shells.
      await vi.waitFor(() => expect(lines).toEqual([expect.stringMatching(/^info flite runs resident/)]), {
        timeout: 30_000,
      });
      for (const text of [TEXT, 'ETH fell 3 percent']) {
        const a = await plain.synthesize(text, { voice: 'kal' });
        const b = await resident.synthesize(text, { voice: 'kal' });
        expect((await readFile(b.path)).equals(await readFile(a.path))).toBe(true);
      }
      expect(lines).toHaveLength(1);
    } finally {
      plain.close();
      resident.close();
    }
  });
});
