// One `ringhook serve` child for a whole test file, as a user runs it: managed Asterisk with SIPp phones
// at its trunk, SMS backup through the Perl SMSC over SMPP. Started before the file's tests and stopped
// after them; the SIPp phones a test started are stopped after it. A test may kill and restart `serve`.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { buildOnce, runCliJson, type ServeProcess, startServe } from '../soak/peers.js';
import { provisionAsterisk } from './asterisk.js';
import { request } from './https-client.js';
import { freeUdpPort } from './ports.js';
import { serveChildAddress, serveChildEnv } from './service.js';
import { stopAllSipp } from './sipp.js';
import { type Smsc, startSmsc } from './smpp-server.js';

export interface AlertAccount {
  user_id: string;
  api_key: string;
}

export interface ServeWithPhones {
  env: Record<string, string>;
  dataDir: string;
  trunkPort: number;
  smsc: Smsc;
  serve: ServeProcess | null;
  /** A Premium account with SMS backup on, made by the CLI; `options` are more `account create` flags. */
  account(phone: string, ...options: string[]): AlertAccount;
  /** Posts an alert (text, or an object as JSON) and returns its call id; the answer must be the contract's 200. */
  alert(account: AlertAccount, body: string | object): Promise<string>;
}

export function serveWithPhones(options: { dataDirPrefix: string; extra: Record<string, string> }): ServeWithPhones {
  let address: { base: string; ca: string };
  const fixture: ServeWithPhones = {
    env: {},
    dataDir: '',
    trunkPort: 0,
    smsc: undefined as unknown as Smsc,
    serve: null,
    account: (phone, ...flags) =>
      runCliJson(
        ['account', 'create', '--phone', phone, '--plan', 'premium', '--sms-backup', 'on', ...flags],
        fixture.env,
      ),
    async alert(account, body) {
      const res = await request(`${address.base}/webhook/${account.user_id}/${account.api_key}`, {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' },
        ca: address.ca,
      });
      expect(res.status, res.text).toBe(200);
      // The webhook's answer is the one it always was.
      expect(Object.keys(res.json).sort()).toEqual(['call_id', 'message', 'success', 'timestamp', 'truncated']);
      return res.json.call_id as string;
    },
  };

  beforeAll(async () => {
    await provisionAsterisk();
    buildOnce();
    fixture.smsc = await startSmsc({ receiptDelayS: 0 });
    fixture.trunkPort = await freeUdpPort();
    fixture.env = await serveChildEnv({
      dataDirPrefix: options.dataDirPrefix,
      trunkPort: fixture.trunkPort,
      smsc: fixture.smsc,
      extra: options.extra,
    });
    fixture.dataDir = fixture.env.RINGHOOK_DATA_DIR!;
    fixture.serve = await startServe(fixture.env);
    address = serveChildAddress(fixture.env);
  }, 300_000);

  afterEach(async () => {
    await stopAllSipp();
  });

  afterAll(async () => {
    await fixture.serve?.stop();
    await fixture.smsc?.stop();
  });

  return fixture;
}
