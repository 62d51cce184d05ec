import { randomBytes } from 'node:crypto';
// The pure guards of sign-in and live history: the throttle (counted before hashing, per address
// and per account without letting a user_id be locked out), the hashing gate, the pre-session
// CSRF tokens, and the caps on live streams.
import { describe, expect, it } from 'vitest';
import { WorkGate } from '../../src/lib/work-gate.js';
import { LIVE_LIMITS, streamRefusal } from '../../src/http/dashboard/live-caps.js';
import { PresessionTokens } from '../../src/http/dashboard/presession.js';
import { SIGN_IN_LIMITS, SignInThrottle, type ThrottleDecision } from '../../src/http/dashboard/throttle.js';

const attempt = (d: ThrottleDecision) => {
  if (!d.allowed) throw new Error('refused');
  return d.attempt;
};

describe('sign-in throttle', () => {
  it('counts an attempt when it begins: a 6th concurrent attempt for an account is refused before any finished', () => {
    const t = new SignInThrottle(() => 0);
    for (let i = 0; i < 5; i++) expect(t.begin('acct', '10.0.0.1').allowed).toBe(true);
    expect(t.begin('acct', '10.0.0.1')).toEqual({ allowed: false, retryAfterSeconds: 15 * 60 });
  });

  it('refuses an account after 5 failures from unknown addresses until the oldest is 15 minutes old', () => {
    let now = 0;
    const t = new SignInThrottle(() => now);
    for (let i = 0; i < 5; i++) {
      expect(t.begin('acct', `10.0.0.${i}`).allowed).toBe(true);
      now += 1000;
    }
    expect(t.begin('acct', '10.0.0.99')).toEqual({ allowed: false, retryAfterSeconds: 15 * 60 - 5 });
    expect(t.begin('other', '10.0.0.99').allowed).toBe(true);
    now = 15 * 60_000 + 1;
    expect(t.begin('acct', '10.0.0.99').allowed).toBe(true);
  });

  it('refuses an address after 20 failures, whichever accounts it tried', () => {
    const t = new SignInThrottle(() => 0);
    for (let i = 0; i < 20; i++) attempt(t.begin(`acct${i}`, '192.0.2.1'));
    expect(t.begin('fresh', '192.0.2.1').allowed).toBe(false);
    expect(t.begin(undefined, '192.0.2.1').allowed).toBe(false);
    expect(t.begin('fresh', '192.0.2.2').allowed).toBe(true);
  });

  it("a success or an abandoned attempt does not count; a success from an unknown address leaves the others' failures", () => {
    const t = new SignInThrottle(() => 0, { ...SIGN_IN_LIMITS, perAccount: 2, perAddress: 3 });
    t.succeeded(attempt(t.begin('a', 'x')));
    t.abandoned(attempt(t.begin('a', 'x')));
    attempt(t.begin('a', 'y'));
    t.succeeded(attempt(t.begin('a', 'z')));
    attempt(t.begin('a', 'w'));
    expect(t.begin('a', 'v').allowed).toBe(false);
    attempt(t.begin('b', 'x'));
    attempt(t.begin('c', 'x'));
    attempt(t.begin('d', 'x'));
    expect(t.begin('e', 'x').allowed).toBe(false);
  });

  it('an address the account signed in from keeps its own count: failures from elsewhere do not lock the owner out', () => {
    let now = 0;
    const t = new SignInThrottle(() => now);
    t.succeeded(attempt(t.begin('owner', 'home')));
    for (let i = 0; i < 20; i++) t.begin('owner', `attacker-${i}`);
    expect(t.begin('owner', 'new-place').allowed).toBe(false);
    expect(t.begin('owner', 'home').allowed).toBe(true);
    // The known address is limited on its own: 5 failures.
    for (let i = 0; i < 4; i++) attempt(t.begin('owner', 'home'));
    expect(t.begin('owner', 'home').allowed).toBe(false);
    // Known for 30 days.
    now += SIGN_IN_LIMITS.knownForMs + 1;
    for (let i = 0; i < 5; i++) t.begin('owner', `attacker-${i}`);
    expect(t.begin('owner', 'home').allowed).toBe(false);
  });

  it("a success from a known address clears that address's failures for the account", () => {
    const t = new SignInThrottle(() => 0);
    t.succeeded(attempt(t.begin('owner', 'home')));
    for (let i = 0; i < 4; i++) attempt(t.begin('owner', 'home'));
    t.succeeded(attempt(t.begin('owner', 'home')));
    for (let i = 0; i < 5; i++) expect(t.begin('owner', 'home').allowed).toBe(true);
  });

  it('links are counted apart: password failures never refuse a link', () => {
    const t = new SignInThrottle(() => 0);
    for (let i = 0; i < 25; i++) t.begin(`acct${i}`, 'x');
    expect(t.linkAllowed('x')).toEqual({ allowed: true });
    for (let i = 0; i < 20; i++) t.linkFailed('x');
    expect(t.linkAllowed('x').allowed).toBe(false);
    expect(t.linkAllowed('y').allowed).toBe(true);
  });
});

describe('hashing gate', () => {
  const deferred = () => {
    let resolve!: (v: string) => void;
    const promise = new Promise<string>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('runs one at a time, queues 8, refuses beyond, and hands a freed slot to the next in line', async () => {
    const gate = new WorkGate({ concurrency: 1, queue: 8 });
    const jobs = Array.from({ length: 10 }, () => deferred());
    const started: number[] = [];
    const results = jobs.map((job, i) => gate.tryRun(() => (started.push(i), job.promise)));
    expect(results.slice(0, 9).every((r) => r !== undefined)).toBe(true);
    expect(results[9]).toBeUndefined();
    expect(started).toEqual([0]);
    expect(gate.busy).toEqual({ running: 1, waiting: 8 });
    jobs[0]!.resolve('first');
    expect(await results[0]).toBe('first');
    // A newcomer while the slot is being handed over waits its turn.
    const late = gate.tryRun(async () => 'late');
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    expect(gate.busy).toEqual({ running: 1, waiting: 8 });
    for (const job of jobs.slice(1)) job.resolve('done');
    await Promise.all(results);
    expect(await late).toBe('late');
    expect(gate.busy).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the slot when the work fails', async () => {
    const gate = new WorkGate({ concurrency: 1, queue: 0 });
    await expect(gate.tryRun(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await gate.tryRun(async () => 'ok')).toBe('ok');
  });
});

describe('pre-session tokens', () => {
  it("accepts what it issued, or another node with the same key did, until it expires; refuses forged, altered and other keys' tokens", () => {
    let now = 0;
    const key = randomBytes(32);
    const tokens = new PresessionTokens(key, () => now, 60_000);
    const token = tokens.issue();
    expect(token).toMatch(/^[A-Za-z0-9_-]{22}\.[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    expect(tokens.valid(token)).toBe(true);
    expect(tokens.valid('A'.repeat(43))).toBe(false);
    expect(tokens.valid(undefined)).toBe(false);
    const [nonce, expiry, mac] = token.split('.');
    expect(tokens.valid(`${nonce}.${(parseInt(expiry!, 36) + 1).toString(36)}.${mac}`)).toBe(false);
    expect(tokens.valid(`${'B'.repeat(22)}.${expiry}.${mac}`)).toBe(false);
    expect(new PresessionTokens(randomBytes(32), () => now, 60_000).valid(token)).toBe(false);
    expect(new PresessionTokens(Buffer.from(key), () => now, 60_000).valid(token)).toBe(true);
    now = 60_000;
    expect(tokens.valid(token)).toBe(false);
  });
});

describe('live stream caps', () => {
  it('5 per session, 20 per account, 500 in all', () => {
    expect(LIVE_LIMITS).toEqual({ perSession: 5, perAccount: 20, total: 500 });
    expect(streamRefusal({ session: 4, account: 19, total: 499 }, LIVE_LIMITS)).toBeUndefined();
    expect(streamRefusal({ session: 5, account: 5, total: 5 }, LIVE_LIMITS)).toBe('perSession');
    expect(streamRefusal({ session: 0, account: 20, total: 20 }, LIVE_LIMITS)).toBe('perAccount');
    expect(streamRefusal({ session: 0, account: 0, total: 500 }, LIVE_LIMITS)).toBe('total');
  });
});
