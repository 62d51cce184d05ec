// Upgrading one node from every earlier release, as a user would (#35, #38): each release recorded in
// releases.json is built from git history and serves a data dir it made, taking alerts the whole
// time; then this version's CLI is run beside it (account list, and commands that would migrate),
// and a second serve of this version; then serve is restarted on this version. The old serve keeps
// answering 200, no 500 is ever answered, nothing is lost, and the database is migrated only by the
// new serve's start. v0.0.1 (d0ce34c) holds its data dir by serve.pid alone, with no lock: this
// version must see it there all the same (before #38 its CLI migrated under it, and the old serve
// answered 500 from then on).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOnce as buildCli, REPO_ROOT, runCli } from '../helpers/cli.js';
import { nodeHandle, type NodeHandle, postAlert } from '../helpers/cluster.js';
import { freeTcpPort } from '../helpers/ports.js';
import { buildPreviousRelease, hasPreviousRelease, RELEASES } from '../helpers/previous-release.js';
import { makeDataDir } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';
import { type ServeProcess, startServe } from '../soak/peers.js';
import { SCHEMA_VERSION } from '../../src/store/sqlite/connect.js';
import { VERSION } from '../../src/lib/version.js';

const serves: ServeProcess[] = [];

afterAll(async () => {
  await Promise.all(serves.map((s) => s.stop()));
});

function schemaVersion(dataDir: string): number {
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

function recorded(dataDir: string): Map<string, string> {
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true });
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

for (const release of RELEASES) {
  const available = hasPreviousRelease(release.commit);
  const needsMigration = release.schema < SCHEMA_VERSION;

  describe.skipIf(!available)(`upgrading from ${release.name} (${release.commit.slice(0, 7)})`, () => {
    it(`its serve keeps answering 200 while this version's CLI and serve run beside it; restarting serve upgrades (schema ${release.schema} → ${SCHEMA_VERSION}); nothing lost`, async () => {
      buildCli();
      const previous = buildPreviousRelease(release.commit);
      const env: Record<string, string> = {
        RINGHOOK_DATA_DIR: makeDataDir('rh-upgrade-'),
        RINGHOOK_HOST: '127.0.0.1',
        RINGHOOK_PORT: String(await freeTcpPort()),
        RINGHOOK_TELEPHONY: 'off',
      };
      const dataDir = env.RINGHOOK_DATA_DIR!;
      const previousCli = (args: string[]) =>
        spawnSync(process.execPath, [path.join(previous, 'bin', 'ringhook.js'), ...args], {
          env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
          encoding: 'utf8',
        });

      // The data dir as that release made it, with accounts, and its serve running.
      const accounts = [0, 1, 2].map((i) => {
        const r = previousCli(['account', 'create', '--phone', `+1415555020${i}`, '--plan', 'premium', '--json']);
        expect(r.status, r.stderr).toBe(0);
        const a = JSON.parse(r.stdout);
        return { userId: a.user_id as string, apiKey: a.api_key as string, phone: a.phone as string };
      });
      const old = await startServe(env, 60_000, [], path.join(previous, 'bin', 'ringhook.js'));
      serves.push(old);
      expect(schemaVersion(dataDir)).toBe(release.schema);

      // Alerts all along, one every 0.7 s over the accounts in turn (within premium's 10 a minute each).
      const node: NodeHandle = nodeHandle('n', dataDir, env.RINGHOOK_PORT!);
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
      const sentBefore = statuses.length;

      // Who holds the data dir, as this version names it.
      const holder =
        release.schema < 9
          ? `pid ${old.child.pid}, an older ringhook that does not record its version`
          : `pid ${old.child.pid}, ringhook`;
      // This version's CLI beside the running serve: `account list`, and `account create`, which
      // would migrate. Refused with who holds it and what to do, when the schema is older; nothing changed.
      const list = runCli(['account', 'list', '--json'], env);
      const create = runCli(['account', 'create', '--phone', '+14155550299', '--json'], env);
      if (needsMigration) {
        for (const refused of [list, create]) {
          expect(refused.code, refused.stdout + refused.stderr).toBe(1);
          expect(refused.stderr).toContain(
            `has schema ${release.schema} and this ringhook (${VERSION}) needs schema ${SCHEMA_VERSION}, but a running ringhook serve (${holder}`,
          );
          expect(refused.stderr).toContain('nothing was changed');
          expect(refused.stderr).toContain('restart serve with this version');
          expect(refused.stderr.trim().split('\n')).toHaveLength(1);
        }
      } else {
        // Same schema: the CLI works beside the running serve, as it always did.
        expect(list.code, list.stderr).toBe(0);
        expect((list.json as Array<{ user_id: string }>).map((a) => a.user_id)).toEqual(
          expect.arrayContaining(accounts.map((a) => a.userId)),
        );
        expect(create.code, create.stderr).toBe(0);
      }
      expect(schemaVersion(dataDir)).toBe(release.schema);
      // A backup works on the old schema, and copies it as it is.
      const copy = path.join(makeDataDir('rh-upgrade-copy-'), 'before-upgrade.db');
      const backup = runCli(['backup', copy], env);
      expect(backup.code, backup.stderr).toBe(0);
      expect(new Database(copy, { readonly: true }).pragma('user_version', { simple: true })).toBe(release.schema);
      // A serve of this version on the same data dir: refused, nothing changed (the old serve.pid kept).
      const pidFile = fs.readFileSync(path.join(dataDir, 'serve.pid'), 'utf8');
      const second = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'ringhook.js'), 'serve'], {
        env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env, RINGHOOK_PORT: String(await freeTcpPort()) },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(second.status, second.stderr).toBe(1);
      expect(second.stderr).toContain(`another ringhook serve (${holder}`);
      if (needsMigration)
        expect(second.stderr).toContain(
          `this ringhook would upgrade the database's schema ${release.schema} → ${SCHEMA_VERSION}`,
        );
      expect(schemaVersion(dataDir)).toBe(release.schema);
      expect(fs.readFileSync(path.join(dataDir, 'serve.pid'), 'utf8')).toBe(pidFile);

      // The old serve goes on answering 200 after all of that: three more alerts answered. The CLI
      // runs above hold this process (spawnSync), so the alerts are counted from now, not timed (a
      // fixed 2 s saw 2 alerts on a loaded machine, each answer slower than the pace).
      const sentAfterSteps = statuses.length;
      await waitFor(
        'three more alerts answered by the old serve',
        () => (statuses.length >= sentAfterSteps + 3 ? true : undefined),
        30_000,
        50,
      );
      const besides = statuses.slice(sentBefore);
      expect(besides.filter((s) => s !== 200)).toEqual([]);

      // The upgrade: stop serve, start this version's (it migrates as it starts).
      await old.stop();
      const upgraded = await startServe(env);
      serves.push(upgraded);
      expect(schemaVersion(dataDir)).toBe(SCHEMA_VERSION);
      await new Promise((r) => setTimeout(r, 3_000));
      sending = false;
      await load;

      // No 500 at any time (the switch itself refuses connections for a moment: status 0); nothing lost.
      const count = (code: number) => statuses.filter((s) => s === code).length;
      console.log(
        `figures (${release.name}): ${statuses.length} alerts: ${count(200)} × 200, ${count(0)} refused connections during the restart, ${statuses.filter((s) => s >= 500).length} × 5xx; ${answered.size} kept`,
      );
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      expect(count(200)).toBeGreaterThan(5);
      const after = recorded(dataDir);
      for (const [callId, message] of answered) expect(after.get(callId), callId).toBe(message);
      const listed = runCli(['account', 'list', '--json'], env);
      expect(listed.code, listed.stderr).toBe(0);
      expect((listed.json as Array<{ user_id: string }>).map((a) => a.user_id)).toEqual(
        expect.arrayContaining(accounts.map((a) => a.userId)),
      );
      await upgraded.stop();
    }, 300_000);
  });
}
