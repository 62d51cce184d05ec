// A plain HTTP request sent to the HTTPS port (http:// typed for https://) gets an answer saying so,
// as nginx's "The plain HTTP request was sent to HTTPS port", instead of a connection closed without
// a word. OpenSSL recognises such a request as the first bytes of the handshake
// (ERR_SSL_HTTP_REQUEST); the answer is written in plain HTTP on the connection underneath, which
// Node closes after the event. Every other connection goes to TLS untouched.
import type { Socket } from 'node:net';
import type { Server as TlsServer, TLSSocket } from 'node:tls';
import { ApiError } from './errors.js';

export function answerPlainHttpOnTls(server: TlsServer): void {
  server.on('tlsClientError', (error: NodeJS.ErrnoException, tlsSocket: TLSSocket) => {
    if (error.code !== 'ERR_SSL_HTTP_REQUEST') return;
    // The TCP connection the TLS socket wraps (Node's own field; the connection guard reads it too).
    const connection = (tlsSocket as TLSSocket & { _parent?: Socket })._parent;
    if (!connection?.writable) return;
    const refusal = new ApiError(
      'bad_request',
      'The plain HTTP request was sent to the HTTPS port: use https:// instead of http://.',
    );
    const body = JSON.stringify(refusal.toBody());
    connection.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
