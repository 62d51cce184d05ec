// The webhook's accept rules, one table of cases (#55): each case is an alert whose facts make
// several checks refuse at once (a wrong key with a suspended account and an empty body, a duplicate
// over the limit…), so the order of the checks decides the answer. The same table runs on core's
// decision (core/webhook/accept-rules), over real HTTPS with a real SQLite file (the step-by-step
// path and the store's accept), and with a real PostgreSQL (the one round trip of
// ringhook_receive_v14): every answer's status and error code must be the case's on all three.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import { decideAccept, type AcceptFacts } from '../../src/core/webhook/accept-rules.js';
import { decideLimits } from '../../src/core/webhook/limits.js';
import { createAccount } from '../helpers/accounts.js';
import type { PgCluster } from '../helpers/postgres.js';
import { startTestServiceOn, type TestService } from '../helpers/service.js';
import { STORE_KINDS } from '../helpers/stores.js';

interface Case {
  name: string;
  /** How the account is: its plan, suspended, its allowed sources (the client is 127.0.0.1), its duplicate window. */
  account: { plan?: 'free' | 'premium'; suspended?: boolean; sources?: string; dedupeSeconds?: number };
  wrongKey?: boolean;
  body: string;
  /** Alerts accepted before this one, each with this idempotency key when given. */
  before?: number;
  idempotencyKey?: string;
  /** The facts as core reads them (what each check finds). */
  facts: {
    authenticated: boolean;
    active: boolean;
    sourceRefusedBy?: 'account';
    payloadValid: boolean;
    duplicate: boolean;
    /** The alerts accepted within the minute before (the free plan allows 1). */
    recent: number;
  };
  expect: {
    outcome: string;
    status: number;
    code?: string;
    /** The field a 400 names. */
    field?: string;
    /** An accepted alert's own decision keys (#56), as kept with its call, and its Idempotency-Key. */
    keys?: string;
    idempotencyKey?: string;
  };
}

const ALERT = 'BTCUSD crossed 100000';
const NOT_HERE = '10.0.0.0/8';

const CASES: Case[] = [
  {
    name: 'a wrong key, whatever else is wrong: 401',
    account: { suspended: true, sources: NOT_HERE },
    wrongKey: true,
    body: '',
    facts: {
      authenticated: false,
      active: false,
      sourceRefusedBy: 'account',
      payloadValid: false,
      duplicate: false,
      recent: 0,
    },
    expect: { outcome: 'unauthorized', status: 401, code: 'unauthorized' },
  },
  {
    name: 'suspended, from a refused address, an empty body: suspended first',
    account: { suspended: true, sources: NOT_HERE },
    body: '',
    facts: {
      authenticated: true,
      active: false,
      sourceRefusedBy: 'account',
      payloadValid: false,
      duplicate: false,
      recent: 0,
    },
    expect: { outcome: 'suspended', status: 403, code: 'account_suspended' },
  },
  {
    name: 'from an address outside the account sources, an empty body: the source first',
    account: { sources: NOT_HERE },
    body: '',
    facts: {
      authenticated: true,
      active: true,
      sourceRefusedBy: 'account',
      payloadValid: false,
      duplicate: false,
      recent: 0,
    },
    expect: { outcome: 'source_not_allowed', status: 403, code: 'source_not_allowed' },
  },
  {
    name: 'an empty body on a plan over its minute: the payload before the limits',
    account: { plan: 'free' },
    body: '',
    before: 1,
    facts: { authenticated: true, active: true, payloadValid: false, duplicate: false, recent: 1 },
    expect: { outcome: 'invalid', status: 400, code: 'empty_body' },
  },
  {
    name: 'a duplicate on a plan over its minute: answered with the first call, not limited',
    account: { plan: 'free', dedupeSeconds: 60 },
    body: ALERT,
    before: 1,
    idempotencyKey: 'same-key',
    facts: { authenticated: true, active: true, payloadValid: true, duplicate: true, recent: 1 },
    expect: { outcome: 'duplicate', status: 200 },
  },
  {
    name: 'a new alert on a plan over its minute: 429',
    account: { plan: 'free' },
    body: ALERT,
    before: 1,
    facts: { authenticated: true, active: true, payloadValid: true, duplicate: false, recent: 1 },
    expect: { outcome: 'refused', status: 429, code: 'rate_limited' },
  },
  {
    name: 'bad decision keys (#56) on a plan over its minute: 400 naming keys',
    account: { plan: 'free' },
    body: JSON.stringify({ message: ALERT, keys: { '1': 'buy' } }),
    before: 1,
    facts: { authenticated: true, active: true, payloadValid: false, duplicate: false, recent: 1 },
    expect: { outcome: 'invalid', status: 400, code: 'invalid_field', field: 'keys' },
  },
  {
    name: "an alert's own decision keys (#56), for an account without a callback URL: accepted, kept with its call",
    account: {},
    body: JSON.stringify({ message: ALERT, keys: { '7': 'buy', '8': 'skip' } }),
    idempotencyKey: 'order-77',
    facts: { authenticated: true, active: true, payloadValid: true, duplicate: false, recent: 0 },
    expect: { outcome: 'accepted', status: 200, keys: '7=buy,8=skip', idempotencyKey: 'order-77' },
  },
  {
    name: 'an alert within every rule: accepted',
    account: { sources: '127.0.0.1/32', dedupeSeconds: 60 },
    body: ALERT,
    idempotencyKey: 'first-key',
    facts: { authenticated: true, active: true, payloadValid: true, duplicate: false, recent: 0 },
    expect: { outcome: 'accepted', status: 200 },
  },
];

const NOW = Date.UTC(2026, 11, 6, 12, 0, 0);

function coreFacts(c: Case): AcceptFacts {
  const { facts } = c;
  return {
    authenticated: () => facts.authenticated,
    active: () => facts.active,
    sourceRefusedBy: () => facts.sourceRefusedBy,
    payloadValid: () => facts.payloadValid,
    duplicateOf: () => (facts.duplicate ? 'call_first' : undefined),
    limits: () =>
      decideLimits(
        c.account.plan ?? 'premium',
        NOW,
        facts.recent,
        Array.from({ length: facts.recent }, () => NOW - 1_000),
      ),
  };
}

describe('the accept rules on core', () => {
  for (const c of CASES)
    it(c.name, () => {
      expect(decideAccept(coreFacts(c)).outcome).toBe(c.expect.outcome);
    });
});

for (const kind of STORE_KINDS) {
  describe(`the accept rules over HTTPS on ${kind}`, () => {
    let t: TestService;
    let pg: PgCluster | undefined;

    beforeAll(async () => {
      ({ t, pg } = await startTestServiceOn(kind, 'accept_rules'));
    }, 120_000);

    afterAll(async () => {
      await t?.stop();
      await pg?.stop();
    });

    async function accountFor(c: Case): Promise<Account> {
      const stores = t.service.stores;
      const a = await createAccount(stores.accounts, { plan: c.account.plan ?? 'premium' });
      const changes = {
        ...(c.account.sources && { webhookSources: c.account.sources }),
        ...(c.account.dedupeSeconds && { dedupeSeconds: c.account.dedupeSeconds }),
      };
      if (Object.keys(changes).length > 0) await stores.accounts.update(a.userId, changes);
      return a;
    }

    const post = (a: Account, c: Case, key = a.apiKey) =>
      t.post(`/webhook/${a.userId}/${key}`, c.body, {
        'content-type': 'text/plain',
        ...(c.idempotencyKey && { 'idempotency-key': c.idempotencyKey }),
      });

    for (const c of CASES)
      it(c.name, async () => {
        const a = await accountFor(c);
        const firsts: string[] = [];
        for (let i = 0; i < (c.before ?? 0); i++) {
          const res = await post(a, { ...c, body: ALERT });
          expect(res.status, res.text).toBe(200);
          firsts.push(res.json.call_id as string);
        }
        if (c.account.suspended) await t.service.stores.accounts.update(a.userId, { status: 'suspended' });
        const res = await post(a, c, c.wrongKey ? `${a.apiKey.slice(0, -2)}xx` : a.apiKey);
        expect(res.status, res.text).toBe(c.expect.status);
        if (c.expect.code) expect(res.json.code, res.text).toBe(c.expect.code);
        if (c.expect.outcome === 'duplicate') expect(res.json.call_id).toBe(firsts[0]);
        if (c.expect.outcome === 'accepted')
          expect(res.json).toMatchObject({ success: true, call_id: expect.any(String) });
        if (c.expect.field) expect(res.json.field, res.text).toBe(c.expect.field);
        if (c.expect.keys)
          expect(await t.service.stores.calls.get(res.json.call_id as string)).toMatchObject({
            decisionKeys: c.expect.keys,
            idempotencyKey: c.expect.idempotencyKey ?? null,
          });
      });
  });
}
