// The provider's pace and the channel cap, counted at the phone (SIPp's message log): never more
// INVITEs in a one-second window than RINGHOOK_TRUNK_CPS, never more calls up than
// RINGHOOK_MAX_CALLS, the oldest alert dialed first.
import { expect, it } from 'vitest';
import type { Account } from '../../src/core/account.js';
import { useCallingService } from '../helpers/calling-service.js';
import { callEnded } from '../helpers/service.js';
import { mostAtOnce, sipDialogs, type Dialog } from '../helpers/sip-trace.js';
import { startSipp } from '../helpers/sipp.js';
import { createAccount } from '../helpers/accounts.js';

const CPS = 4;
const MAX_CALLS = 3;
const service = useCallingService({ RINGHOOK_TRUNK_CPS: String(CPS), RINGHOOK_MAX_CALLS: String(MAX_CALLS) });

/** One account a phone, so that one line per phone holds nothing back. */
async function accounts(n: number, base: number): Promise<Account[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      createAccount(service.get().t.service.stores.accounts, { phone: `+1415555${String(base + i).padStart(4, '0')}` }),
    ),
  );
}

async function alertAll(list: Account[]): Promise<string[]> {
  const ids: string[] = [];
  for (const a of list) {
    const res = await service
      .get()
      .t.post(`/webhook/${a.userId}/${a.apiKey}`, `alert for ${a.phone}`, { 'content-type': 'text/plain' });
    expect(res.status, res.text).toBe(200);
    ids.push(res.json.call_id as string);
  }
  return ids;
}

/**
 * ringhook asked Asterisk for the calls in the order the alerts came (their dialing times), and the
 * phone got each once. The INVITEs of calls asked for within the same moment may reach the phone in
 * another order: Asterisk takes concurrent requests on several threads.
 */
function expectOldestFirst(ids: string[], dialogs: readonly Dialog[], list: Account[]): void {
  const dialedAt = ids.map((id) => service.get().progress.get(id)!.dialedAt!);
  expect(dialedAt).toEqual([...dialedAt].sort((a, b) => a - b));
  expect(dialogs.map((d) => d.to).sort()).toEqual(list.map((a) => a.phone).sort());
}

/** The most INVITEs in any one-second window. */
const mostInOneSecond = (dialogs: readonly Dialog[]) =>
  Math.max(
    ...dialogs.map((d) => dialogs.filter((e) => e.startedAt >= d.startedAt && e.startedAt < d.startedAt + 1000).length),
  );

it('a burst of short calls starts at the provider pace, oldest first', async () => {
  const list = await accounts(12, 200);
  const phone = await startSipp({
    scenario: 'busy',
    port: service.get().trunkPort,
    calls: list.length,
    timeoutSec: 60,
    traceMessages: true,
  });
  const ids = await alertAll(list);
  for (const id of ids) await service.get().t.waitForCall(id, callEnded, 30_000);
  const dialogs = sipDialogs((await phone.done).messages);
  expect(dialogs).toHaveLength(12);
  expect(mostInOneSecond(dialogs)).toBeLessThanOrEqual(CPS);
  // 12 calls at 4 a second: the last cannot start before 2 s after the first.
  expect(dialogs.at(-1)!.startedAt - dialogs[0]!.startedAt).toBeGreaterThanOrEqual(2000);
  expectOldestFirst(ids, dialogs, list);
}, 60_000);

it('long calls never hold more lines than the cap; the next waits for a line', async () => {
  const list = await accounts(6, 300);
  // Rings until ringhook gives up (the calling service's 5 s ring timeout): each call holds its line 5 s.
  const phone = await startSipp({
    scenario: 'ring-forever',
    port: service.get().trunkPort,
    calls: list.length,
    timeoutSec: 60,
    traceMessages: true,
  });
  const ids = await alertAll(list);
  for (const id of ids) await service.get().t.waitForCall(id, callEnded, 40_000);
  const dialogs = sipDialogs((await phone.stop()).messages);
  expect(dialogs).toHaveLength(6);
  if (mostAtOnce(dialogs) > MAX_CALLS) {
    // What the phone saw and what ringhook recorded, to tell a line freed too early from a late CANCEL.
    const at = (ms: number | undefined) => (ms === undefined ? '-' : new Date(ms).toISOString().slice(17, 23));
    for (const d of dialogs) console.log(`phone: ${d.to} INVITE ${at(d.startedAt)}, ended ${at(d.endedAt)}`);
    for (const id of ids)
      console.log(
        `ringhook: ${service
          .get()
          .progress.timeline(id)
          .map((e) => `${e.event} ${at(e.at)}`)
          .join(', ')}`,
      );
  }
  expect(mostAtOnce(dialogs)).toBe(MAX_CALLS);
  expectOldestFirst(ids, dialogs, list);
}, 60_000);
