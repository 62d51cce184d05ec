// The formatter and the linter (biome, configured in biome.json) pass on the sources, tests,
// scripts and benchmarks: a file not formatted or a new warning fails the suite, with biome's own
// explanation in the failure (`npx biome check --write .` fixes most).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

it('biome finds nothing to format or lint', () => {
  const biome = path.join(REPO_ROOT, 'node_modules', '.bin', 'biome');
  const run = spawnSync(biome, ['ci', '--colors=off', '--error-on-warnings', '.'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  expect(run.error).toBeUndefined();
  expect(`${run.stdout}\n${run.stderr}`.trim(), 'biome ci').not.toMatch(/lint\/|format/);
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
}, 60_000);
