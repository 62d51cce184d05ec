// The speech engines' phonemes for many texts at once: one espeak-ng process per voice and one
// flite process for all, where a process per text cost ~37 s of CPU a run (speak-phonemes.test.ts).
// espeak-ng reading stdin line by line (no --stdin, no text argument) says each line as a text of its
// own; flite says each paragraph (texts apart by a blank line) as an utterance of its own. Between two
// texts a marker line, said alone, whose phonemes mark where one text's end; a text's phonemes are
// then the same as from a process of its own (test/unit/engine-phonemes.test.ts checks every text).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Said between two texts; its phonemes are a line of their own that no alert's are. */
const MARKER = 'zq zq zq zq';

function run(program: string, args: string[], input?: string): string {
  const done = spawnSync(program, args, { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (done.status !== 0) throw new Error(`${program} failed: ${done.stderr}`);
  return done.stdout;
}

/** espeak-ng's phonemes for a text, in a voice (-x: phoneme mnemonics), from a process of its own. */
export function espeakOne(text: string, voice: string): string {
  return run('espeak-ng', ['-q', '-x', '-v', voice, '--stdin'], text);
}

/** flite's phones for a text (its default voice), from a process of its own. */
export function fliteOne(text: string): string {
  return run('flite', ['-ps', '-o', '/dev/null', '-t', text]);
}

/** Whether a text can go in a batch: one line, short enough for espeak-ng's line reader (1000 bytes). */
const batchable = (text: string) => !/[\r\n]/.test(text) && Buffer.byteLength(text) < 900 && text.trim() !== '';

/** The output of a batch cut at the marker's lines: each text's own lines, as its own process writes them. */
function cut(output: string, marker: string, texts: readonly string[]): Map<string, string> {
  const lines = output.split('\n');
  const found = new Map<string, string>();
  let current: string[] = [];
  let index = 0;
  for (const line of lines.slice(0, -1)) {
    if (line === marker) {
      found.set(texts[index++] as string, current.map((l) => `${l}\n`).join(''));
      current = [];
    } else current.push(line);
  }
  if (index !== texts.length || current.length > 0 || lines.at(-1) !== '')
    throw new Error(`a batch of ${texts.length} texts came back as ${index}: the marker was not where expected`);
  return found;
}

function batch(
  texts: readonly string[],
  one: (text: string) => string,
  many: (texts: readonly string[]) => Map<string, string>,
): Map<string, string> {
  const unique = [...new Set(texts)];
  const together = unique.filter(batchable);
  const found = together.length > 0 ? many(together) : new Map<string, string>();
  for (const text of unique) if (!found.has(text)) found.set(text, one(text));
  return found;
}

/** espeak-ng's phonemes for each text in a voice, from one process; the same as espeakOne's. */
export function espeakMany(texts: readonly string[], voice: string): Map<string, string> {
  return batch(
    texts,
    (text) => espeakOne(text, voice),
    (together) => {
      const marker = espeakOne(MARKER, voice).replace(/\n$/, '');
      if (marker.includes('\n') || marker === '') throw new Error(`espeak-ng's ${voice} says the marker in lines`);
      const input = together.map((text) => `${text}\n${MARKER}\n`).join('');
      return cut(run('espeak-ng', ['-q', '-x', '-v', voice], input), marker, together);
    },
  );
}

/** flite's phones for each text, from one process; the same as fliteOne's. */
export function fliteMany(texts: readonly string[]): Map<string, string> {
  return batch(texts, fliteOne, (together) => {
    const marker = fliteOne(MARKER).replace(/\n$/, '');
    if (marker.includes('\n') || marker === '') throw new Error('flite says the marker in lines');
    // flite reads a file (it cannot open /dev/stdin when that is a socket, as Node's pipes are).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-flite-'));
    const file = path.join(dir, 'texts.txt');
    try {
      fs.writeFileSync(file, together.map((text) => `${text}\n\n${MARKER}\n\n`).join(''));
      return cut(run('flite', ['-ps', '-o', '/dev/null', '-f', file]), marker, together);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
