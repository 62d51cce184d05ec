// Mends two faults of the PostgreSQL driver (postgres 3.4.9) after every install (package.json's
// postinstall); a file already mended is left as is, another version of the driver too (and said).
//
// porsager/postgres#1154 (open upstream, also #1208): a small write is sent on the next turn of the
// event loop; when its connection closed in between, it wrote to no socket and threw from a
// setImmediate, where no caller can catch it, and serve exited (seen when PostgreSQL closed a
// connection under load: test/e2e/cluster-pg-restart). The closed connection also kept its cancelled
// timer, so it never sent a small write again. Here such a write fails its query with
// CONNECTION_CLOSED instead, and a close forgets the timer.
//
// porsager/postgres#1216 (open upstream, PR #1215; also #1155): when the server ends a transaction's
// connection, sql.begin() rejects but its callback goes on, and its later queries (and the automatic
// rollback) went to the same connection object, which the pool meanwhile reopens for its next query:
// they ran outside any transaction on the new connection, or were sent while it started, so its
// answers came with no query waiting ("Cannot set properties of null (setting 'parsing')" in
// ParseComplete) and the pool's next query failed; a reserved connection the same. A closed
// connection also kept its last query and unsent bytes for the next one. Here a transaction (or
// reservation) whose connection closed fails every later query with CONNECTION_CLOSED, its release
// leaves the connection to the pool, and a close forgets the connection's query and unsent bytes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'postgres');
const M1154 = '/* ringhook: mended, porsager/postgres#1154 */';
const M1216 = '/* ringhook: mended, porsager/postgres#1216 */';

/** Each mend: its mark, the files (both module builds) and its edits [from, to], each `from` found once. */
const MENDS = [
  {
    mark: M1154,
    files: ['src/connection.js', 'cjs/src/connection.js'],
    edits: [
      [
        '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
        `  function nextWrite(fn) {\n    ${M1154}\n    if (socket === null) {\n      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options))\n      return false\n    }\n    const x = socket.write(chunk, fn)`,
      ],
      [
        "    clearImmediate(nextWriteTimer)\n    socket.removeListener('data', data)",
        "    clearImmediate(nextWriteTimer)\n    nextWriteTimer = null\n    socket.removeListener('data', data)",
      ],
    ],
  },
  {
    mark: M1216,
    files: ['src/connection.js', 'cjs/src/connection.js'],
    edits: [
      // The bytes waiting for a closed socket belong to its queries (failed below), not to the next connection.
      [
        '    incomings = null\n    clearImmediate(nextWriteTimer)\n',
        `    incomings = null\n    chunk = null ${M1216}\n    clearImmediate(nextWriteTimer)\n`,
      ],
      // The queries of the closed connection are failed: none stays current for the next one.
      [
        "    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n",
        "    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n    query = results = errorResponse = null\n    result = new Result()\n",
      ],
    ],
  },
  {
    mark: M1216,
    files: ['src/index.js', 'cjs/src/index.js'],
    edits: [
      // sql.reserve(): a reservation whose connection closed runs nothing more, and its release leaves the connection alone.
      [
        '    const sql = Sql(handler)\n    sql.release = () => {\n      c.reserved = null\n      onopen(c)\n    }\n\n    return sql\n\n    function handler(q) {\n      c.queue === full',
        `    ${M1216}\n    let closedBy = null\n    c.onclose = e => {\n      closedBy = e\n      while (queue.length) queue.shift().reject(Errors.connection('CONNECTION_CLOSED', options))\n    }\n    const sql = Sql(handler)\n    sql.release = () => {\n      if (closedBy) return\n      c.reserved = null\n      onopen(c)\n    }\n\n    return sql\n\n    function handler(q) {\n      if (closedBy) return q.reject(Errors.connection('CONNECTION_CLOSED', options))\n      c.queue === full`,
      ],
      // sql.begin(): a transaction whose connection closed runs nothing more (nor its rollback or commit).
      [
        '      , connection\n      , prepare = null\n',
        '      , connection\n      , prepare = null\n      , closedBy = null\n',
      ],
      [
        '        new Promise((_, reject) => connection.onclose = reject)\n',
        `        new Promise((_, reject) => connection.onclose = e => {\n          ${M1216}\n          closedBy = e\n          while (queries.length) queries.shift().reject(Errors.connection('CONNECTION_CLOSED', options))\n          reject(e)\n        })\n`,
      ],
      [
        '        q.catch(e => uncaughtError || (uncaughtError = e))\n        c.queue === full',
        "        q.catch(e => uncaughtError || (uncaughtError = e))\n        if (closedBy) return q.reject(Errors.connection('CONNECTION_CLOSED', options))\n        c.queue === full",
      ],
    ],
  },
];

for (const { mark, files, edits } of MENDS) {
  for (const file of files) {
    const where = path.join(root, file);
    if (!fs.existsSync(where)) continue;
    const text = fs.readFileSync(where, 'utf8');
    if (text.includes(mark)) continue;
    // All or nothing: another version of the driver is left as it is, and said.
    if (edits.some(([from]) => text.split(from).length !== 2)) {
      console.warn(
        `ringhook: postgres's ${file} is not the code scripts/patch-postgres.mjs mends (${mark}); left as it is`,
      );
      continue;
    }
    fs.writeFileSync(
      where,
      edits.reduce((t, [from, to]) => t.replace(from, () => to), text),
    );
  }
}
