// The example receiver of docs/owner-controls.md (#56), run as written: the doc's code block is taken
// out of the doc, started with node as a person would start it (its own HTTPS, the `standardwebhooks`
// package), and sent a `call.decision` made and signed by ringhook's own code (core/callbacks'
// event and body, src/callbacks' signed POST). It acts on the label once verified; a delivery signed
// with another secret gets 401 and is not acted on. The doc cannot rot without this failing.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendSigned } from '../../src/callbacks/index.js';
import {
  callbackBody,
  callbackEventsFor,
  newCallbackMessageId,
  newCallbackSecret,
} from '../../src/core/callbacks/callback-events.js';
import { parseAddressList } from '../../src/core/connections/address-match.js';
import { makeCertificate } from '../helpers/reverse-proxy.js';
import { freeTcpPort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const DOC = path.join(REPO_ROOT, 'docs', 'owner-controls.md');

/** The doc's receiver: the one ```js block of its "A receiver that acts on the decision" section. */
function documentedReceiver(): string {
  const doc = fs.readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf('### A receiver that acts on the decision'));
  const block = /```js\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('docs/owner-controls.md has no ```js block under "A receiver that acts on the decision"');
  return block[1]!;
}

let dir: string;
let receiver: ChildProcess;
let output = '';
let url: string;
let ca: string;
const secret = newCallbackSecret();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-doc-receiver-'));
  const code = documentedReceiver();
  expect(code.split('\n').length).toBeLessThanOrEqual(32);
  fs.writeFileSync(path.join(dir, 'decision-receiver.mjs'), code);
  // As after `npm install standardwebhooks` in the receiver's folder.
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const { cert, key } = makeCertificate(dir);
  ca = fs.readFileSync(cert, 'utf8');
  const port = await freeTcpPort();
  url = `https://127.0.0.1:${port}/ringhook`;
  receiver = spawn(process.execPath, ['decision-receiver.mjs'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      RINGHOOK_CALLBACK_SECRET: secret,
      TLS_CERT: cert,
      TLS_KEY: key,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  receiver.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(
    'the receiver to listen',
    async () => ((await send(newCallbackSecret(), '{}')).kind === 'answered' ? true : undefined),
    15_000,
  );
}, 30_000);

afterAll(() => {
  receiver?.kill();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function send(withSecret: string, body: string) {
  return sendSigned(
    { url, secrets: [withSecret], messageId: newCallbackMessageId(), body, now: Date.now() },
    { allow: parseAddressList('127.0.0.1/32'), timeoutMs: 10_000, ca },
  );
}

/** A call.decision as ringhook makes it from a call's row (store/outbox's deliveriesFor). */
function decisionBody(label: string): string {
  const decidedAt = Date.now();
  const [event] = callbackEventsFor('acknowledged', {
    callId: 'call_doc_1',
    userId: 'u'.repeat(32),
    kind: 'alert',
    status: 'acknowledged',
    error: null,
    smsStatus: null,
    smsError: null,
    smsParts: null,
    receivedAt: decidedAt - 30_000,
    answeredAt: decidedAt - 10_000,
    endedAt: decidedAt,
    decisionKey: label === 'buy' ? '7' : '8',
    decisionLabel: label,
    decidedAt,
    ticker: 'BTCUSD',
    action: 'buy',
    extra: {},
    idempotencyKey: 'order-77',
  });
  expect(event?.type).toBe('call.decision');
  return callbackBody(event!.type, decidedAt, event!.data);
}

it("the documented receiver verifies ringhook's signature and acts on the label", async () => {
  const result = await send(secret, decisionBody('buy'));
  expect(result).toMatchObject({ kind: 'answered', status: 204 });
  await waitFor(
    'the receiver to buy',
    () => (output.includes('buy BTCUSD for order order-77 (call call_doc_1)') ? true : undefined),
    5_000,
  );

  const skip = await send(secret, decisionBody('skip'));
  expect(skip).toMatchObject({ kind: 'answered', status: 204 });
  await waitFor(
    'the receiver to skip',
    () => (output.includes('skip: nothing to do (call call_doc_1)') ? true : undefined),
    5_000,
  );
});

it('a delivery signed with another secret is answered 401 and not acted on', async () => {
  const before = output;
  const forged = await send(newCallbackSecret(), decisionBody('buy'));
  expect(forged).toMatchObject({ kind: 'answered', status: 401 });
  await new Promise((r) => setTimeout(r, 300));
  expect(output).toBe(before);
});
