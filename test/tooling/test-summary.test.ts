// npm test's closing line, from a real vitest run over small test files made here: a file that fails
// to run (its beforeAll throws) or whose import fails counts as failed, never as "0 failed".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

// Inside the checkout, so that the files' `import 'vitest'` finds node_modules.
fs.mkdirSync(path.join(REPO_ROOT, 'test-results'), { recursive: true });
const dir = fs.mkdtempSync(path.join(REPO_ROOT, 'test-results', 'summary-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(files: Record<string, string>): { summary: string; lines: string[] } {
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  fs.writeFileSync(path.join(dir, 'vitest.config.mjs'), "export default { test: { include: ['*.test.mjs'] } };\n");
  const report = path.join(dir, 'report.json');
  fs.rmSync(report, { force: true });
  const vitest = spawnSync(
    process.execPath,
    [
      path.join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--root',
      dir,
      '--reporter=json',
      `--outputFile.json=${report}`,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  const summary = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, 'scripts/test-summary.mjs'), report, String(vitest.status)],
    { encoding: 'utf8' },
  );
  const lines = summary.stdout.trim().split('\n');
  return { summary: lines.at(-1)!, lines };
}

const passing =
  "import { it, expect } from 'vitest';\nit('passes', () => expect(1).toBe(1));\nit.skip('skipped', () => {});\n";

it('counts passed, failed and skipped tests', () => {
  const failing = "import { it, expect } from 'vitest';\nit('fails', () => expect(1).toBe(2));\n";
  expect(run({ 'a.test.mjs': passing, 'b.test.mjs': failing }).summary).toBe('1 passed, 1 failed, 1 skipped');
}, 90_000);

it('counts a file whose beforeAll throws as failed, and names it', () => {
  const broken =
    "import { beforeAll, it } from 'vitest';\nbeforeAll(() => { throw new Error('setup exploded'); });\nit('never runs', () => {});\n";
  const { summary, lines } = run({ 'a.test.mjs': passing, 'b.test.mjs': broken });
  expect(summary).toMatch(/^1 passed, [1-9]\d* failed, \d+ skipped$/);
  expect(lines.join('\n')).toMatch(/b\.test\.mjs/);
}, 90_000);

it('counts a file that cannot be imported as failed', () => {
  const unloadable = "import { nothing } from './does-not-exist.mjs';\n";
  expect(run({ 'a.test.mjs': passing, 'b.test.mjs': unloadable }).summary).toBe('1 passed, 1 failed, 1 skipped');
}, 90_000);

it('says 1 failed when the runner wrote no report', () => {
  const summary = spawnSync(
    process.execPath,
    [path.join(REPO_ROOT, 'scripts/test-summary.mjs'), path.join(dir, 'missing.json'), '1'],
    { encoding: 'utf8' },
  );
  expect(summary.stdout.trim().split('\n').at(-1)).toBe('0 passed, 1 failed, 0 skipped');
});
