// A newer ringhook and a running older serve: who may migrate, and what the refusal says.
import { describe, expect, it } from 'vitest';
import { describeHolder, migrationRefusal, serveHeldRefusal } from '../../src/core/server/schema-upgrade.js';

const running = { pid: 4242, version: '0.1.0', schema: 8 };

describe('migrationRefusal', () => {
  it('a database that needs no migration, or that no serve holds, may be opened', () => {
    expect(migrationRefusal(9, 9, running, '/d/ringhook.db', '0.2.0')).toBeNull();
    expect(migrationRefusal(10, 9, running, '/d/ringhook.db', '0.2.0')).toBeNull(); // newer: refused by the store itself
    expect(migrationRefusal(8, 9, null, '/d/ringhook.db', '0.2.0')).toBeNull();
  });

  it('an older schema held by a running serve: says which serve, N → M, to restart serve, and that nothing changed', () => {
    const text = migrationRefusal(8, 9, running, '/d/ringhook.db', '0.2.0')!;
    expect(text).toContain('the database /d/ringhook.db has schema 8 and this ringhook (0.2.0) needs schema 9');
    expect(text).toContain('(pid 4242, ringhook 0.1.0, schema 8)');
    expect(text).toContain('nothing was changed');
    expect(text).toContain('restart serve with this version');
    expect(text).not.toContain('\n');
  });
});

describe('describeHolder', () => {
  it('an older serve records only its pid', () => {
    expect(describeHolder({ pid: 7, version: null, schema: null })).toBe(
      'pid 7, an older ringhook that does not record its version',
    );
    expect(describeHolder({ pid: null, version: null, schema: null })).toBe(
      'pid unknown, an older ringhook that does not record its version',
    );
  });
});

describe('serveHeldRefusal', () => {
  it('names the holder, and the upgrade it did not do', () => {
    expect(serveHeldRefusal('/d', running, { current: 8, known: 9 })).toBe(
      "another ringhook serve (pid 4242, ringhook 0.1.0, schema 8) is using the data dir /d: stop it first, or give this one its own RINGHOOK_DATA_DIR; this ringhook would upgrade the database's schema 8 → 9, which only happens once that serve is stopped (nothing was changed)",
    );
    expect(serveHeldRefusal('/d', running, { current: 9, known: 9 })).not.toContain('upgrade');
    expect(serveHeldRefusal('/d', running, null)).not.toContain('upgrade');
  });
});
