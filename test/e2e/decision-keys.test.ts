// Decision keys (#56) on a real call: `ringhook serve` with its managed Asterisk dials a SIPp phone whose
// audio is the test's (test/helpers/rtp-phone): it says "Hello?", listens until the call's first
// playback (the intro, the keys, the message, "Press 7 for buy, 8 for skip", the prompt) is over, and
// presses keys as RFC 4733 events. A real HTTPS receiver checks every status callback with the
// `standardwebhooks` package. The last test kills serve (kill -9) between the decision's write and
// its delivery: the decision arrives after the restart, once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CallbackReceiver, startCallbackReceiver } from '../helpers/callback-receiver.js';
import { killLeftoverAsterisk } from '../helpers/cluster.js';
import { startAnsweringPhone } from '../helpers/answering-phone.js';
import { playbackEnded, type RtpPhone, type SoundRun, spokenUlaw } from '../helpers/rtp-phone.js';
import { type AlertAccount, serveWithPhones } from '../helpers/serve-with-phones.js';
import { waitFor } from '../helpers/wait.js';
import { runCliJson, startServe } from '../soak/peers.js';

/** A pause longer than any within or between the call's phrases: the playback has ended. */
const QUIET_MS = 1_200;
const FINAL = new Set(['acknowledged', 'completed', 'unconfirmed', 'voicemail', 'failed', 'interrupted', 'no_answer']);
const caDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-decision-ca-'));
const caFile = path.join(caDir, 'receiver-ca.pem');
let receiver: CallbackReceiver;
let hello: Buffer;

// Before serve starts (serveWithPhones' own beforeAll comes next): the receiver's authority is trusted by it.
beforeAll(async () => {
  receiver = await startCallbackReceiver();
  fs.writeFileSync(caFile, receiver.ca);
  hello = spokenUlaw(caDir, 'hello', 'Hello?').samples;
}, 60_000);

const peers = serveWithPhones({
  dataDirPrefix: 'rh-decision-',
  extra: {
    RINGHOOK_RING_TIMEOUT: '20',
    RINGHOOK_CALLBACK_ALLOW: '127.0.0.1/32',
    NODE_EXTRA_CA_CERTS: caFile,
  },
});

afterAll(async () => {
  await receiver?.close();
  killLeftoverAsterisk(peers.dataDir);
  fs.rmSync(caDir, { recursive: true, force: true });
}, 60_000);

/** An account whose callbacks go to the receiver, with the `account set` flags given (--keys, --decision-pin). */
function decisionAccount(phone: string, ...flags: string[]): AlertAccount {
  const account = peers.account(phone);
  const set = runCliJson(['account', 'set', account.user_id, '--callback-url', receiver.url, ...flags], peers.env) as {
    callback_secret: string;
  };
  receiver.secrets.push(set.callback_secret);
  return account;
}

interface CallRow {
  status: string;
  decision_key: string | null;
  decision_label: string | null;
  decision_refused: string | null;
}

/** The call's row and timeline as the store has them (read as a second process would). */
function stored(callId: string): {
  row: CallRow | undefined;
  timeline: Array<{ event: string; detail: string | null }>;
} {
  const db = new Database(path.join(peers.dataDir, 'ringhook.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare('SELECT status, decision_key, decision_label, decision_refused FROM calls WHERE call_id = ?')
      .get(callId) as CallRow | undefined;
    const timeline = db
      .prepare('SELECT event, detail FROM call_events WHERE call_id = ? ORDER BY at, rowid')
      .all(callId) as Array<{ event: string; detail: string | null }>;
    return { row, timeline };
  } finally {
    db.close();
  }
}

/** Waits until the speech heard from `from` on has ended. */
const heard = (rtp: RtpPhone, from: number) => playbackEnded(rtp, from, QUIET_MS, 60_000);

/**
 * A phone that answers (SIPp) with the test's audio (an RTP phone) and the alert that rings it: once
 * its INVITE came, the phone says "Hello?" and listens to the whole first playback (the intro, the
 * keys, the message, the decision keys and the prompt). `stop` hangs the phone up.
 */
async function answeringPhone(account: AlertAccount, body: string | object) {
  const phone = await startAnsweringPhone(peers.trunkPort, { timeoutSec: 150 });
  const { rtp, stop } = phone;
  try {
    const callId = await peers.alert(account, body);
    const media = await phone.media(60_000);
    const answeredAt = Date.now();
    await rtp.play(media, hello);
    await heard(rtp, answeredAt);
    return { callId, rtp, media, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface OnCall {
  callId: string;
  rtp: RtpPhone;
  /** Presses the keys, each after the one before. */
  press(keys: string): Promise<void>;
  /** Waits until what plays from now on has been said. */
  heard(): Promise<SoundRun>;
}

/** An alert to the account, answered (answeringPhone); then `act`. Resolves when the call has ended in the store. */
async function decisionCall(
  account: AlertAccount,
  body: string | object,
  act: (call: OnCall) => Promise<void>,
): Promise<{ callId: string; row: CallRow; timeline: Array<{ event: string; detail: string | null }> }> {
  const { callId, rtp, media, stop } = await answeringPhone(account, body);
  try {
    await act({
      callId,
      rtp,
      press: async (keys) => {
        for (const key of keys) {
          await rtp.digit(media, key);
          await new Promise((r) => setTimeout(r, 250));
        }
      },
      heard: () => heard(rtp, Date.now()),
    });
    await waitFor('the call to end', () => (FINAL.has(stored(callId).row?.status ?? '') ? true : undefined), 90_000);
    const { row, timeline } = stored(callId);
    return { callId, row: row!, timeline };
  } finally {
    await stop();
  }
}

const decisionsOf = (callId: string) =>
  receiver.received.filter((c) => c.type === 'call.decision' && c.data.call_id === callId);

/** Waits for the call's decision, then a moment more: a second one would come now. */
async function oneDecision(callId: string) {
  await waitFor('the call.decision delivered', () => (decisionsOf(callId).length > 0 ? true : undefined), 60_000);
  await new Promise((r) => setTimeout(r, 2_000));
  return decisionsOf(callId);
}

it('7 pressed after "Press 7 for buy, 8 for skip": acknowledged, decision buy, "Buy. Sent." heard, one signed call.decision', async () => {
  const account = decisionAccount('+14155550401', '--keys', '7=buy,8=skip');
  let sent: SoundRun | undefined;
  const { callId, row, timeline } = await decisionCall(
    account,
    { message: 'BTC broke 100k', ticker: 'BTCUSD', action: 'buy' },
    async (call) => {
      const at = Date.now();
      await call.press('7');
      sent = await heard(call.rtp, at);
    },
  );
  expect(row).toMatchObject({
    status: 'acknowledged',
    decision_key: '7',
    decision_label: 'buy',
    decision_refused: null,
  });
  expect(timeline.map((e) => e.detail)).toContain('decision: buy (7)');
  expect(timeline).toContainEqual({ event: 'digit', detail: '7: decision buy' });
  // "Buy. Sent.": a short phrase (a second or so), then the line hung up.
  expect(sent!.end - sent!.start).toBeLessThan(4_000);
  const got = await oneDecision(callId);
  expect(got).toHaveLength(1);
  expect(got[0]!.verifiedBy).toHaveLength(1);
  expect(got[0]!.answered).toBe(200);
  expect(got[0]!.data).toMatchObject({ call_id: callId, key: '7', label: 'buy', ticker: 'BTCUSD', action: 'buy' });
  expect(typeof got[0]!.data.decided_at).toBe('string');
}, 180_000);

it('with a PIN: the right PIN sends the decision; a wrong one three times sends nothing ("decision refused: wrong PIN"), and no PIN is on the timeline', async () => {
  const account = decisionAccount('+14155550402', '--keys', '7=buy,8=skip', '--decision-pin', '4821');
  const right = await decisionCall(account, 'ETH broke 5k', async (call) => {
    await call.press('7');
    await call.heard(); // "Enter your PIN, then hash."
    await call.press('4821#');
    await call.heard(); // "Buy. Sent."
  });
  expect(right.row).toMatchObject({ status: 'acknowledged', decision_key: '7', decision_label: 'buy' });
  expect(await oneDecision(right.callId)).toHaveLength(1);

  const wrong = await decisionCall(account, 'SOL broke 300', async (call) => {
    await call.press('8');
    await call.heard(); // "Enter your PIN, then hash."
    for (let i = 0; i < 3; i++) {
      await call.press('1111#');
      await call.heard(); // "Wrong PIN. Try again." (the last: "… Nothing was sent. Goodbye.")
    }
  });
  expect(wrong.row).toMatchObject({ decision_key: null, decision_label: null, decision_refused: 'wrong PIN' });
  expect(wrong.row.status).not.toBe('acknowledged');
  expect(wrong.timeline.map((e) => e.detail)).toContain('decision refused: wrong PIN');
  for (const { timeline } of [right, wrong])
    for (const { detail } of timeline) expect(detail ?? '').not.toMatch(/4821|1111/);
  await new Promise((r) => setTimeout(r, 3_000));
  expect(decisionsOf(wrong.callId)).toEqual([]);
}, 240_000);

it("an alert's own keys override the account's: its 7 is no decision, its 9 is", async () => {
  const account = decisionAccount('+14155550403', '--keys', '7=buy,8=skip');
  const { callId, row, timeline } = await decisionCall(
    account,
    { message: 'NVDA crossed 140', keys: { '9': 'sell half' } },
    async (call) => {
      await call.press('7');
      await new Promise((r) => setTimeout(r, 1_000));
      await call.press('9');
      await call.heard();
    },
  );
  expect(row).toMatchObject({ status: 'acknowledged', decision_key: '9', decision_label: 'sell half' });
  expect(timeline.filter((e) => e.event === 'digit').map((e) => e.detail)).toEqual([
    '7: ignored (no such key)',
    '9: decision sell half',
  ]);
  const got = await oneDecision(callId);
  expect(got.map((c) => c.data.label)).toEqual(['sell half']);
}, 180_000);

it('kill -9 of serve right after the key, before delivery: the decision is delivered after the restart, once', async () => {
  const account = decisionAccount('+14155550404', '--keys', '7=buy,8=skip');
  // Each recorded step is told of (and so delivered) 4 s after its write: the kill lands in between.
  await peers.serve!.stop();
  peers.serve = await startServe({ ...peers.env, RINGHOOK_TEST_FAULT_PAUSE_AFTER_STEP_MS: '4000' });
  const { callId, media, rtp, stop } = await answeringPhone(account, 'AAPL broke 250');
  try {
    await rtp.digit(media, '7');
    const decided = () => (stored(callId).row?.decision_key === '7' ? true : undefined);
    await waitFor('the decision in the store', decided, 30_000, 20);
    expect(await peers.serve!.stop('SIGKILL')).toBeNull();
  } finally {
    await stop();
  }
  const atKill = decisionsOf(callId).length;
  killLeftoverAsterisk(peers.dataDir);
  peers.serve = await startServe(peers.env);
  const got = await oneDecision(callId);
  console.log(`figures: kill -9 after the decision's write: delivered before the kill ${atKill}, after ${got.length}`);
  expect(atKill).toBe(0);
  expect(got).toHaveLength(1);
  expect(got[0]!.data).toMatchObject({ call_id: callId, key: '7', label: 'buy' });
  expect(stored(callId).row).toMatchObject({ status: 'acknowledged', decision_key: '7' });
}, 240_000);
