// The same-job minimal server (#43): what a webhook must do at the least, and nothing else: TLS
// (node:https, ringhook's certificate, keep-alive), the body read and parsed as JSON, one durable
// insert per alert into a better-sqlite3 file (WAL, synchronous=FULL: an fsync per commit, as
// RINGHOOK_DB_SYNC=full), and a JSON answer with the row's id. No accounts, no limits, no batching.
// Prints its port on stdout.   node minimal-server.mjs CERT KEY DBFILE
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import Database from 'better-sqlite3';

const [cert, key, file] = process.argv.slice(2);
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`CREATE TABLE IF NOT EXISTS alerts (id INTEGER PRIMARY KEY, call_id TEXT NOT NULL, path TEXT NOT NULL,
                                            message TEXT NOT NULL, received_at INTEGER NOT NULL)`);
const insert = db.prepare('INSERT INTO alerts (call_id, path, message, received_at) VALUES (?, ?, ?, ?)');

const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let status = 200;
    let body;
    try {
      const alert = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const callId = randomUUID();
      insert.run(callId, req.url, String(alert.message ?? ''), Date.now());
      body = JSON.stringify({ success: true, call_id: callId, timestamp: new Date().toISOString() });
    } catch {
      status = 400;
      body = '{"success":false}';
    }
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
