// PostgreSQL for the benchmarks: the tests' throwaway cluster (test/helpers/postgres.ts, compiled
// by buildHelpers into bench/.build/tree: initdb as `postgres` in a temp directory, a free loopback
// port, default settings with max_connections=200, fsync and synchronous_commit on like
// RINGHOOK_DB_SYNC=full), plus what the benchmark reads of its processes (CPU, time waiting for a core).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import postgres from 'postgres';
import { BENCH_DIR } from './common.mjs';
import { buildHelpers } from '../telephony.mjs';

const run = promisify(execFile);

function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
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

/** Starts the cluster: the test helper's, with the CPU and wait figures of its processes and its settings. */
export async function startPostgres(settings = []) {
  buildHelpers();
  const { startPostgres: start } = await import(
    path.join(BENCH_DIR, '.build', 'tree', 'test', 'helpers', 'postgres.js')
  );
  const pg = await start(settings);
  return {
    ...pg,
    /** CPU time (ms) of the server: the postmaster, its backends and background workers, and those that exited. */
    cpuMs: () => cpuMsOfTree(pg.pid()),
    /** Time (ms) its processes spent waiting for a CPU (live processes only). */
    runqueueWaitMs: () => runqueueWaitMsOfTree(pg.pid()),
    /** The server and every process it forks from now on run on these processors only (taskset -a). */
    async pin(cpus) {
      await run('taskset', ['-a', '-cp', cpus, String(pg.pid())]);
    },
    /** Statements the server ran in `dbUrl`'s database so far (pg_stat_statements), in all and those naming `like`. */
    async statements(dbUrl, like) {
      const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
      try {
        await sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
        const [row] = await sql`
          SELECT coalesce(sum(calls), 0)::bigint AS total, coalesce(sum(calls) FILTER (WHERE query LIKE ${`%${like}%`}), 0)::bigint AS named
          FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'`;
        return { total: Number(row.total), named: Number(row.named) };
      } finally {
        await sql.end({ timeout: 1 });
      }
    },
    async settings(names) {
      const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
      try {
        const rows = await sql`SELECT name, setting FROM pg_settings WHERE name = ANY(${names})`;
        return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
      } finally {
        await sql.end({ timeout: 1 });
      }
    },
  };
}
