// The flood of test/helpers/flood.ts in a process of its own, as an attacker's machine would be: the
// probe's timings are then the server's, not this flood's event loop. Arguments: a JSON of the
// options; prints "open opened closed" on each line of stdin and at exit.
import net from 'node:net';
import tls from 'node:tls';

const options = JSON.parse(process.argv[2]);
let running = true;
let open = 0;
let opened = 0;
let closed = 0;
const sockets = new Set();
const slot = (localAddress) => {
  if (!running) return;
  const connectOptions = { host: '127.0.0.1', port: options.port, localAddress };
  const socket =
    options.kind === 'request'
      ? tls.connect({ ...connectOptions, rejectUnauthorized: false })
      : net.connect(connectOptions);
  sockets.add(socket);
  let counted = false;
  socket.once(options.kind === 'request' ? 'secureConnect' : 'connect', () => {
    counted = true;
    open++;
    opened++;
    if (options.kind === 'request') socket.write('GET /healthz HTTP/1.1\r\nHost: flood\r\n\r\n');
  });
  socket.on('data', () => {});
  socket.on('error', () => {});
  socket.once('close', () => {
    sockets.delete(socket);
    if (counted) {
      open--;
      closed++;
    }
    if (running) setTimeout(() => slot(localAddress), options.reopenMs ?? 100);
  });
};
for (const address of options.addresses) for (let i = 0; i < options.perAddress; i++) slot(address);
process.stdin.on('data', () => process.stdout.write(`${open} ${opened} ${closed}\n`));
process.stdin.on('end', () => {
  running = false;
  for (const socket of sockets) socket.destroy();
  process.exit(0);
});
