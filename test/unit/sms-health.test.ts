// The SMS gateway's health as /healthz reports it. The sender is a stand-in (named so): it
// counts the checks and can hang, which is what caching and the time bound are about.
import { describe, expect, it } from 'vitest';
import { SmsHealth } from '../../src/sms/health.js';
import type { SmsCheck, SmsSender } from '../../src/sms/types.js';

function standInSender(answer: () => Promise<SmsCheck>, kind = 'smpp'): SmsSender & { checks: number } {
  const sender = {
    kind,
    checks: 0,
    send: async () => ({ status: 'failed' as const, error: 'not used' }),
    check: () => {
      sender.checks++;
      return answer();
    },
    close: async () => {},
    onDeliveryReport: () => () => {},
  };
  return sender as unknown as SmsSender & { checks: number };
}

describe('SmsHealth', () => {
  it('checks once per max age however often it is asked, and asks again after', async () => {
    const sender = standInSender(async () => ({ ok: true, detail: 'bound' }));
    let now = 1_000;
    const health = new SmsHealth(sender, { maxAgeMs: 50, now: () => now });
    const answers = await Promise.all([health.current(), health.current(), health.current()]);
    expect(answers.map((a) => a.state)).toEqual(['ok', 'ok', 'ok']);
    expect(sender.checks).toBe(1);
    now += 50;
    await health.current();
    expect(sender.checks).toBe(1);
    now += 1;
    await health.current();
    expect(sender.checks).toBe(2);
  });

  it('a gateway that does not answer the check is down after the time bound', async () => {
    const sender = standInSender(() => new Promise<SmsCheck>(() => {}));
    const health = new SmsHealth(sender, { timeoutMs: 50 });
    expect(await health.current()).toEqual({
      state: 'down',
      detail: 'no answer from the gateway within 50 ms',
      at: expect.any(Number),
    });
  });

  it('a failed check is down with its reason; a message the gateway accepts makes it ok at once', async () => {
    const sender = standInSender(async () => ({ ok: false, detail: 'connect ECONNREFUSED 127.0.0.1:2775' }));
    const health = new SmsHealth(sender);
    expect(await health.current()).toMatchObject({ state: 'down', detail: 'connect ECONNREFUSED 127.0.0.1:2775' });
    health.noteAccepted();
    expect(await health.current()).toMatchObject({ state: 'ok' });
    expect(sender.checks).toBe(1);
  });

  it('is off when SMS backup is off, without checking', async () => {
    const sender = standInSender(async () => ({ ok: true, detail: '' }), 'none');
    expect((await new SmsHealth(sender).current()).state).toBe('off');
    expect(sender.checks).toBe(0);
  });
});
