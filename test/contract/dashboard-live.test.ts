// The live history stream over real HTTPS: each owner hears only about their own calls, a stream
// ends when the session does, and an open stream does not keep the service from stopping.
import https from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteOwnerAuthStore } from '../../src/store/sqlite/owner-auth.js';
import { SqliteSessionStore } from '../../src/store/sqlite/sessions.js';
import { startDashboardService, type DashboardService } from '../helpers/browser.js';
import { request } from '../helpers/https-client.js';

let svc: DashboardService | undefined;

afterEach(async () => {
  await svc?.stop();
  svc = undefined;
});

interface Stream {
  status: number;
  headers: Record<string, unknown>;
  text: () => string;
  ended: Promise<void>;
  close: () => void;
}

function openStream(s: DashboardService, token: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      `${s.baseUrl}/dashboard/events`,
      { ca: s.ca, headers: { cookie: `__Host-ringhook_session=${token}`, accept: 'text/event-stream' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        const ended = new Promise<void>((done) => res.on('close', () => done()));
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: () => text,
          ended,
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
  });
}

const until = async (check: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('GET /dashboard/events', () => {
  it('sends each owner the changes of their own calls only', async () => {
    svc = await startDashboardService();
    const sessions = new SqliteSessionStore(svc.stores.db, svc.clock.now);
    const a = svc.createAccount({ plan: 'premium' });
    const b = svc.createAccount({ plan: 'premium' });
    const streamA = await openStream(svc, sessions.create(a.userId).token);
    const streamB = await openStream(svc, sessions.create(b.userId).token);
    expect(streamA.status).toBe(200);
    expect(streamA.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    await until(() => streamA.text().includes(': connected') && streamB.text().includes(': connected'));
    const res = await request(`${svc.baseUrl}/webhook/${a.userId}/${a.apiKey}`, {
      body: 'A moved',
      headers: { 'content-type': 'text/plain' },
      ca: svc.ca,
    });
    expect(res.status).toBe(200);
    svc.setCallStatus(res.json.call_id, 'ringing');
    await until(() => streamA.text().includes('"status":"ringing"'));
    expect(streamA.text()).toContain(`event: call\ndata: {"callId":"${res.json.call_id}","status":"queued"}\n\n`);
    expect(streamB.text()).not.toContain('event: call');
    streamA.close();
    streamB.close();
  });

  it('refuses without a session, and ends the stream when the session is signed out', async () => {
    svc = await startDashboardService();
    const a = svc.createAccount();
    expect((await request(`${svc.baseUrl}/dashboard/events`, { method: 'GET', ca: svc.ca })).status).toBe(401);
    const sessions = new SqliteSessionStore(svc.stores.db, svc.clock.now);
    const { token } = sessions.create(a.userId);
    const stream = await openStream(svc, token);
    sessions.delete(token);
    await stream.ended;
  });

  it('gives a session at most 5 streams (429 beyond, with Retry-After); closing one frees a slot', async () => {
    svc = await startDashboardService();
    const s = svc;
    const a = svc.createAccount({ plan: 'premium' });
    const sessions = new SqliteSessionStore(svc.stores.db, svc.clock.now);
    const token = sessions.create(a.userId).token;
    const streams = await Promise.all(Array.from({ length: 5 }, () => openStream(s, token)));
    expect(streams.map((x) => x.status)).toEqual([200, 200, 200, 200, 200]);
    const refused = await openStream(s, token);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await refused.ended;
    // Another session of the same owner has its own streams.
    const other = await openStream(s, sessions.create(a.userId).token);
    expect(other.status).toBe(200);
    streams[0]!.close();
    await streams[0]!.ended;
    let again = await openStream(s, token);
    const deadline = Date.now() + 3000;
    while (again.status === 429 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      again = await openStream(s, token);
    }
    expect(again.status).toBe(200);
    // Every open stream still hears the owner's calls.
    const open = [...streams.slice(1), other, again];
    await until(() => open.every((x) => x.text().includes(': connected')));
    const res = await request(`${s.baseUrl}/webhook/${a.userId}/${a.apiKey}`, {
      body: 'A moved',
      headers: { 'content-type': 'text/plain' },
      ca: s.ca,
    });
    s.setCallStatus(res.json.call_id, 'ringing');
    await until(() => open.every((x) => x.text().includes('"status":"ringing"')));
    for (const x of open) x.close();
  });

  it('caps the streams of all sessions together (429 beyond)', async () => {
    svc = await startDashboardService({ liveStreams: { total: 8 } });
    const s = svc;
    const sessions = new SqliteSessionStore(svc.stores.db, svc.clock.now);
    const tokens = Array.from({ length: 4 }, () => sessions.create(s.createAccount().userId).token);
    const streams = await Promise.all(tokens.flatMap((t) => [openStream(s, t), openStream(s, t)]));
    expect(streams.every((x) => x.status === 200)).toBe(true);
    const refused = await openStream(s, sessions.create(s.createAccount().userId).token);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    for (const x of streams) x.close();
  });

  it('logs a flood of refused streams as one line with a count, not one line each', async () => {
    svc = await startDashboardService({ liveStreams: { perSession: 1 } });
    const s = svc;
    const token = new SqliteSessionStore(s.stores.db, s.clock.now).create(s.createAccount().userId).token;
    const open = await openStream(s, token);
    expect(open.status).toBe(200);
    const refused = [];
    for (let i = 0; i < 30; i++) refused.push(await openStream(s, token));
    expect(refused.every((x) => x.status === 429)).toBe(true);
    const lines = s.logs.filter((l) => String(l.msg).startsWith('dashboard live stream'));
    // The first refusal is told at once; the rest of the period is summed up when it ends.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', refused: 1, cap: 'perSession' });
    open.close();
  });

  it.each([true, false])(
    'does not keep the service from stopping (shutdown signal given: %s)',
    async (shutdownSignal) => {
      svc = await startDashboardService({ shutdownSignal });
      const a = svc.createAccount();
      await new SqliteOwnerAuthStore(svc.stores.db).setPassword(a.userId, 'correct horse battery');
      const stream = await openStream(svc, new SqliteSessionStore(svc.stores.db, svc.clock.now).create(a.userId).token);
      await until(() => stream.text().includes(': connected'));
      const started = Date.now();
      await svc.stop();
      svc = undefined;
      await stream.ended;
      expect(Date.now() - started).toBeLessThan(3000);
    },
  );
});
