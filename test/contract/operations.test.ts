// /healthz and /metrics over real HTTPS, and the metrics token; a node on PostgreSQL reports the
// store and the nodes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/https-client.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { createAccount } from '../helpers/accounts.js';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { PG_SCHEMA_VERSION } from '../../src/store/postgres/migrations.js';

let t: TestService;
const TOKEN = 'metrics-token-0123456789';

beforeAll(async () => {
  t = await startTestService({ RINGHOOK_METRICS_TOKEN: TOKEN });
});

afterAll(async () => {
  await t.stop();
});

describe('/metrics without RINGHOOK_METRICS_TOKEN', () => {
  let open: TestService;
  beforeAll(async () => {
    // 127.0.0.2 is a trusted reverse proxy: what it says of its clients stands for clients elsewhere.
    open = await startTestService({ RINGHOOK_TRUST_PROXY: '127.0.0.2' });
  });
  afterAll(async () => {
    await open.stop();
  });
  const get = (headers: Record<string, string> = {}, localAddress = '127.0.0.1') =>
    request(`https://127.0.0.1:${open.service.servers.httpsPort}/metrics`, {
      method: 'GET',
      ca: open.ca,
      headers,
      localAddress,
    });

  it('answers this machine (a local Prometheus)', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.text).toContain('ringhook_alerts_total');
  });

  it('refuses anybody else, as a trusted proxy names them, and a request an untrusted proxy forwarded', async () => {
    for (const [headers, from] of [
      [{ 'x-forwarded-for': '203.0.113.9' }, '127.0.0.2'],
      [{ 'x-forwarded-for': '127.0.0.1, 203.0.113.9' }, '127.0.0.2'],
      [{ 'x-forwarded-for': '203.0.113.9' }, '127.0.0.1'],
      [{ 'x-real-ip': '203.0.113.9' }, '127.0.0.1'],
      [{ forwarded: 'for=203.0.113.9' }, '127.0.0.1'],
    ] as const) {
      const res = await get(headers, from);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.json).toMatchObject({
        code: 'unauthorized',
        error: expect.stringMatching(/this machine only: set RINGHOOK_METRICS_TOKEN/),
      });
    }
    expect((await get({ 'x-forwarded-for': '127.0.0.1' }, '127.0.0.2')).status).toBe(200);
  });
});

describe('operations', () => {
  it('/healthz says the process and database are up and telephony is off', async () => {
    const res = await request(`${t.baseUrl}/healthz`, { method: 'GET', ca: t.ca });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, checks: { process: 'ok', database: 'ok', telephony: 'off' } });
  });

  it('/metrics wants the bearer token, then counts alerts by result and times the webhook', async () => {
    const a = await createAccount(t.service.stores.accounts);
    await t.post(`/webhook/${a.userId}/${a.apiKey}`, 'one', { 'content-type': 'text/plain' });
    await t.post(`/webhook/${a.userId}/${a.apiKey}`, '', { 'content-type': 'text/plain' });
    await t.post(`/webhook/${a.userId}/wrong`, 'x', { 'content-type': 'text/plain' });

    expect((await request(`${t.baseUrl}/metrics`, { method: 'GET', ca: t.ca })).status).toBe(401);
    expect(
      (
        await request(`${t.baseUrl}/metrics`, {
          method: 'GET',
          ca: t.ca,
          headers: { authorization: 'Bearer wrong-token-0123456789' },
        })
      ).status,
    ).toBe(401);
    const res = await request(`${t.baseUrl}/metrics`, {
      method: 'GET',
      ca: t.ca,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('ringhook_alerts_total{result="accepted"} 1');
    expect(res.text).toContain('ringhook_alerts_total{result="invalid_payload"} 1');
    expect(res.text).toContain('ringhook_alerts_total{result="unauthorized"} 1');
    expect(res.text).toMatch(/ringhook_webhook_duration_seconds_count 3/);
    expect(res.text).toContain('ringhook_active_calls 0');
    expect(res.text).toContain('# TYPE ringhook_answer_to_first_speech_seconds histogram');
    expect(res.text).toContain('ringhook_answer_to_first_speech_seconds_count 0');
    expect(res.text).toMatch(/ringhook_node_info\{node="[A-Za-z0-9._-]+",store="sqlite"\} 1/);
  });
});

describe('operations of a node on PostgreSQL', () => {
  let pg: PgCluster;
  let node: TestService;

  beforeAll(async () => {
    pg = await startPostgres();
    node = await startTestService({
      RINGHOOK_DATABASE_URL: await pg.createDatabase('ops'),
      RINGHOOK_SECRET_KEY: 'c'.repeat(64),
      RINGHOOK_NODE_ID: 'node-ops',
    });
  }, 60_000);

  afterAll(async () => {
    await node?.stop();
    await pg?.stop();
  });

  it('/healthz names this node and the nodes alive; /metrics says which node and store', async () => {
    await waitFor('the first heartbeat', async () => {
      const res = await request(`${node.baseUrl}/healthz`, { method: 'GET', ca: node.ca });
      return res.json?.cluster?.nodes?.length === 1 ? res : undefined;
    });
    const res = await request(`${node.baseUrl}/healthz`, { method: 'GET', ca: node.ca });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      ok: true,
      checks: { process: 'ok', database: 'ok', telephony: 'off' },
      cluster: { node: 'node-ops' },
    });
    expect(res.json.cluster.nodes).toEqual([
      { node: 'node-ops', alive: true, seen_ms_ago: expect.any(Number), version: '0.1.0', schema: PG_SCHEMA_VERSION },
    ]);
    const metrics = await request(`${node.baseUrl}/metrics`, { method: 'GET', ca: node.ca });
    expect(metrics.text).toContain('ringhook_node_info{node="node-ops",store="postgres"} 1');
  });

  it('/healthz answers 503 with the database down while PostgreSQL is stopped, and 200 again after', async () => {
    await pg.kill();
    try {
      const down = await request(`${node.baseUrl}/healthz`, { method: 'GET', ca: node.ca });
      expect(down.status).toBe(503);
      expect(down.json).toMatchObject({ ok: false, checks: { database: 'down' }, down: ['database'] });
    } finally {
      await pg.restart();
    }
    await waitFor(
      'healthy again',
      async () =>
        (await request(`${node.baseUrl}/healthz`, { method: 'GET', ca: node.ca })).status === 200 ? true : undefined,
      20_000,
    );
    // The heartbeat said once that it could not reach the database.
    for (const line of node.takeErrorLogs())
      expect(line.msg).toBe('could not reach the database to say this node is alive');
  }, 60_000);
});
