// The SMS backup's bookkeeping on a real SQLite file. The sender here is a stand-in (named so):
// it produces, on purpose, a timing a real SMSC produces only sometimes — the delivery receipt
// arriving before the answer to our submit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SqliteAccountStore } from '../../src/store/sqlite/accounts.js';
import { testSecrets } from '../helpers/secrets.js';
import { SqliteCallProgressStore } from '../../src/store/sqlite/progress.js';
import { SqliteSmsStore } from '../../src/store/sqlite/sms.js';
import { SqliteCallStore } from '../../src/store/sqlite/calls.js';
import { openDatabase } from '../../src/store/sqlite/connect.js';
import { SqliteCallWrites } from '../../src/store/sqlite/writes.js';
import { CallEvents } from '../../src/core/calls/call-events.js';
import { silentLogger } from '../../src/lib/log.js';
import type { FinalState } from '../../src/core/calls/call-state.js';
import type { FinalCall } from '../../src/calls/index.js';
import { SmsBackup } from '../../src/sms/backup.js';
import type { DeliveryReport, SmsRequest, SmsResult, SmsSender } from '../../src/sms/types.js';
import { createAccount } from '../helpers/accounts.js';

function standInSender(
  behaviour: (req: SmsRequest, report: (r: DeliveryReport) => void) => Promise<SmsResult>,
): SmsSender & { sent: SmsRequest[] } {
  const listeners = new Set<(r: DeliveryReport) => void>();
  const sent: SmsRequest[] = [];
  return {
    kind: 'standin',
    sent,
    send: (req) => {
      sent.push(req);
      return behaviour(req, (r) => listeners.forEach((l) => l(r)));
    },
    check: async () => ({ ok: true, detail: 'stand-in' }),
    close: async () => {},
    onDeliveryReport: (cb) => {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
  };
}

function setup(sender: SmsSender, smsBackup = true, retry: { retryWindowMs?: number; retryFirstMs?: number } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-smsbackup-'));
  const db = openDatabase(path.join(dir, 'ringhook.db'), { sync: 'normal' });
  const accounts = new SqliteAccountStore(db, testSecrets());
  const calls = new SqliteCallStore(db);
  const progress = new SqliteCallProgressStore(db);
  const sms = new SqliteSmsStore(db);
  const account = createAccount(accounts, { smsBackup });
  const accepted = calls.acceptNow(account.userId, 'premium', {
    form: 'text',
    message: 'AAPL up',
    truncated: false,
    originalLength: 7,
    fields: {},
    extra: {},
  });
  if (!accepted.accepted) throw new Error('not accepted');
  progress.transition(accepted.callId, 'dialing');
  progress.transition(accepted.callId, 'busy');
  // A process on this database: the first one, or the next after a stop or a crash.
  const start = (with_: SmsSender, retry_ = retry) =>
    new SmsBackup({
      sender: with_,
      store: { sms, writes: new SqliteCallWrites(db, silentLogger), accounts },
      events: new CallEvents(),
      logger: silentLogger,
      now: Date.now,
      ...retry_,
    });
  const backup = start(sender);
  const final = (state: FinalState, phone: string | null = account.phone): FinalCall => ({
    callId: accepted.callId,
    userId: account.userId,
    message: 'AAPL up',
    phone,
    state,
    carried: [],
  });
  return { db, calls, accounts, account, backup, start, progress, sms, callId: accepted.callId, final };
}

describe('SmsBackup', () => {
  it('matches a delivery receipt that arrives before the gateway answered the submit', async () => {
    const sender = standInSender(async (_req, report) => {
      report({ messageId: 'm-1', status: 'delivered', detail: 'DELIVRD' });
      return { status: 'sent', messageId: 'm-1', parts: 1 };
    });
    const { backup, progress, callId, final } = setup(sender);
    backup.afterFinal(final('busy'));
    await backup.drain();
    // The receipt is written after the submit's result, in a commit of its own.
    await vi.waitFor(() => expect(progress.get(callId)!.smsStatus).toBe('delivered'));
  });

  it('a receipt settles a sent SMS once: a replayed or reordered one changes nothing, nor does one for an id the SMSC used before for another account', async () => {
    let report!: (r: DeliveryReport) => void;
    const sender = standInSender(async (_req, send) => {
      report = send;
      return { status: 'sent', messageId: 'm-42', parts: 1 };
    });
    const { db, calls, accounts, backup, progress, callId, final } = setup(sender);
    // Another account's SMS of an hour ago got the same id from the SMSC (it restarted since), and no receipt.
    const other = createAccount(accounts, { smsBackup: true });
    const older = calls.acceptNow(other.userId, 'premium', {
      form: 'text',
      message: 'old',
      truncated: false,
      originalLength: 3,
      fields: {},
      extra: {},
    });
    if (!older.accepted) throw new Error('not accepted');
    db.prepare(
      "UPDATE calls SET status = 'busy', sms_status = 'sent', sms_message_id = 'm-42', sms_at = ? WHERE call_id = ?",
    ).run(Date.now() - 3_600_000, older.callId);

    backup.afterFinal(final('busy'));
    // Not drained: drain() is the shutdown, which stops taking receipts.
    await vi.waitFor(() => expect(progress.get(callId)!.smsStatus).toBe('sent'));
    report({ messageId: 'm-42', status: 'delivered', detail: 'DELIVRD' });
    await vi.waitFor(() => expect(progress.get(callId)!.smsStatus).toBe('delivered'));
    report({ messageId: 'm-42', status: 'failed', detail: 'UNDELIV' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(progress.get(callId)!.smsStatus).toBe('delivered');
    expect(progress.get(older.callId)!.smsStatus).toBe('sent');
  });

  it('an SMS the gateway certainly did not take is tried again within the window, and sent once, `sending` at every try', async () => {
    let tries = 0;
    const statusAtTry: Array<string | null> = [];
    let progressOf!: ReturnType<typeof setup>['progress'];
    let id!: string;
    const sender = standInSender(async () => {
      statusAtTry.push(progressOf.get(id)!.smsStatus);
      return ++tries < 3
        ? { status: 'failed', error: 'connect ECONNREFUSED', notSent: true }
        : { status: 'sent', messageId: 'm-7', parts: 1 };
    });
    const { backup, progress, callId, final } = setup(sender, true, { retryWindowMs: 5_000, retryFirstMs: 20 });
    [progressOf, id] = [progress, callId];
    backup.afterFinal(final('busy'));
    await vi.waitFor(() => expect(progress.get(callId)!.smsStatus).toBe('sent'));
    expect(sender.sent).toHaveLength(3);
    // A crash during any try leaves it `sending`, which is never sent again.
    expect(statusAtTry).toEqual(['sending', 'sending', 'sending']);
    expect(progress.timeline(callId).filter((e) => e.event === 'sms_waiting')).toHaveLength(2);
  });

  it('a waiting SMS the store fails to take back (a fault a real database gives rarely: a stand-in, named so) is tried again after the pause', async () => {
    let tries = 0;
    const sender = standInSender(async () =>
      ++tries < 2
        ? { status: 'failed', error: 'connect ECONNREFUSED', notSent: true }
        : { status: 'sent', messageId: 'm-8', parts: 1 },
    );
    const t = setup(sender, true, { retryWindowMs: 5_000, retryFirstMs: 20 });
    const resumeSms = t.sms.resumeSms.bind(t.sms);
    let faults = 1;
    t.sms.resumeSms = (ids) => {
      if (faults-- > 0) throw new Error('disk I/O error');
      return resumeSms(ids);
    };
    t.backup.afterFinal(t.final('busy'));
    await vi.waitFor(() => expect(t.progress.get(t.callId)!.smsStatus).toBe('sent'));
    expect(sender.sent).toHaveLength(2);
  });

  it("an ended call's SMS decided after a restart keeps the window of its end: it is not tried on past it", async () => {
    const down = standInSender(async () => ({ status: 'failed', error: 'connect ECONNREFUSED', notSent: true }));
    const t = setup(down, true, { retryWindowMs: 60_000, retryFirstMs: 20 });
    // Ended 59.7 s ago, its SMS undecided: 0.3 s of its window is left.
    t.db.prepare('UPDATE calls SET updated_at = ? WHERE call_id = ?').run(Date.now() - 59_700, t.callId);
    const next = t.start(down);
    await next.recover();
    await vi.waitFor(() => expect(t.progress.get(t.callId)!.smsStatus).toBe('failed'), { timeout: 3_000 });
    expect(down.sent.length).toBeGreaterThanOrEqual(1);
  });

  it('one the gateway may have taken is never tried again', async () => {
    const unsure = standInSender(async () => ({
      status: 'failed',
      error: 'no answer within 10 s (the gateway may have taken the message)',
    }));
    const a = setup(unsure, true, { retryWindowMs: 5_000, retryFirstMs: 20 });
    a.backup.afterFinal(a.final('busy'));
    await vi.waitFor(() => expect(a.progress.get(a.callId)!.smsStatus).toBe('failed'));
    expect(unsure.sent).toHaveLength(1);
  });

  it('one still waiting at a stop stays waiting, and the next start sends it once, as `sending` while it is handed over', async () => {
    const down = standInSender(async () => ({ status: 'failed', error: 'connect ECONNREFUSED', notSent: true }));
    const b = setup(down, true, { retryWindowMs: 60_000, retryFirstMs: 10_000 });
    b.backup.afterFinal(b.final('busy'));
    await vi.waitFor(() => expect(b.progress.get(b.callId)!.smsStatus).toBe('waiting'));
    await b.backup.drain();
    expect(b.calls.get(b.callId)).toMatchObject({ smsStatus: 'waiting', smsError: 'connect ECONNREFUSED' });
    expect(down.sent).toHaveLength(1);

    const statusWhenSent: Array<string | null> = [];
    const up = standInSender(async () => {
      statusWhenSent.push(b.progress.get(b.callId)!.smsStatus);
      return { status: 'sent', messageId: 'm-9', parts: 1 };
    });
    const next = b.start(up);
    await next.recover();
    await next.drain();
    expect(up.sent).toEqual([{ to: '+14155550123', text: 'Missed call alert: AAPL up', reference: b.callId }]);
    expect(statusWhenSent).toEqual(['sending']);
    expect(b.progress.get(b.callId)!.smsStatus).toBe('sent');
    // A third start finds nothing to send.
    const third = b.start(up);
    await third.recover();
    await third.drain();
    expect(up.sent).toHaveLength(1);
  });

  it('a cut message left waiting at a stop is sent at the next start ending with "...", as its SMS at the call’s end would have (#57)', async () => {
    const down = standInSender(async () => ({ status: 'failed', error: 'connect ECONNREFUSED', notSent: true }));
    const b = setup(down, true, { retryWindowMs: 60_000, retryFirstMs: 10_000 });
    b.db.prepare('UPDATE calls SET message_truncated = 1 WHERE call_id = ?').run(b.callId);
    b.backup.afterFinal({ ...b.final('busy'), message: 'AAPL up...' });
    await vi.waitFor(() => expect(b.progress.get(b.callId)!.smsStatus).toBe('waiting'));
    await b.backup.drain();
    const up = standInSender(async () => ({ status: 'sent', messageId: 'm-10', parts: 1 }));
    const next = b.start(up);
    await next.recover();
    await next.drain();
    expect(up.sent).toEqual([{ to: '+14155550123', text: 'Missed call alert: AAPL up...', reference: b.callId }]);
  });

  it('at start: an SMS a crash left being handed over ends failed, unsent; one left waiting past its window ends failed, unsent', async () => {
    const up = standInSender(async () => ({ status: 'sent', messageId: 'm-3', parts: 1 }));
    const crashed = setup(up, true, { retryWindowMs: 60_000 });
    crashed.sms.claimSms(crashed.callId);
    const late = setup(up, true, { retryWindowMs: 60_000 });
    late.sms.claimSms(late.callId);
    late.sms.smsWaits([late.callId], 'connect ECONNREFUSED');
    late.db.prepare('UPDATE calls SET sms_at = sms_at - 61000 WHERE call_id = ?').run(late.callId);

    for (const t of [crashed, late]) {
      const next = t.start(up);
      await next.recover();
      await next.drain();
    }
    expect(up.sent).toHaveLength(0);
    expect(crashed.calls.get(crashed.callId)).toMatchObject({
      smsStatus: 'failed',
      smsError: expect.stringMatching(/not sent again, to avoid a duplicate/),
    });
    expect(late.calls.get(late.callId)).toMatchObject({
      smsStatus: 'failed',
      smsError: expect.stringMatching(/within RINGHOOK_CALL_FRESHNESS; not sent late/),
    });
  });

  it('at start: a call that ended within the window with its SMS never decided (a stop between the two writes) is decided now, once; an older one is left alone', async () => {
    const up = standInSender(async () => ({ status: 'sent', messageId: 'm-4', parts: 1 }));
    // setup() leaves the call busy with no SMS decision, as a process stopped right after the end's write.
    const missed = setup(up, true, { retryWindowMs: 60_000 });
    const heard = setup(up, true, { retryWindowMs: 60_000 });
    heard.db.prepare("UPDATE calls SET status = 'completed' WHERE call_id = ?").run(heard.callId);
    const old = setup(up, true, { retryWindowMs: 60_000 });
    old.db.prepare('UPDATE calls SET updated_at = updated_at - 61000 WHERE call_id = ?').run(old.callId);

    for (const t of [missed, heard, old]) {
      for (let start = 0; start < 2; start++) {
        const next = t.start(up);
        await next.recover();
        await next.drain();
      }
    }
    expect(up.sent).toEqual([{ to: '+14155550123', text: 'Missed call alert: AAPL up', reference: missed.callId }]);
    expect(missed.progress.get(missed.callId)!.smsStatus).toBe('sent');
    expect(heard.progress.get(heard.callId)!.smsStatus).toBe('not_needed');
    expect(old.progress.get(old.callId)!.smsStatus).toBeNull();
  });

  it('an SMS waiting for the gateway is not sent once the owner turned SMS backup off meanwhile', async () => {
    const up = standInSender(async () => ({ status: 'sent', messageId: 'm-6', parts: 1 }));
    const t = setup(up, true, { retryWindowMs: 60_000 });
    t.sms.claimSms(t.callId);
    t.sms.smsWaits([t.callId], 'connect ECONNREFUSED');
    t.accounts.update(t.account.userId, { smsBackup: false });
    const next = t.start(up);
    await next.recover();
    await next.drain();
    expect(up.sent).toEqual([]);
    expect(t.calls.get(t.callId)).toMatchObject({
      smsStatus: 'failed',
      smsError: expect.stringMatching(/SMS backup was turned off/),
    });
  });

  it("a merged call's SMS left waiting goes out as the one SMS it was, carrier first, to the number called", async () => {
    const up = standInSender(async () => ({ status: 'sent', messageId: 'm-5', parts: 1 }));
    const t = setup(up, true, { retryWindowMs: 60_000 });
    // The carrier is the newer row here: the order comes from who carried whom, not from the ids.
    const carrier = t.calls.acceptNow(t.account.userId, 'premium', {
      form: 'text',
      message: 'MSFT down',
      truncated: false,
      originalLength: 9,
      fields: {},
      extra: {},
    });
    if (!carrier.accepted) throw new Error('not accepted');
    t.db.prepare("UPDATE calls SET status = 'busy', phone = '+14155550999' WHERE call_id = ?").run(carrier.callId);
    t.db.prepare('UPDATE calls SET carried_by = ? WHERE call_id = ?').run(carrier.callId, t.callId);
    for (const id of [carrier.callId, t.callId]) t.sms.claimSms(id);
    expect(t.sms.smsWaits([carrier.callId, t.callId], 'connect ECONNREFUSED')).toBe(true);
    // All or nothing: neither is still being handed over, so neither changes.
    t.sms.resumeSms([t.callId]);
    expect(t.sms.smsWaits([carrier.callId, t.callId], 'again')).toBe(false);
    expect(t.progress.get(carrier.callId)!.smsStatus).toBe('waiting');
    expect(t.sms.resumeSms([carrier.callId, t.callId])).toBe(false);
    expect(t.progress.get(t.callId)!.smsStatus).toBe('sending');
    t.db.prepare("UPDATE calls SET sms_status = 'waiting' WHERE call_id = ?").run(t.callId);

    const next = t.start(up);
    await next.recover();
    await next.drain();
    expect(up.sent).toEqual([
      { to: '+14155550999', text: 'Missed call, 2 alerts: 1) MSFT down 2) AAPL up', reference: carrier.callId },
    ]);
    expect([t.progress.get(carrier.callId)!.smsStatus, t.progress.get(t.callId)!.smsStatus]).toEqual(['sent', 'sent']);
  });

  it('sends once however often the final state is reported, with the "Missed call alert" text', async () => {
    const sender = standInSender(async () => ({ status: 'sent', messageId: 'm-2', parts: 1 }));
    const { backup, progress, callId, final } = setup(sender);
    backup.afterFinal(final('busy'));
    backup.afterFinal(final('busy'));
    await backup.drain();
    expect(sender.sent).toEqual([{ to: '+14155550123', text: 'Missed call alert: AAPL up', reference: callId }]);
    expect(progress.get(callId)!.smsStatus).toBe('sent');
  });

  it('records a refused SMS as failed and never sends it again', async () => {
    const sender = standInSender(async () => ({ status: 'failed', error: 'Kannel answered 403' }));
    const { backup, progress, callId, final } = setup(sender);
    backup.afterFinal(final('busy'));
    await backup.drain();
    backup.afterFinal(final('busy'));
    await backup.drain();
    expect(sender.sent).toHaveLength(1);
    expect(progress.get(callId)!.smsStatus).toBe('failed');
  });

  it('sends nothing when the account has SMS backup off, or the call was answered', async () => {
    const sender = standInSender(async () => ({ status: 'sent', messageId: 'x', parts: 1 }));
    const off = setup(sender, false);
    off.backup.afterFinal(off.final('busy'));
    await off.backup.drain();
    expect(off.progress.get(off.callId)!.smsStatus).toBe('disabled');
    const answered = setup(sender);
    answered.backup.afterFinal(answered.final('completed'));
    await answered.backup.drain();
    expect(answered.progress.get(answered.callId)!.smsStatus).toBe('not_needed');
    expect(sender.sent).toHaveLength(0);
  });
});
