// One alert's call to a SIPp phone whose audio is the test's (test/helpers/rtp-phone): SIPp answers,
// the test's `speak` sends what the phone says once the call is answered, and the call is followed
// to its end and its SMS. Used by the tests of answering-machine detection (voicemail, silence
// suppression).
import { expect } from 'vitest';
import type { Account } from '../../src/core/account.js';
import { createAccount } from './accounts.js';
import type { CallingService } from './calling-service.js';
import { startAnsweringPhone } from './answering-phone.js';
import type { RtpPhone } from './rtp-phone.js';
import { smsSettled, type CallRow } from './service.js';
import { waitFor } from './wait.js';

export const PHONE = '+14155550123';

export interface Answered {
  callId: string;
  /** When the test saw the call answered (a few ms after the phone's 200 OK). */
  answeredAt: number;
  rtp: RtpPhone;
  media: { host: string; port: number };
}

export interface AnsweredCall {
  row: CallRow;
  rtp: RtpPhone;
  sms: string[];
  /** The phrases heard, from the call's timeline (for failure messages). */
  talk: string | undefined;
}

/**
 * An alert to an account; SIPp answers (scenario `answer`, or `answer-cn`: its SDP offers comfort
 * noise too), and `speak` runs once the call is answered.
 */
export async function callAnswered(
  calling: CallingService,
  requireConfirm: boolean,
  message: string,
  speak: (call: Answered) => Promise<unknown>,
  scenario: 'answer' | 'answer-cn' = 'answer',
  /** Settings of the account made before its alert is posted (decision keys, a callback URL). */
  prepare?: (account: Account) => Promise<void>,
): Promise<AnsweredCall> {
  const a: Account = await createAccount(calling.t.service.stores.accounts, {
    phone: PHONE,
    smsBackup: true,
    requireConfirm,
  });
  await prepare?.(a);
  const phone = await startAnsweringPhone(calling.trunkPort, { scenario });
  const { rtp } = phone;
  const smsBefore = calling.kannel.messages().length;
  try {
    const res = await calling.t.post(`/webhook/${a.userId}/${a.apiKey}`, message, { 'content-type': 'text/plain' });
    expect(res.status, res.text).toBe(200);
    const callId = res.json.call_id as string;
    const media = await phone.media();
    await waitFor(
      'the call to be answered',
      () => (calling.progress.get(callId)?.status === 'answered' ? true : undefined),
      20_000,
      10,
    );
    const speaking = speak({ callId, answeredAt: Date.now(), rtp, media });
    const row = await calling.t.waitForCall(callId, smsSettled, 90_000);
    rtp.hush();
    await speaking;
    // Handed to Kannel is not yet printed by its fake SMSC (it delivers in batches, ~2 s later).
    if (row.sms_status === 'sent') await calling.kannel.waitForMessages(smsBefore + 1);
    const talk = calling.progress.timeline(callId).find((e) => e.event === 'talk')?.detail ?? undefined;
    return {
      row,
      rtp,
      talk,
      sms: calling.kannel
        .messages()
        .slice(smsBefore)
        .map((m) => String(m.text)),
    };
  } finally {
    await phone.stop();
  }
}

/**
 * When the service last made speech (its engine's debug line) before `at` (ms since the epoch); 0:
 * none. The first call of a service makes its speech while the phone rings: how soon is the machine's
 * speed beside its load, so a test times the first word from the later of the answer and this.
 */
export function lastSpeechMadeBefore(calling: CallingService, at: number): number {
  const made = calling.t.logs
    .filter((line) => line.msg === 'speech synthesized')
    .map((line) => Date.parse(String(line.time)))
    .filter((time) => time <= at);
  return Math.max(0, ...made);
}
