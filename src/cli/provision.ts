// ringhook provision: installs what calls need on this host, the speech engines, their voices and
// sox (Debian packages, scripts/provision-speech.sh) and Asterisk 22 (the host's package, or a Debian sid root file system, cached). `npm
// start` does the same from a checkout; this command is for a host that has only the executable,
// which carries the same scripts and unpacks them into a private temporary folder to run them.
import { defineCommand } from 'citty';
import { commandMeta } from './commands.js';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inSingleExecutable, readAsset, repoRoot } from '../lib/assets.js';
import { loadConfig } from '../config/index.js';
import { UserError } from '../lib/errors.js';
import { parseRuntime } from '../pbx/index.js';
import { z } from 'zod';
import { parseArg } from './context.js';
import { printJson } from './output.js';

const SCRIPTS = ['provision-asterisk.sh', 'ensure-debs.sh', 'provision-speech.sh'] as const;
const ownerSchema = z.string().regex(/^[a-z_][a-z0-9_-]{0,31}$/, { error: 'must be a user name, e.g. ringhook' });

/** Runs `fn` with a folder holding the provisioning scripts: the checkout's, or unpacked ones. */
function withScripts<T>(fn: (dir: string) => T): T {
  if (!inSingleExecutable()) return fn(path.join(repoRoot(), 'scripts'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-provision-'));
  try {
    for (const name of SCRIPTS) fs.writeFileSync(path.join(dir, name), readAsset(`scripts/${name}`), { mode: 0o700 });
    return fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs a script with its progress on our stderr; returns its stdout. */
function runScript(dir: string, name: string, args: string[], env: NodeJS.ProcessEnv): string {
  const result = spawnSync('bash', [path.join(dir, name), ...args], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (result.error) throw new UserError(`could not run bash for ${name}: ${result.error.message}`);
  if (result.status !== 0)
    throw new UserError(`${name} failed (exit ${result.status ?? result.signal}): see the lines above`);
  return result.stdout;
}

export const provisionCommand = defineCommand({
  meta: commandMeta('provision'),
  args: {
    'skip-speech': {
      type: 'boolean',
      description: 'Leave the speech packages alone (install only Asterisk)',
      default: false,
    },
    owner: {
      type: 'string',
      description:
        "The unprivileged user that runs ringhook serve (e.g. ringhook): Asterisk's root file system is made its own",
    },
    json: { type: 'boolean', description: 'Print machine-readable JSON', default: false },
  },
  run: ({ args }) => {
    const config = loadConfig();
    const owner = args.owner === undefined ? undefined : parseArg(ownerSchema, args.owner, '--owner');
    // Said before the packages and the root file system are made, not after them.
    if (owner && spawnSync('id', ['-u', owner]).status !== 0)
      throw new UserError(`--owner: no user named ${owner} on this host (useradd --system ${owner})`);
    const env = {
      ...process.env,
      RINGHOOK_CACHE_DIR: config.telephony.cacheDir,
      ...(owner && { RINGHOOK_ASTERISK_OWNER: owner }),
      PATH: process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    };
    const printed = withScripts((dir) => {
      if (!args['skip-speech']) {
        process.stderr.write('ringhook: checking the speech engines and voices (flite, espeak-ng, Festival, sox)\n');
        runScript(dir, 'provision-speech.sh', [], env);
      }
      process.stderr.write(
        `ringhook: checking Asterisk (cache: ${config.telephony.cacheDir}; the first run builds its root file system, about a minute)\n`,
      );
      return runScript(dir, 'provision-asterisk.sh', [], env);
    });
    const line = printed.trim().split('\n').pop() ?? '';
    const runtime = parseRuntime(line);
    const where = runtime.kind === 'host' ? "the host's Asterisk package" : `the root file system ${runtime.rootfs}`;
    if (args.json)
      printJson({
        asterisk: runtime.kind === 'host' ? 'host' : runtime.rootfs,
        cache_dir: config.telephony.cacheDir,
        speech: !args['skip-speech'],
      });
    else process.stdout.write(`Asterisk is ready (${where}). Next: ringhook serve\n`);
  },
});
