// A status-callback receiver as an integrator writes one: real HTTPS on loopback (a certificate
// made here by openssl), every request's signature checked by the `standardwebhooks` package, and
// the answers the test asks for (500 then 200, 410…), in order.
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { makeCertificate } from './reverse-proxy.js';

export interface ReceivedCallback {
  id: string;
  timestamp: number;
  signature: string;
  body: string;
  type: string;
  data: Record<string, any>;
  /** Which of the receiver's secrets verified it (their index), none when no secret did. */
  verifiedBy: number[];
  answered: number;
  at: number;
}

export interface CallbackReceiver {
  url: string;
  port: number;
  /** The certificate's authority, for the service to trust. */
  ca: string;
  /** The secrets it verifies with (set once ringhook made them). */
  secrets: string[];
  /** Statuses to answer, first first; 200 once they are used up. */
  answers: number[];
  received: ReceivedCallback[];
  /** The callbacks answered with 2xx. */
  delivered(): ReceivedCallback[];
  close(): Promise<void>;
}

export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-receiver-'));
  const { cert, key } = makeCertificate(dir);
  const receiver: CallbackReceiver = {
    url: '',
    port: 0,
    ca: fs.readFileSync(cert, 'utf8'),
    secrets: [],
    answers: [],
    received: [],
    delivered: () => receiver.received.filter((r) => r.answered >= 200 && r.answered < 300),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      const verifiedBy = receiver.secrets.flatMap((secret, i) => {
        try {
          new Webhook(secret).verify(body, headers);
          return [i];
        } catch {
          return [];
        }
      });
      const answered = verifiedBy.length === 0 ? 401 : (receiver.answers.shift() ?? 200);
      const parsed = JSON.parse(body) as { type: string; data: Record<string, any> };
      receiver.received.push({
        id: headers['webhook-id'],
        timestamp: Number(headers['webhook-timestamp']),
        signature: headers['webhook-signature'],
        body,
        type: parsed.type,
        data: parsed.data,
        verifiedBy,
        answered,
        at: Date.now(),
      });
      res
        .writeHead(answered, { 'content-type': 'text/plain' })
        .end(answered === 401 ? 'bad signature' : `answer ${answered}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as { port: number }).port;
  receiver.url = `https://127.0.0.1:${receiver.port}/ringhook-events`;
  return receiver;
}
