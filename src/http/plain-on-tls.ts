// A plain HTTP request sent to the HTTPS port (http:// typed for https://) gets an answer saying so,
// as nginx's "The plain HTTP request was sent to HTTPS port", instead of a connection closed without
// a word. The TLS server's own connection listener is called only once the first bytes are in: a
// TLS handshake starts with 0x16 and goes on to TLS as before (the bytes read are given back to the
// stream, which the TLS socket reads first); a line starting with a letter is an HTTP request and is
// answered in plain HTTP, in JSON as every refusal. A connection that sends nothing stays under the
// connection guard's handshake timer, as before.
import type { Server } from 'node:net';
import type { Socket } from 'node:net';
import { ApiError } from './errors.js';

/** The first byte of a TLS handshake record. */
const TLS_HANDSHAKE = 0x16;

export function answerPlainHttpOnTls(server: Server): void {
  // Node's tls.Server handles each connection with this listener (lib/_tls_wrap.js).
  const tlsListener = server.listeners('connection').find((l) => l.name === 'tlsConnectionListener') as
    | ((socket: Socket) => void)
    | undefined;
  if (!tlsListener) return;
  server.removeListener('connection', tlsListener);
  server.prependListener('connection', (socket: Socket) => {
    // Until TLS takes the socket nothing else listens for its errors, and a client's reset before its
    // first byte (ECONNRESET) would otherwise be an unhandled 'error' that ends the process. Kept
    // after TLS takes it: a failing raw socket is destroyed, which TLS then sees as its close.
    socket.on('error', () => socket.destroy());
    socket.once('readable', () => {
      const first = socket.read() as Buffer | null;
      if (first === null) return;
      socket.unshift(first);
      if (first[0] !== TLS_HANDSHAKE && /^[A-Z]{3,8} /.test(first.subarray(0, 9).toString('latin1'))) {
        answer(socket);
        return;
      }
      tlsListener.call(server, socket);
    });
  });
}

function answer(socket: Socket): void {
  const refusal = new ApiError(
    'bad_request',
    'The plain HTTP request was sent to the HTTPS port: use https:// instead of http://.',
  );
  const body = JSON.stringify(refusal.toBody());
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
