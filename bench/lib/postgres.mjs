// A throwaway PostgreSQL cluster for the benchmarks, the way test/helpers/postgres.ts makes one for
// the tests: initdb in a temp directory (as the `postgres` user when we are root: PostgreSQL refuses
// root), a server on a free port on 127.0.0.1 (its socket in the same directory), databases created
// on demand, stopped and removed after. The server keeps PostgreSQL's default settings (fsync on,
// synchronous_commit on: a commit is on disk before it returns, like RINGHOOK_DB_SYNC=full for
// SQLite) except max_connections=200. The temp directory is on the same disk as bench/.data here.
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';

const run = promisify(execFile);
const SUPERUSER = 'ringhook';
const PROVISION = 'run scripts/provision-test-peers.sh as root (it installs postgresql-15)';

function newestBinDir() {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error(`PostgreSQL is not installed (no ${root}/*/bin/initdb): ${PROVISION}`);
  return { bin: path.join(root, versions[0], 'bin'), version: versions[0] };
}

/** How to run a PostgreSQL program: as `postgres` when we are root. */
function runner() {
  if (process.getuid?.() !== 0) return (program, args) => run(program, args);
  if (spawnSync('id', ['-u', 'postgres']).status !== 0) throw new Error(`the system user "postgres" is missing: ${PROVISION}`);
  return (program, args) => run('runuser', ['-u', 'postgres', '--', program, ...args]);
}

function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid) {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !/^\d+ \(.*\) Z/.test(readText(`/proc/${pid}/stat`));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function answers(url, timeoutMs) {
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

/** CPU time (user + system, ms) of a process and of its live children, plus the reaped children's. */
export function cpuMsOfTree(pid) {
  const stat = (p) => {
    try {
      return readText(`/proc/${p}/stat`).split(') ')[1].split(' ');
    } catch {
      return null;
    }
  };
  const own = stat(pid);
  if (!own) return NaN;
  // utime, stime, cutime, cstime (fields 14–17 of stat; the split drops the first two).
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  const children = readText(`/proc/${pid}/task/${pid}/children`).trim().split(/\s+/).filter(Boolean);
  for (const c of children) {
    const f = stat(c);
    if (f) ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks * 1000) / 100; // CLK_TCK is 100 on Linux
}

/** Time (ms) spent runnable but waiting for a CPU (/proc/PID/schedstat) by a process's main thread. */
export function runqueueWaitMsOf(pid) {
  const f = readText(`/proc/${pid}/schedstat`).trim().split(' ');
  return f.length >= 2 ? Number(f[1]) / 1e6 : NaN;
}

/** The same, summed over a process and its live children (PostgreSQL's backends and workers). */
export function runqueueWaitMsOfTree(pid) {
  const children = readText(`/proc/${pid}/task/${pid}/children`).trim().split(/\s+/).filter(Boolean);
  return [pid, ...children].reduce((sum, p) => sum + (runqueueWaitMsOf(p) || 0), 0);
}

/**
 * Starts the cluster. Returns { url, port, version, dir, pid(), cpuMs(), createDatabase(name), stop() }.
 * A process that exits without stop() still stops the server (SIGQUIT) and removes the directory.
 */
export async function startPostgres({ maxConnections = 200 } = {}) {
  const { bin, version } = newestBinDir();
  const as = runner();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-bench-pg-'));
  if (process.getuid?.() === 0) {
    const { stdout: uid } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    fs.chownSync(dir, Number(uid.trim()), Number(gid.trim()));
  }
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const fail = (what, error) => {
    const detail = error?.stderr || error?.message;
    throw new Error(`PostgreSQL bench cluster: ${what} failed: ${detail}\n--- ${logFile} ---\n${readText(logFile)}`);
  };
  try {
    // --no-sync only skips the fsyncs of initdb itself; the server runs with fsync on.
    await as(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', SUPERUSER, '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    fail('initdb', error);
  }
  const postmasterPid = () => Number(readText(path.join(data, 'postmaster.pid')).split('\n')[0]) || 0;
  let port = 0;
  const stopServer = async () => {
    if (isAlive(postmasterPid())) await as(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
  };
  const onExit = () => {
    const pid = postmasterPid();
    if (isAlive(pid)) process.kill(pid, 'SIGQUIT');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=${maxConnections}`;
      await as(path.join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', logFile, '-w', '-t', '60', 'start']);
      await answers(`postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`, 30_000);
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
    version,
    dir,
    pid: postmasterPid,
    /** CPU time (ms) of the server: the postmaster, its backends and background workers, and those that exited. */
    cpuMs: () => cpuMsOfTree(postmasterPid()),
    /** Time (ms) its processes spent waiting for a CPU (live processes only). */
    runqueueWaitMs: () => runqueueWaitMsOfTree(postmasterPid()),
    async settings(names) {
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        const rows = await sql`SELECT name, setting FROM pg_settings WHERE name = ANY(${names})`;
        return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
      } finally {
        await sql.end({ timeout: 1 });
      }
    },
    async createDatabase(name) {
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } finally {
        await sql.end({ timeout: 1 });
      }
      return `postgres://${SUPERUSER}@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
    async stop() {
      process.off('exit', onExit);
      try {
        await stopServer();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
