// Mends a crash in the PostgreSQL driver (postgres 3.4.9; open upstream: porsager/postgres#1154,
// #1208). A small write is sent on the next turn of the event loop; when its connection closed in
// between, it writes to no socket and throws from a setImmediate, where no caller can catch it, and
// serve exits (seen when PostgreSQL closed a connection under load: test/e2e/cluster-pg-restart).
// The closed connection also kept its cancelled timer, so it never sent a small write again. Here
// such a write fails its query with CONNECTION_CLOSED instead, and a close forgets the timer.
// Run by npm after every install (package.json's postinstall); a file already mended is left as is.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MARK = '/* ringhook: mended, porsager/postgres#1154 */';
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'postgres');
const EDITS = [
  [
    '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)',
    `  function nextWrite(fn) {\n    ${MARK}\n    if (socket === null) {\n      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options))\n      return false\n    }\n    const x = socket.write(chunk, fn)`,
  ],
  [
    "    clearImmediate(nextWriteTimer)\n    socket.removeListener('data', data)",
    "    clearImmediate(nextWriteTimer)\n    nextWriteTimer = null\n    socket.removeListener('data', data)",
  ],
];

for (const file of ['src/connection.js', 'cjs/src/connection.js']) {
  const where = path.join(root, file);
  if (!fs.existsSync(where)) continue;
  const text = fs.readFileSync(where, 'utf8');
  if (text.includes(MARK)) continue;
  // All or nothing: another version of the driver is left as it is, and said.
  if (EDITS.some(([from]) => text.split(from).length !== 2)) {
    console.warn(`ringhook: postgres's ${file} is not the code scripts/patch-postgres.mjs mends; left as it is`);
    continue;
  }
  fs.writeFileSync(
    where,
    EDITS.reduce((t, [from, to]) => t.replace(from, to), text),
  );
}
