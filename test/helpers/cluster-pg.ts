// Stops a throwaway PostgreSQL (test/helpers/postgres.ts) with a fast shutdown, leaving its data in
// place, so that PgCluster.restart() starts it again on the same port (PgCluster itself only offers
// a clean restart in one step, a SIGKILL, or a stop that removes everything).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';

const run = promisify(execFile);

function pgCtl(): string {
  const root = '/usr/lib/postgresql';
  const version = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))[0];
  if (!version) throw new Error(`no ${root}/*/bin/pg_ctl`);
  return path.join(root, version, 'bin', 'pg_ctl');
}

/** `pg_ctl stop -m fast` of the server behind `url` (a superuser's URL); resolves once it is down. */
export async function stopPostgresFast(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let dataDir: string;
  try {
    const [row] = await sql<Array<{ data_directory: string }>>`SELECT current_setting('data_directory') AS data_directory`;
    dataDir = row!.data_directory;
  } finally {
    await sql.end({ timeout: 1 });
  }
  const args = ['-D', dataDir, '-m', 'fast', '-w', '-t', '30', 'stop'];
  if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', pgCtl(), ...args]);
  else await run(pgCtl(), args);
}
