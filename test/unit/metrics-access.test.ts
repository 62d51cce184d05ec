// Who may read /metrics (core/server/metrics-access.ts). Pure.
import { expect, it } from 'vitest';
import { isLoopbackAddress, metricsAllowed } from '../../src/core/server/metrics-access.js';

const request = (client: string, extra: Partial<Parameters<typeof metricsAllowed>[0]> = {}) =>
  metricsAllowed({ tokenSet: false, tokenGiven: false, client, forwardedByUntrusted: false, ...extra });

it('without a token: this machine only, never a request an untrusted proxy forwarded', () => {
  for (const local of ['127.0.0.1', '127.8.0.1', '::1', '::ffff:127.0.0.1']) expect(request(local), local).toBe(true);
  for (const other of ['198.51.100.7', '10.0.0.2', '::ffff:203.0.113.9', '2001:db8::1', ''])
    expect(request(other), other).toBe(false);
  expect(request('127.0.0.1', { forwardedByUntrusted: true })).toBe(false);
  expect(isLoopbackAddress('127.0.0.1.example')).toBe(false);
});

it('with a token: whoever gives it, from anywhere, and nobody without it', () => {
  expect(request('198.51.100.7', { tokenSet: true, tokenGiven: true })).toBe(true);
  expect(request('127.0.0.1', { tokenSet: true, tokenGiven: false })).toBe(false);
});
