// Opens a TLS connection to a trunk as Asterisk will (the same authorities, the host's name or
// address checked against the certificate) and says what went wrong in words an operator can act on.
import { isIP } from 'node:net';
import { checkServerIdentity, connect, type PeerCertificate } from 'node:tls';

export type TlsProbe =
  | { ok: true; subject: string; issuer: string; validTo: string }
  | {
      ok: false;
      problem: 'untrusted' | 'expired' | 'wrong_name' | 'refused' | 'not_tls' | 'timeout' | 'unreachable';
      detail: string;
    };

const name = (cert: PeerCertificate['subject'] | undefined) => [cert?.CN ?? cert?.O ?? 'no name'].flat().join(', ');

export function probeTls(host: string, port: number, ca: string | undefined, timeoutMs = 5_000): Promise<TlsProbe> {
  const where = `${host}:${port}`;
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port,
      ...(ca !== undefined && { ca }),
      rejectUnauthorized: false,
      ...(isIP(host) === 0 && { servername: host }),
    });
    const done = (result: TlsProbe) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => done({ ok: false, problem: 'timeout', detail: `no TLS answer from ${where} within ${timeoutMs} ms` }),
      timeoutMs,
    );
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      const issued = `${name(cert.subject)}, issued by ${name(cert.issuer)}`;
      const code =
        socket.authorizationError === null
          ? undefined
          : String((socket.authorizationError as Error & { code?: string }).code ?? socket.authorizationError);
      if (code === 'CERT_HAS_EXPIRED')
        return done({
          ok: false,
          problem: 'expired',
          detail: `the certificate of ${where} (${issued}) expired on ${cert.valid_to}`,
        });
      if (code !== undefined) {
        return done({
          ok: false,
          problem: 'untrusted',
          detail: `the certificate of ${where} (${issued}) is not signed by an authority this machine trusts (${code})`,
        });
      }
      const identity = checkServerIdentity(host, cert);
      if (identity)
        return done({
          ok: false,
          problem: 'wrong_name',
          detail: `the certificate of ${where} (${issued}) does not name ${host}: ${identity.message}`,
        });
      done({ ok: true, subject: name(cert.subject), issuer: name(cert.issuer), validTo: cert.valid_to });
    });
    socket.once('error', (error: Error & { code?: string }) => {
      if (error.code === 'ECONNREFUSED')
        return done({
          ok: false,
          problem: 'refused',
          detail: `${where} refuses the connection: nothing accepts TLS there`,
        });
      if (
        error.code === 'EHOSTUNREACH' ||
        error.code === 'ENETUNREACH' ||
        error.code === 'ENOTFOUND' ||
        error.code === 'EAI_AGAIN'
      ) {
        return done({ ok: false, problem: 'unreachable', detail: `${where} cannot be reached: ${error.message}` });
      }
      done({ ok: false, problem: 'not_tls', detail: `${where} does not complete a TLS handshake: ${error.message}` });
    });
  });
}
