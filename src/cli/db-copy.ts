// ringhook db copy: moves an installation from its SQLite file to PostgreSQL (for several nodes).
// Both sides are checked before either is changed (the file must be ringhook's, the target empty);
// the target is then brought to the same schema, every table is copied as it is (ids, sealed
// api_keys, sessions, history) in one transaction, and the counts are compared.
import { defineCommand } from 'citty';
import { commandMeta } from './commands.js';
import fs from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { loadConfig } from '../config/index.js';
import { dataDirText, noteEarlierInstall } from './data-dir.js';
import { type Db, loadPostgres, loadSecretBox, openDatabase, secretKeyFile } from '../store/index.js';
import Database from 'better-sqlite3';
import { sqliteNativeBindingOptions } from '../lib/assets.js';
import { IN_FLIGHT_STATES } from '../core/calls/call-state.js';
import { UserError } from '../lib/errors.js';
import { serveHolds } from '../app/instance-lock.js';
import { printJson } from './output.js';

/** Parents before children (foreign keys). */
const TABLES = [
  'accounts',
  'secret_key_check',
  'calls',
  'usage',
  'call_events',
  'owner_auth',
  'sessions',
  'login_links',
  'acme_certificate',
  'callback_settings',
  'callback_outbox',
] as const;
/** PostgreSQL takes at most 65,535 parameters in one statement. */
const MAX_PARAMS = 30_000;

interface TargetColumn {
  name: string;
  type: string;
  identityAlways: boolean;
}

export interface CopyReport {
  from: string;
  to: string;
  tables: Array<{ table: string; rows: number }>;
}

function sourceColumns(db: Db, table: string): string[] {
  return db
    .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
    .all()
    .map((c) => c.name);
}

async function targetColumns(sql: postgres.TransactionSql, table: string): Promise<TargetColumn[]> {
  const rows = await sql<{ column_name: string; data_type: string; identity_generation: string | null }[]>`
    SELECT column_name, data_type, identity_generation FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`;
  return rows.map((r) => ({
    name: r.column_name,
    type: r.data_type,
    identityAlways: r.identity_generation === 'ALWAYS',
  }));
}

function convert(value: unknown, column: TargetColumn): unknown {
  if (column.type === 'boolean' && typeof value === 'number') return value !== 0;
  if (typeof value === 'bigint') return value.toString();
  return value;
}

async function copyTable(
  db: Db,
  sql: postgres.TransactionSql,
  table: string,
  progress: (rows: number) => void,
): Promise<number> {
  const target = await targetColumns(sql, table);
  if (target.length === 0) throw new UserError(`the target has no table ${table}: is it a ringhook database?`);
  const have = new Set(sourceColumns(db, table));
  const columns = target.filter((c) => have.has(c.name));
  if (columns.length === 0) return 0;
  const names = columns.map((c) => `"${c.name}"`).join(', ');
  const overriding = columns.some((c) => c.identityAlways) ? ' OVERRIDING SYSTEM VALUE' : '';
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  let copied = 0;
  let batch: unknown[][] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const values = batch
      .map((_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`)
      .join(', ');
    await sql.unsafe(
      `INSERT INTO "${table}" (${names})${overriding} VALUES ${values}`,
      batch.flat() as postgres.ParameterOrJSON<never>[],
    );
    copied += batch.length;
    batch = [];
    progress(copied);
  };
  const select = db.prepare(`SELECT ${names} FROM "${table}"`).raw();
  for (const row of select.iterate() as Iterable<unknown[]>) {
    batch.push(row.map((v, i) => convert(v, columns[i]!)));
    if (batch.length >= perStatement) await flush();
  }
  await flush();
  if (columns.some((c) => c.name === 'id')) {
    await sql.unsafe(
      `SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), coalesce((SELECT max(id) FROM "${table}"), 0) + 1, false)`,
    );
  }
  return copied;
}

/**
 * Refuses a --from file that is not a ringhook database, before anything opens it for writing
 * (which would make it one), and one whose serve is running or left calls and SMS half-done.
 */
function checkSource(from: string): void {
  if (!fs.existsSync(from))
    throw new UserError(`--from: ${from} does not exist (the SQLite file is ringhook.db in the data dir)`);
  let look: Db;
  try {
    look = new Database(from, { ...sqliteNativeBindingOptions(), readonly: true, fileMustExist: true });
  } catch (error) {
    throw new UserError(`--from: ${from} cannot be read as SQLite: ${(error as Error).message}`);
  }
  let unsettled: string | undefined;
  try {
    let isRinghook: boolean;
    try {
      isRinghook =
        look.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'accounts'").get() !== undefined;
    } catch (error) {
      throw new UserError(`--from: ${from} cannot be read as SQLite: ${(error as Error).message}`);
    }
    if (!isRinghook)
      throw new UserError(
        `--from: ${from} is not a ringhook database (no accounts table): give ringhook.db from the data dir`,
      );
    if (serveHolds(path.dirname(from)))
      throw new UserError(`--from: ringhook serve is running on ${path.dirname(from)}: stop it first (SIGTERM)`);
    unsettled = unsettledWork(look);
  } finally {
    look.close();
  }
  if (unsettled)
    throw new UserError(
      `--from: ${from} has ${unsettled}, which no PostgreSQL node would take over: start ringhook serve on it once (with the SMS gateway up), let it settle them, stop it with SIGTERM, then copy`,
    );
}

/** Calls in progress and SMS half-sent that a stopped serve left (the next start on SQLite settles them); undefined when none. */
function unsettledWork(look: Db): string | undefined {
  const columns = new Set((look.pragma('table_info(calls)') as Array<{ name: string }>).map((c) => c.name));
  if (!columns.has('sms_status')) return undefined;
  const inProgress = IN_FLIGHT_STATES.filter((s) => s !== 'queued')
    .map((s) => `'${s}'`)
    .join(', ');
  const { calls, sms } = look
    .prepare(
      `SELECT (SELECT count(*) FROM calls WHERE status IN (${inProgress})) AS calls,
              (SELECT count(*) FROM calls WHERE sms_status IN ('sending', 'waiting')) AS sms`,
    )
    .get() as { calls: number; sms: number };
  const parts = [
    calls > 0 && `${calls} call(s) in progress`,
    sms > 0 && `${sms} SMS being sent or waiting for the gateway`,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' and ') : undefined;
}

/** Refuses a target that is not empty (another program's tables, or ringhook's with rows), before ringhook's schema is made in it. */
async function checkTarget(sql: postgres.Sql, to: string): Promise<void> {
  const { connectionError, redactUrl } = await loadPostgres();
  const tables = await sql<
    { name: string }[]
  >`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()`.catch((error: unknown) => {
    throw connectionError(to, error, '--to: cannot read');
  });
  if (tables.length === 0) return;
  const names = tables.map((t) => t.name);
  if (!names.includes('accounts')) {
    throw new UserError(
      `--to: ${redactUrl(to)} is another program's database (${names.slice(0, 5).join(', ')}): copy into an empty database (createdb)`,
    );
  }
  const [{ n }] = (await sql.unsafe(
    'SELECT (SELECT count(*) FROM accounts) + (SELECT count(*) FROM calls) AS n',
  )) as unknown as [{ n: string }];
  if (Number(n) > 0)
    throw new UserError(`--to: ${redactUrl(to)} already has accounts or calls: copy into an empty database (createdb)`);
}

export async function copyDatabase(
  from: string,
  to: string,
  say: (line: string) => void = () => {},
): Promise<CopyReport> {
  checkSource(from);
  const config = loadConfig();
  noteEarlierInstall(config);
  // The api_keys of --from are sealed with its data dir's key: a copy never makes a new, wrong one.
  if (!config.secretKey && !fs.existsSync(secretKeyFile(config.dataDir)))
    throw new UserError(
      `the data dir ${dataDirText(config)} has no api-keys.secret, the key the api_keys of --from are sealed with: set RINGHOOK_DATA_DIR to the data dir of --from (or RINGHOOK_SECRET_KEY); nothing was made`,
    );
  const { driverTarget, openPostgresStore, redactUrl } = await loadPostgres();
  const sql = postgres({ ...driverTarget(to, config.databaseTls), max: 1, onnotice: () => {} });
  try {
    await checkTarget(sql, to);
    const secrets = loadSecretBox(config);
    // Brings the file to this version's schema (as serve would), so both sides have the same columns.
    const db = openDatabase(from, { secrets });
    try {
      // The target gets this version's schema; its secret key check is copied with the rest.
      const store = await openPostgresStore({
        url: to,
        nodeId: null,
        secrets,
        checkKey: false,
        tls: config.databaseTls,
      });
      await store.close();
      const tables: CopyReport['tables'] = [];
      await sql.begin(async (tx) => {
        for (const table of TABLES) {
          const rows = await copyTable(db, tx, table, (done) => say(`copying ${table}: ${done} rows`));
          const [{ count }] = (await tx.unsafe(`SELECT count(*)::int AS count FROM "${table}"`)) as unknown as [
            { count: number },
          ];
          const expected = (db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
          if (count !== expected)
            throw new UserError(`${table}: ${count} rows arrived of ${expected}; nothing was copied`);
          tables.push({ table, rows });
          say(`${table}: ${rows} rows`);
        }
      });
      return { from: path.resolve(from), to: redactUrl(to), tables };
    } finally {
      db.close();
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const copy = defineCommand({
  meta: {
    name: 'copy',
    description: 'Copy every account, call and session from a SQLite file to an empty PostgreSQL database',
  },
  args: {
    from: {
      type: 'string',
      description: 'The SQLite file (ringhook.db in the data dir); stop ringhook serve first',
      required: true,
    },
    to: {
      type: 'string',
      description: 'The PostgreSQL URL, postgres://user:password@host:5432/ringhook (an empty database)',
      required: true,
    },
    json: { type: 'boolean', description: 'Print machine-readable JSON', default: false },
  },
  run: async ({ args }) => {
    if (!/^postgres(ql)?:\/\//.test(args.to))
      throw new UserError('--to must be a PostgreSQL URL: postgres://user:password@host:5432/ringhook');
    const report = await copyDatabase(args.from, args.to, (line) => !args.json && process.stderr.write(`${line}\n`));
    if (args.json) return printJson(report);
    const total = report.tables.reduce((sum, t) => sum + t.rows, 0);
    process.stdout.write(
      `Copied ${total} rows from ${report.from} to ${report.to}.\nNext: set RINGHOOK_DATABASE_URL and the same RINGHOOK_SECRET_KEY on every node (see docs/cluster.md).\n`,
    );
  },
});

export const dbCommand = defineCommand({
  meta: commandMeta('db'),
  subCommands: { copy },
});
