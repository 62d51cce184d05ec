// The ceiling: a bare node:https server that reads the request body and answers a fixed JSON body,
// with the same certificate and keep-alive settings as ringhook. Prints its port on stdout.
//   node ceiling-server.mjs CERT KEY
import fs from 'node:fs';
import https from 'node:https';

const [cert, key] = process.argv.slice(2);
const BODY = JSON.stringify({
  success: true,
  message: 'Alert received; the call is being placed.',
  call_id: 'call_AAAAAAAAAAAAAAAAAAAAAA',
  timestamp: '2026-11-22T14:00:00.000Z',
  truncated: false,
});
const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(BODY),
    });
    res.end(BODY);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
