// The previous release of ringhook, built from git history for the upgrade tests: the tree of a
// recorded commit (git archive, so the repository's worktrees are untouched) in a temporary folder,
// this checkout's node_modules linked in, compiled with its own tsconfig.build.json. Kept between
// runs (keyed by the full commit id): building is slow on a shared machine.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './cli.js';

/** A release as releases.json records it: its tag, commit, date and the SQLite schema it leaves. */
export interface Release {
  name: string;
  commit: string;
  date: string;
  schema: number;
}

/** Every recorded release, newest first (releases.json, which each release adds a line to). */
export const RELEASES: readonly Release[] = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'releases.json'), 'utf8')) as { releases: Release[] }
).releases;

function releaseNamed(name: string): Release {
  const release = RELEASES.find((r) => r.name === name);
  if (!release) throw new Error(`releases.json has no ${name}`);
  return release;
}

/** The last release before the upgrade rule (#35, v0.0.2), which the rolling upgrade on PostgreSQL starts from. */
export const PREVIOUS_RELEASE = process.env.RINGHOOK_PREVIOUS_RELEASE ?? releaseNamed('v0.0.2').commit;

/**
 * Whether this checkout holds the previous release's commit: a shallow clone does not, and then the
 * upgrade tests are skipped with the reason printed (they cannot build what is not there).
 */
export function hasPreviousRelease(commit = PREVIOUS_RELEASE): boolean {
  try {
    execFileSync('git', ['-C', REPO_ROOT, 'rev-parse', '--verify', '--quiet', `${commit}^{commit}`], { stdio: 'pipe' });
    return true;
  } catch {
    console.warn(
      `the upgrade tests build the release ${commit} from git history, which this checkout lacks ` +
        '(a shallow clone?): skipped; `git fetch --unshallow` runs them',
    );
    return false;
  }
}

/** Builds (once) the previous release; returns its folder (bin/ringhook.js inside). */
export function buildPreviousRelease(commit = PREVIOUS_RELEASE): string {
  const full = execFileSync('git', ['-C', REPO_ROOT, 'rev-parse', `${commit}^{commit}`], { encoding: 'utf8' }).trim();
  const dir = path.join(os.tmpdir(), `ringhook-release-${full}`);
  // Built before, and its link to a checkout's node_modules still leads somewhere: the checkout that
  // built it may have been removed since (/tmp outlives it), and its serve then failed to start.
  if (fs.existsSync(path.join(dir, '.built')) && fs.existsSync(path.join(dir, 'node_modules', 'typescript')))
    return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const tar = execFileSync('git', ['-C', REPO_ROOT, 'archive', '--format=tar', full], { maxBuffer: 512 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  fs.symlinkSync(fs.realpathSync(path.join(REPO_ROOT, 'node_modules')), path.join(dir, 'node_modules'));
  execFileSync(
    process.execPath,
    [path.join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: dir, stdio: 'pipe' },
  );
  fs.writeFileSync(path.join(dir, '.built'), `${full}\n`);
  return dir;
}
