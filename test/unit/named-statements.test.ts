// The shared statements' binding (store/sqlite/named.ts): $1…$n once each and in order bind as plain
// `?` (no object of names per run, #58); any other use of them by name. Either way the same rows.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { inOrderOnce, positional } from '../../src/store/sqlite/named.js';

describe('shared statements', () => {
  it('bind by position only when $1…$n appear once each, in order', () => {
    expect(inOrderOnce('SELECT 1')).toBe(true);
    expect(inOrderOnce('SELECT * FROM t WHERE a = $1 AND b = $2 LIMIT $3')).toBe(true);
    expect(inOrderOnce('DELETE FROM t WHERE a = $1 AND id <= (SELECT id FROM t WHERE a = $1)')).toBe(false);
    expect(inOrderOnce('UPDATE t SET a = $2 WHERE id = $1')).toBe(false);
    expect(inOrderOnce('SELECT $1, $3')).toBe(false);
  });

  it('give the same rows either way, and leave out values past the last placeholder', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (a INTEGER, b TEXT)');
    const insert = positional(db, 'INSERT INTO t (a, b) VALUES ($1, $2)');
    expect(insert.run(1, 'one', 'ignored').changes).toBe(1);
    insert.run(2, null);
    expect(positional(db, 'SELECT a, b FROM t WHERE a >= $1 ORDER BY a').all(1)).toEqual([
      { a: 1, b: 'one' },
      { a: 2, b: null },
    ]);
    expect(positional(db, 'SELECT b FROM t WHERE a = $2 OR b = $1').get('zzz', 1)).toEqual({ b: 'one' });
    expect(positional(db, 'SELECT count(*) AS n FROM t WHERE a = $1 OR a = $1 + 1').get(1)).toEqual({ n: 2 });
    db.close();
  });
});
