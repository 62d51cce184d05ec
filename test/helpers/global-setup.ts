// Runs once in vitest's main process before any worker starts: builds dist/ for the files that run
// the real CLI or serve, so that parallel workers never compile it at the same time (each one's
// buildOnce would otherwise rewrite dist/ under the others' feet). `npm test` built it already
// (RINGHOOK_TEST_DIST_BUILT=1); a quick run skips the build when dist/ is newer than every source.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildOnce, REPO_ROOT } from './cli.js';

const STAMP = path.join(REPO_ROOT, 'dist', '.built-for-tests');

function newestChange(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(file) : fs.statSync(file).mtimeMs);
  }
  return newest;
}

function builtAt(): number {
  try {
    return fs.statSync(STAMP).mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): () => void {
  if (process.env.RINGHOOK_TEST_DIST_BUILT !== '1') {
    const sources = Math.max(
      newestChange(path.join(REPO_ROOT, 'src')),
      ...['tsconfig.json', 'tsconfig.build.json', 'package.json'].map(
        (f) => fs.statSync(path.join(REPO_ROOT, f)).mtimeMs,
      ),
    );
    if (builtAt() <= sources) {
      buildOnce();
      fs.writeFileSync(STAMP, `${new Date().toISOString()}\n`);
    }
  }
  // Workers are started after this, with this environment: their buildOnce does nothing.
  process.env.RINGHOOK_TEST_DIST_BUILT = '1';
  // Where the run's empty PostgreSQL cluster is made by the first file that needs one (test/helpers/postgres.ts).
  const pgTemplate = path.join(os.tmpdir(), `ringhook-pg-template-${process.pid}`);
  process.env.RINGHOOK_TEST_PG_TEMPLATE = pgTemplate;
  return () => fs.rmSync(pgTemplate, { recursive: true, force: true });
}
