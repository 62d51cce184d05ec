// ringhook install-cli: puts a `ringhook` command on the PATH that runs this checkout's CLI (or this
// single executable), so that every command works from any folder and none goes through npx, which
// would ask the npm registry for a package of that name. npm start runs it with --quiet.
import { defineCommand } from 'citty';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultBinDir, isOurLauncher, LAUNCHER_NAME, launcherScript, pathDirs } from '../core/server/cli-launcher.js';
import { inSingleExecutable, repoRoot } from '../lib/assets.js';
import { UserError } from '../lib/errors.js';
import { commandMeta } from './commands.js';

/** What the launcher runs: this executable, or this Node with this checkout's bin/ringhook.js. */
function launchedCommand(): string[] {
  if (inSingleExecutable()) return [process.execPath];
  return [process.execPath, path.join(repoRoot(), 'bin', 'ringhook.js')];
}

/** The file's text when it is there (a link is read as a foreign file: never followed, never replaced). */
function existing(file: string): { kind: 'none' } | { kind: 'ours'; text: string } | { kind: 'foreign' } {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    throw error;
  }
  if (!stat.isFile()) return { kind: 'foreign' };
  const text = fs.readFileSync(file, 'utf8');
  return isOurLauncher(text) ? { kind: 'ours', text } : { kind: 'foreign' };
}

/** Written beside the target and renamed over it: a reader never sees half a script. */
function writeLauncher(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text, { mode: 0o755, flag: 'wx' });
  try {
    fs.chmodSync(temporary, 0o755);
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/** The `ringhook` the shell would find first on this PATH, when it is not `file`. */
function shadowedBy(file: string): string | null {
  for (const dir of pathDirs(process.env.PATH)) {
    const candidate = path.join(dir, LAUNCHER_NAME);
    if (path.resolve(candidate) === path.resolve(file)) return null;
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not there (or not runnable): the shell looks on in the next folder, and so does this.
    }
  }
  return null;
}

export function installCli(options: { dir?: string | undefined; quiet?: boolean }): void {
  const dir = path.resolve(options.dir ?? defaultBinDir(process.getuid?.() ?? -1, os.homedir()));
  const file = path.join(dir, LAUNCHER_NAME);
  const text = launcherScript(launchedCommand(), file);
  const found = existing(file);
  if (found.kind === 'foreign')
    throw new UserError(
      `${file} exists and is not ringhook's launcher: left as it is. Remove it yourself, or choose another folder with --dir`,
    );
  const say = (line: string) => process.stdout.write(`${line}\n`);
  if (found.kind === 'ours' && found.text === text) {
    if (!options.quiet) say(`ringhook: the ringhook command is at ${file} already (remove it with: rm ${file})`);
    return;
  }
  try {
    fs.mkdirSync(dir, { recursive: true });
    writeLauncher(file, text);
  } catch (error) {
    throw new UserError(
      `could not write ${file}: ${(error as Error).message}. Run as root, or choose a folder of yours with --dir`,
    );
  }
  say(
    `ringhook: put the ringhook command at ${file}: it runs ${launchedCommand().at(-1)} from any folder (remove it with: rm ${file})`,
  );
  if (!pathDirs(process.env.PATH).some((d) => path.resolve(d) === dir))
    say(`ringhook: ${dir} is not on your PATH: add it (export PATH="${dir}:$PATH" in ~/.profile) to type ringhook`);
  const first = shadowedBy(file);
  if (first) say(`ringhook: another ringhook comes first on your PATH, ${first}: that one runs when you type ringhook`);
}

export const installCliCommand = defineCommand({
  meta: commandMeta('install-cli'),
  args: {
    dir: {
      type: 'string',
      description: 'The folder to put the command in (default: /usr/local/bin for root, else ~/.local/bin)',
    },
    quiet: { type: 'boolean', description: 'Say nothing when the command is there already (npm start)' },
  },
  run: ({ args }) => installCli({ dir: args.dir, quiet: args.quiet === true }),
});
