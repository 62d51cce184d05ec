// Upgrading one node as a user would: the previous release (built from git history) serves a data
// dir and takes alerts the whole time; then this version's CLI and serve are run beside it, then
// serve is restarted on this version. No 500 is ever answered, nothing is lost, and the database
// is migrated only by the new serve's start.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { nodeHandle, postAlert, type NodeHandle } from '../helpers/cluster.js';
import { runCli } from '../helpers/cli.js';
import { freeTcpPort } from '../helpers/ports.js';
import { buildPreviousRelease, hasPreviousRelease } from '../helpers/previous-release.js';
import { makeDataDir } from '../helpers/service.js';
import { buildOnce, type ServeProcess, startServe } from '../soak/peers.js';
import { SCHEMA_VERSION } from '../../src/store/sqlite/database.js';

let previous: string;
let env: Record<string, string>;
const serves: ServeProcess[] = [];

const available = hasPreviousRelease();

beforeAll(() => {
  if (!available) return;
  buildOnce();
  previous = buildPreviousRelease();
  env = {
    RINGHOOK_DATA_DIR: makeDataDir('rh-upgrade-'),
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: '0',
    RINGHOOK_TELEPHONY: 'off',
  };
}, 600_000);

afterAll(async () => {
  await Promise.all(serves.map((s) => s.stop()));
});

function previousCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [path.join(previous, 'bin', 'ringhook.js'), ...args], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    encoding: 'utf8',
  });
}

function schemaVersion(): number {
  const db = new Database(path.join(env.RINGHOOK_DATA_DIR!, 'ringhook.db'), { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

function recorded(): Map<string, string> {
  const db = new Database(path.join(env.RINGHOOK_DATA_DIR!, 'ringhook.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT call_id, message FROM calls WHERE accepted = 1').all() as Array<{
      call_id: string;
      message: string;
    }>;
    return new Map(rows.map((r) => [r.call_id, r.message]));
  } finally {
    db.close();
  }
}

it.skipIf(!available)(
  'one node: the new CLI and a new serve beside the running previous release change nothing; restarting serve upgrades; no 500, nothing lost',
  async () => {
    env.RINGHOOK_PORT = String(await freeTcpPort());
    const accounts = [0, 1, 2].map((i) => {
      const r = previousCli(['account', 'create', '--phone', `+1415555020${i}`, '--plan', 'premium', '--json']);
      expect(r.status, r.stderr).toBe(0);
      const a = JSON.parse(r.stdout);
      return { userId: a.user_id as string, apiKey: a.api_key as string, phone: a.phone as string };
    });
    const old = await startServe(env, 60_000, [], path.join(previous, 'bin', 'ringhook.js'));
    serves.push(old);
    const oldSchema = schemaVersion();
    expect(oldSchema).toBe(8); // the previous release (0830518) is at schema 8

    // Alerts all along, one every 2 s per account in turn (within premium's 10 a minute).
    const node: NodeHandle = nodeHandle('n', env.RINGHOOK_DATA_DIR!, env.RINGHOOK_PORT);
    const answered = new Map<string, string>();
    const statuses: number[] = [];
    let sending = true;
    let n = 0;
    const load = (async () => {
      while (sending) {
        const message = `upgrade alert ${n}`;
        const res = await postAlert(node, accounts[n % accounts.length]!, message);
        n++;
        statuses.push(res.status);
        if (res.status === 200) answered.set(res.callId!, message);
        await new Promise((r) => setTimeout(r, 700));
      }
    })();
    await new Promise((r) => setTimeout(r, 2_000));

    // The new CLI beside the running previous serve: refused, with who holds it and what to do; nothing changed.
    const list = runCli(['account', 'list'], env);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(
      `has schema ${oldSchema} and this ringhook (0.1.0) needs schema ${SCHEMA_VERSION}, but a running ringhook serve`,
    );
    expect(list.stderr).toContain(`(pid ${old.child.pid}, an older ringhook that does not record its version)`);
    expect(list.stderr).toContain('nothing was changed');
    expect(list.stderr).toContain('restart serve with this version');
    expect(list.stderr.trim().split('\n')).toHaveLength(1);
    expect(schemaVersion()).toBe(oldSchema);
    // A backup works on the old schema, and copies it as it is.
    const copy = path.join(makeDataDir('rh-upgrade-copy-'), 'before-upgrade.db');
    const backup = runCli(['backup', copy], env);
    expect(backup.code, backup.stderr).toBe(0);
    expect(new Database(copy, { readonly: true }).pragma('user_version', { simple: true })).toBe(oldSchema);
    // A new serve on the same data dir: refused, nothing changed.
    const second = spawnSync(process.execPath, [path.join(process.cwd(), 'bin', 'ringhook.js'), 'serve'], {
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env, RINGHOOK_PORT: String(await freeTcpPort()) },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(
      `another ringhook serve (pid ${old.child.pid}, an older ringhook that does not record its version)`,
    );
    expect(second.stderr).toContain(
      `this ringhook would upgrade the database's schema ${oldSchema} → ${SCHEMA_VERSION}`,
    );
    expect(schemaVersion()).toBe(oldSchema);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(statuses.filter((s) => s >= 500)).toEqual([]);

    // The upgrade: stop serve, start the new one (it migrates as it starts).
    await old.stop();
    const upgraded = await startServe(env);
    serves.push(upgraded);
    expect(schemaVersion()).toBe(SCHEMA_VERSION);
    await new Promise((r) => setTimeout(r, 3_000));
    sending = false;
    await load;

    // No 500 at any time (the switch itself refuses connections for a moment: status 0); nothing lost.
    const count = (code: number) => statuses.filter((s) => s === code).length;
    console.log(
      `figures: ${statuses.length} alerts: ${count(200)} × 200, ${count(0)} refused connections during the restart, ${statuses.filter((s) => s >= 500).length} × 5xx; ${answered.size} kept`,
    );
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(count(200)).toBeGreaterThan(5);
    const after = recorded();
    for (const [callId, message] of answered) expect(after.get(callId), callId).toBe(message);
    const listed = runCli(['account', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect((listed.json as Array<{ user_id: string }>).map((a) => a.user_id).sort()).toEqual(
      accounts.map((a) => a.userId).sort(),
    );
    expect(fs.existsSync(path.join(env.RINGHOOK_DATA_DIR!, 'serve.pid'))).toBe(true);
  },
  300_000,
);
