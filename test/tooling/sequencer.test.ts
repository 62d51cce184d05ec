// The order the files start in (test/helpers/sequencer.ts): the last run's durations on this machine,
// else the committed test/durations.json (a fresh clone, as in CI), and a file in neither first.
// A stand-in, named so: vitest's context is given as the two things the sequencer reads from it (its
// cache's durations and sizes, its root), since a real one cannot be made to hold a chosen last run;
// the real context orders every `npm test` (its files' start times are in test-results/vitest.json).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { LongestFirst } from '../helpers/sequencer.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-sequencer-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** The stand-in for vitest's context: its cache and its root, nothing else. */
function order(options: {
  committed?: Record<string, number>;
  lastRunMs?: Record<string, number>;
  sizes?: Record<string, number>;
  files: string[];
}): Promise<string[]> {
  fs.mkdirSync(path.join(root, 'test'), { recursive: true });
  fs.rmSync(path.join(root, 'test', 'durations.json'), { force: true });
  if (options.committed) fs.writeFileSync(path.join(root, 'test', 'durations.json'), JSON.stringify(options.committed));
  const name = (key: string) => key.slice(key.indexOf(':') + 1);
  const ctx = {
    config: { root },
    cache: {
      getFileTestResults: (key: string) => {
        const ms = options.lastRunMs?.[name(key)];
        return ms === undefined ? undefined : { duration: ms, failed: false };
      },
      getFileStats: (key: string) => ({ size: options.sizes?.[name(key)] ?? 0 }),
    },
  } as unknown as Vitest;
  const specs = options.files.map(
    (file) => ({ project: { name: 'peers' }, moduleId: path.join(root, file) }) as unknown as TestSpecification,
  );
  return new LongestFirst(ctx).sort(specs).then((sorted) => sorted.map((s) => path.relative(root, s.moduleId)));
}

it('a fresh clone starts the files longest first by the committed durations, a new file before them', async () => {
  const sorted = await order({
    committed: { 'test/a.test.ts': 5, 'test/b.test.ts': 300, 'test/c.test.ts': 40 },
    sizes: { 'test/a.test.ts': 90_000, 'test/new-small.test.ts': 10, 'test/new-large.test.ts': 5_000 },
    files: ['test/a.test.ts', 'test/new-small.test.ts', 'test/c.test.ts', 'test/b.test.ts', 'test/new-large.test.ts'],
  });
  expect(sorted).toEqual([
    'test/new-large.test.ts',
    'test/new-small.test.ts',
    'test/b.test.ts',
    'test/c.test.ts',
    'test/a.test.ts',
  ]);
});

it("this machine's last run comes before the committed durations", async () => {
  const sorted = await order({
    committed: { 'test/a.test.ts': 5, 'test/b.test.ts': 300 },
    lastRunMs: { 'test/a.test.ts': 400_000 },
    files: ['test/b.test.ts', 'test/a.test.ts'],
  });
  expect(sorted).toEqual(['test/a.test.ts', 'test/b.test.ts']);
});

it('without durations.json, by size, the larger first', async () => {
  const sorted = await order({
    sizes: { 'test/a.test.ts': 1, 'test/b.test.ts': 2 },
    files: ['test/a.test.ts', 'test/b.test.ts'],
  });
  expect(sorted).toEqual(['test/b.test.ts', 'test/a.test.ts']);
});

it('the committed durations name files that exist, each with a duration', () => {
  const committed = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'durations.json'), 'utf8'));
  for (const [file, seconds] of Object.entries(committed)) {
    expect(fs.existsSync(path.join(__dirname, '..', '..', file)), file).toBe(true);
    expect(seconds).toBeGreaterThan(0);
  }
});
