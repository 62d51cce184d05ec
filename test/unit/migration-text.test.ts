// A shipped migration is history: the text each store runs for it never changes, even when the code
// that writes it does (the tables both stores create alike are written once: store/sql/schema.ts).
// Each shipped migration's SQL is pinned here by its SHA-256; a new migration adds its line once shipped.
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations/index.js';

const SHIPPED: Record<'sqlite' | 'postgres', [name: string, sha256: string][]> = {
  sqlite: [
    ['001-initial', '1b9a0035668edb15'],
    ['002-telephony', 'ae050b35e7b7dda2'],
    ['003-dashboard', 'ee51eb33fd037955'],
    ['004-sealed-api-keys', 'bc06d582b593bb1f'],
    ['005-heard', 'f9ef3a8b16aec1da'],
    ['006-trunk', '2d3bcb3301e8ebc8'],
    ['007-voice', '11eabb1fce810187'],
    ['008-cluster', '8afe4805f8862ffd'],
    ['009-upgrade-rule', '1d8b7227760f13d2'],
    ['010-reason-detail', 'c53970d4e58a2e27'],
    ['011-certificate', '86ca467d9b3fe381'],
    ['012-receive-function', 'e3b0c44298fc1c14'],
    ['013-owner-controls', '75a1ede8a5bacd67'],
    ['014-receive-owner-controls', 'e3b0c44298fc1c14'],
    ['015-quiet-hours', 'a1cbb29c62cf218f'],
    ['016-callbacks', '1c9633a9b69ee08b'],
    ['017-ring-again', 'b7ecbbf0be169191'],
    ['018-backup-person', '95c134cfa9c6ff87'],
    ['019-drop-receive-v12', 'e3b0c44298fc1c14'],
  ],
  postgres: [
    ['001-initial', '420a2c67fa3f2b73'],
    ['002-telephony', '0845ebc22f5425a9'],
    ['003-dashboard', 'e5dd68f351782e91'],
    ['004-sealed-api-keys', 'fcc83256db7cb46a'],
    ['005-heard', '2f34915ef493d01c'],
    ['006-trunk', '2d3bcb3301e8ebc8'],
    ['007-voice', '53809fc3d81b9f9a'],
    ['008-cluster', '97e6d1367ffe3b5f'],
    ['009-upgrade-rule', '44ddbba031e97799'],
    ['010-reason-detail', 'c53970d4e58a2e27'],
    ['011-certificate', 'd405e6fedfef8ff3'],
    ['012-receive-function', 'e3b0c44298fc1c14'],
    ['013-owner-controls', '75a1ede8a5bacd67'],
    ['014-receive-owner-controls', 'e09c0237ccd901b1'],
    ['015-quiet-hours', '439e0d2f8ddda3de'],
    ['016-callbacks', 'cff27be22737ab98'],
    ['017-ring-again', '2e3130311961972a'],
    ['018-backup-person', 'cb6899a47a304555'],
    ['019-drop-receive-v12', '64738f05fdb6a543'],
  ],
};

const fingerprint = (sql: string) => createHash('sha256').update(sql).digest('hex').slice(0, 16);

describe.each([
  ['sqlite', MIGRATIONS],
  ['postgres', PG_MIGRATIONS],
] as const)('%s: a shipped migration runs the same text as when it shipped', (store, migrations) => {
  test.each(SHIPPED[store])('%s', (name, pinned) => {
    const at = migrations.findIndex((m) => m.name === name);
    expect(at, 'its place in the numbering').toBe(Number(name.slice(0, 3)) - 1);
    expect(fingerprint(migrations[at]!.sql)).toBe(pinned);
  });
});
