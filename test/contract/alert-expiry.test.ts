// An alert's own expiry (#54, beyond the webhook's contract): JSON `expires_in` or the Expires-In
// header, 10–86400 s, kept on the alert's row; anything else a 400 naming the field, nothing kept.
// The webhook's answer is the contract's either way. Over real HTTPS, against each store (a real
// SQLite file; a real PostgreSQL, whose webhook is one server-side function).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import { startTestServiceOn, type TestService } from '../helpers/service.js';
import type { PgCluster } from '../helpers/postgres.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { createAccount } from '../helpers/accounts.js';

let t: TestService;
let pg: PgCluster | undefined;

const hookPath = (a: Pick<Account, 'userId' | 'apiKey'>) => `/webhook/${a.userId}/${a.apiKey}`;
const json = { 'content-type': 'application/json' };
const text = { 'content-type': 'text/plain' };

for (const storeKind of STORE_KINDS) {
  describe(`over ${storeKind}`, () => {
    beforeAll(async () => {
      ({ t, pg } = await startTestServiceOn(storeKind, 'alert_expiry'));
    });

    afterAll(async () => {
      await t?.stop();
      await pg?.stop();
      pg = undefined;
    });

    afterEach(() => expect(t.takeErrorLogs()).toEqual([]));

    const account = () => createAccount(t.service.stores.accounts, { plan: 'premium' });
    const expiryOf = async (callId: string) => (await t.service.stores.progress.get(callId))?.expiresIn ?? null;

    it('expires_in in the JSON body is kept on the alert, and the answer is the one without it', async () => {
      const a = await account();
      const res = await t.post(hookPath(a), JSON.stringify({ message: 'BTC up', expires_in: 60 }), json);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.json).sort()).toEqual(['call_id', 'message', 'success', 'timestamp', 'truncated']);
      expect(await expiryOf(res.json.call_id)).toBe(60);
      // Not an extra field of the alert's: it is ringhook's own.
      expect((await t.service.stores.calls.get(res.json.call_id))!.extra).toEqual({});
      const plain = await t.post(hookPath(a), 'no expiry', text);
      expect(await expiryOf(plain.json.call_id)).toBeNull();
    });

    it('the Expires-In header does the same for any body; with both, the sooner counts', async () => {
      const a = await account();
      const res = await t.post(hookPath(a), 'ETH down', { ...text, 'expires-in': '30' });
      expect(res.status, res.text).toBe(200);
      expect(await expiryOf(res.json.call_id)).toBe(30);
      const both = await t.post(hookPath(a), JSON.stringify({ message: 'm', expires_in: 600 }), {
        ...json,
        'expires-in': '45',
      });
      expect(await expiryOf(both.json.call_id)).toBe(45);
    });

    it('expires_in not a whole number of seconds from 10 to 86400: 400 naming the field, nothing accepted', async () => {
      const a = await account();
      for (const value of ['"soon"', '9', '86401', '10.5', 'true', '-20', '[]']) {
        const res = await t.post(hookPath(a), `{"message":"m","expires_in":${value}}`, json);
        expect(res.status, `${value}: ${res.text}`).toBe(400);
        expect(res.json).toMatchObject({ success: false, code: 'invalid_field', field: 'expires_in' });
        expect(res.json.error).toMatch(/"expires_in" must be a whole number of seconds from 10 to 86400/);
      }
      expect((await t.service.stores.calls.usage(a.userId)).used).toBe(0);
    });

    it('an Expires-In header that is not 10–86400 seconds: 400 naming it, nothing accepted', async () => {
      const a = await account();
      for (const value of ['abc', '5', '100000', '1e3', '60s']) {
        const res = await t.post(hookPath(a), 'hello', { ...text, 'expires-in': value });
        expect(res.status, `${value}: ${res.text}`).toBe(400);
        expect(res.json).toMatchObject({ code: 'invalid_field', field: 'Expires-In' });
      }
      expect((await t.service.stores.calls.usage(a.userId)).used).toBe(0);
      const history = await t.service.stores.calls.list({ userId: a.userId, limit: 10 });
      expect(history.map((c) => c.status)).toEqual(Array(5).fill('invalid_payload'));
    });
  });
}
