// The backup trunk against the managed Asterisk and two SIPp providers: a call the first provider
// refuses before ringing goes out once through the second; a call that rang is never sent again.
// INVITEs are counted at each provider from SIPp's message log.
import { expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { useCallingService } from '../helpers/calling-service.js';
import { freeUdpPort } from '../helpers/ports.js';
import { callEnded } from '../helpers/service.js';
import { sipDialogs } from '../helpers/sip-trace.js';
import { startSipp } from '../helpers/sipp.js';

const PHONE = '+14155550123';
let backupPort: number;
const service = useCallingService(async () => {
  backupPort = await freeUdpPort();
  return { RINGHOOK_TRUNK2_URI: `sip:127.0.0.1:${backupPort}` };
});

async function alert(message: string): Promise<string> {
  const a = await createAccount(service.get().t.service.stores.accounts, { phone: PHONE, requireConfirm: false });
  const res = await service.get().t.post(`/webhook/${a.userId}/${a.apiKey}`, message, { 'content-type': 'text/plain' });
  expect(res.status, res.text).toBe(200);
  return res.json.call_id as string;
}

const timeline = (callId: string) =>
  service
    .get()
    .progress.timeline(callId)
    .map((e) => e.event);

it("the first provider refuses with 503 before any ring: the call goes out once through trunk2, and its outcome is the second provider's", async () => {
  const first = await startSipp({
    scenario: 'provider-503',
    port: service.get().trunkPort,
    calls: 1,
    timeoutSec: 30,
    traceMessages: true,
  });
  const second = await startSipp({ scenario: 'busy', port: backupPort, calls: 1, timeoutSec: 30, traceMessages: true });
  const callId = await alert('ES1! above 6000');
  const row = await service.get().t.waitForCall(callId, callEnded, 20_000);
  const atFirst = sipDialogs((await first.stop()).messages);
  const atSecond = sipDialogs((await second.stop()).messages);
  expect(row).toMatchObject({ status: 'busy', trunk: 'trunk2', sip_code: 486, channel_id: `rh-${callId}-b` });
  expect(atFirst.map((d) => d.to)).toEqual([PHONE]);
  expect(atSecond.map((d) => d.to)).toEqual([PHONE]);
  expect(timeline(callId)).toEqual(['dialing', 'trunk', 'ringing', 'busy']);
});

it.each([
  ['180 Ringing', 'service-unavailable', 'rings, then the provider fails'],
  [
    '183 Session Progress only (early media, as many mobile networks ring)',
    'progress-then-503',
    'early media, then the network fails',
  ],
] as const)(
  'a call that rang at the first provider (%s) and then failed is not sent to the second',
  async (_rang, scenario, message) => {
    const first = await startSipp({
      scenario,
      port: service.get().trunkPort,
      calls: 1,
      timeoutSec: 30,
      traceMessages: true,
    });
    const second = await startSipp({
      scenario: 'busy',
      port: backupPort,
      calls: 1,
      timeoutSec: 30,
      traceMessages: true,
    });
    const callId = await alert(message);
    const row = await service.get().t.waitForCall(callId, callEnded, 20_000);
    const atFirst = sipDialogs((await first.stop()).messages);
    const atSecond = sipDialogs((await second.stop()).messages);
    expect(row).toMatchObject({ status: 'unreachable', trunk: 'trunk', sip_code: 503 });
    expect(atFirst).toHaveLength(1);
    expect(atSecond).toEqual([]);
    expect(timeline(callId)).toEqual(['dialing', 'ringing', 'unreachable']);
  },
);
