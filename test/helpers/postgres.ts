// A throwaway PostgreSQL cluster for tests: initdb in a temp directory, a server on a free
// loopback port (its socket in the same directory), databases created on demand, all removed after.
// Run as the unprivileged `postgres` user when the tests run as root (PostgreSQL refuses root).
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { freeTcpPort } from './ports.js';

const run = promisify(execFile);
const SUPERUSER = 'ringhook';
const PROVISION = 'run scripts/provision-test-peers.sh as root (it installs postgresql-15)';

export interface PgCluster {
  /** The cluster's `postgres` database, as the superuser (no password: trust on loopback). */
  url: string;
  port: number;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
  /** Stops the server cleanly and starts it again on the same port. */
  restart(): Promise<void>;
  /** SIGKILL to the server (a crash); restart() brings it back. */
  kill(): Promise<void>;
  /** A fast shutdown that keeps the data (the server stopped by its operator); restart() brings it back. */
  pause(): Promise<void>;
  /** The postmaster's pid (0 while stopped): its processes' CPU for the benchmarks. */
  pid(): number;
  /** The server's major version. */
  version: string;
  /** A new empty database; its URL. */
  createDatabase(name: string): Promise<string>;
}

function newestBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error(`PostgreSQL is not installed (no ${root}/*/bin/initdb): ${PROVISION}`);
  return path.join(root, versions[0]!, 'bin');
}

/** How to run a PostgreSQL program: as `postgres` when we are root. */
function runner(): (program: string, args: string[]) => Promise<{ stdout: string; stderr: string }> {
  if (process.getuid?.() !== 0) return (program, args) => run(program, args);
  if (spawnSync('id', ['-u', 'postgres']).status !== 0)
    throw new Error(`the system user "postgres" is missing: ${PROVISION}`);
  return (program, args) => run('runuser', ['-u', 'postgres', '--', program, ...args]);
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '(no log)';
  }
}

function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A killed server whose parent (init in a container) does not reap it stays a zombie.
  return !/^\d+ \(.*\) Z/.test(readText(`/proc/${pid}/stat`));
}

async function answers(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      await sql`select 1`;
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await sql.end({ timeout: 1 });
    }
  }
}

type Runner = ReturnType<typeof runner>;

function initdb(bin: string, as: Runner, data: string): Promise<unknown> {
  return as(path.join(bin, 'initdb'), [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    SUPERUSER,
    '--no-sync',
    '-E',
    'UTF8',
    '--locale',
    'C',
  ]);
}

/**
 * An empty cluster made once per run (test/helpers/global-setup.ts names it) and copied for each test
 * cluster: initdb costs about 1.5 s of CPU, a copy a tenth of that. Files running at once may both
 * make it; the first rename wins and the others' copies are removed.
 */
async function madeTemplate(template: string, bin: string, as: Runner): Promise<string> {
  const data = path.join(template, 'data');
  if (fs.existsSync(data)) return data;
  fs.mkdirSync(template, { recursive: true });
  const making = fs.mkdtempSync(path.join(template, 'making-'));
  if (process.getuid?.() === 0) await run('chown', ['postgres:', template, making]);
  try {
    await initdb(bin, as, path.join(making, 'data'));
    fs.renameSync(path.join(making, 'data'), data);
  } catch (error) {
    if (!fs.existsSync(data)) throw error;
  } finally {
    fs.rmSync(making, { recursive: true, force: true });
  }
  return data;
}

/** cp -a keeps the owner (postgres) and the 0700 mode PostgreSQL insists on. */
async function copyTemplate(template: string, data: string): Promise<void> {
  await run('cp', ['-a', template, data]);
}

/** `settings`: more server settings (-c name=value), e.g. ssl=on with its files. */
export async function startPostgres(settings: string[] = []): Promise<PgCluster> {
  const bin = newestBinDir();
  const as = runner();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-pg-'));
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    fs.chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  const fail = (what: string, error: unknown): never => {
    const detail = (error as { stderr?: string }).stderr || (error as Error).message;
    throw new Error(`PostgreSQL test cluster: ${what} failed: ${detail}\n--- ${log} ---\n${readText(log)}`);
  };
  try {
    const template = process.env.RINGHOOK_TEST_PG_TEMPLATE;
    if (template) await copyTemplate(await madeTemplate(template, bin, as), data);
    else await initdb(bin, as, data);
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    fail('initdb', error);
  }

  let port = 0;
  const postmasterPid = () => Number(readText(path.join(data, 'postmaster.pid')).split('\n')[0]) || 0;
  const start = async () => {
    const options = [
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
      ...settings.map((v) => `-c ${v}`),
    ].join(' ');
    await as(path.join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', log, '-w', '-t', '60', 'start']);
    await answers(`postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`, 30_000);
  };
  const stopServer = async () => {
    if (isAlive(postmasterPid())) await as(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  // A test process that dies without stop() (an interrupted run) leaves no server behind.
  const onExit = () => {
    const pid = postmasterPid();
    if (isAlive(pid)) process.kill(pid, 'SIGQUIT');
    fs.rmSync(dir, { recursive: true, force: true });
  };

  // The free port may be taken between the probe and the start: try another.
  for (let attempt = 1; ; attempt++) {
    port = await freeTcpPort();
    try {
      await start();
      break;
    } catch (error) {
      await stopServer().catch(() => {});
      if (attempt >= 3) {
        fs.rmSync(dir, { recursive: true, force: true });
        fail('start', error);
      }
    }
  }
  process.once('exit', onExit);

  const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async stop() {
      process.off('exit', onExit);
      try {
        await stopServer();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    async restart() {
      await stopServer();
      // After kill(), the old server's processes may hold its shared memory for a moment: PostgreSQL
      // refuses to start until they are gone.
      const deadline = Date.now() + 15_000;
      for (;;) {
        try {
          await start();
          return;
        } catch (error) {
          if (Date.now() > deadline) fail('restart', error);
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    },
    async kill() {
      const pid = postmasterPid();
      if (!isAlive(pid)) return;
      process.kill(pid, 'SIGKILL');
      const deadline = Date.now() + 10_000;
      while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    },
    pause: stopServer,
    pid: postmasterPid,
    version: path.basename(path.dirname(bin)),
    async createDatabase(name: string) {
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } finally {
        await sql.end({ timeout: 1 });
      }
      return `postgres://${SUPERUSER}@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
  };
}
