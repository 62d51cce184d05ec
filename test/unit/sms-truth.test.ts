// What the SMS backup switch may promise on a server: no gateway, telephony off, a gateway whose
// last SMS failed, one that works, one never tried (#38).
import { describe, expect, it } from 'vitest';
import { SMS_NOT_SENT } from '../../src/core/reasons.js';
import { decideSms, smsOffReason } from '../../src/core/delivery/sms-decision.js';
import {
  smsBackupWarning,
  smsGatewaySetting,
  smsGatewayState,
  type SmsAttempt,
} from '../../src/core/delivery/sms-truth.js';

const at = Date.UTC(2026, 10, 28, 20, 5);
const attempt = (status: SmsAttempt['status'], error: string | null = null, when = at): SmsAttempt => ({
  status,
  error,
  at: when,
});

describe('the SMS gateway as the switch sees it', () => {
  it('no gateway, or telephony off: nothing is read, and the switch cannot send', () => {
    expect(smsGatewaySetting(false, 'none')).toBe('none');
    expect(smsGatewaySetting(true, 'http')).toBe('no_telephony');
    expect(smsGatewayState('none', [attempt('sent')])).toEqual({ state: 'none' });
    expect(smsBackupWarning({ state: 'none' }, 'admin')).toMatch(
      /^this server has no SMS gateway \(RINGHOOK_SMS_GATEWAY=none\), so no SMS will be sent when a call is missed: set RINGHOOK_SMS_GATEWAY/,
    );
    expect(smsBackupWarning({ state: 'none' }, 'owner')).toBe(
      'this server has no SMS gateway, so no SMS will be sent when a call is missed. Ask your administrator to set one up.',
    );
    expect(smsBackupWarning({ state: 'no_telephony' }, 'owner')).toMatch(/places no calls and sends no SMS/);
  });

  it('the newest attempt that says something about the gateway decides', () => {
    expect(smsGatewayState('http', [])).toEqual({ state: 'untried' });
    expect(smsGatewayState('http', [attempt('sent')])).toEqual({ state: 'working', at });
    // Not delivered by the phone's network: the gateway took it, so it works.
    expect(smsGatewayState('smpp', [attempt('failed', `${SMS_NOT_SENT.notDelivered}UNDELIV`)]).state).toBe('working');
    const refused = smsGatewayState('http', [
      attempt('failed', 'gateway answered 403: bad credentials'),
      attempt('sent'),
    ]);
    expect(refused).toEqual({ state: 'failing', at, error: 'gateway answered 403: bad credentials', waiting: false });
    // ringhook's own reasons (turned off meanwhile, a stop) say nothing of the gateway: the one before decides.
    expect(
      smsGatewayState('http', [
        attempt('failed', SMS_NOT_SENT.turnedOff),
        attempt('failed', SMS_NOT_SENT.stoppedHandingOver),
        attempt('delivered'),
      ]).state,
    ).toBe('working');
    expect(smsGatewayState('http', [attempt('waiting', 'connect ECONNREFUSED')])).toMatchObject({
      state: 'failing',
      waiting: true,
    });
    expect(smsGatewayState('http', [attempt('failed', SMS_NOT_SENT.tooOld)]).state).toBe('failing');
  });

  it('a failing gateway is told with its time and, to the admin, its words; a working one needs no warning', () => {
    const failing = smsGatewayState('http', [attempt('failed', 'gateway answered 403: bad credentials')]);
    expect(smsBackupWarning(failing, 'admin')).toBe(
      'the SMS gateway failed the last SMS it was given (2026-11-28 20:05 UTC): gateway answered 403: bad credentials. An SMS may not go out until it works again (`ringhook sms-test` checks it).',
    );
    expect(smsBackupWarning(failing, 'owner')).not.toMatch(/403/);
    expect(smsBackupWarning({ state: 'working', at }, 'owner')).toBeNull();
    expect(smsBackupWarning({ state: 'untried' }, 'admin')).toBeNull();
  });
});

describe('why a missed call sent no SMS', () => {
  const account = { smsBackup: true, status: 'active' as const };
  it('is decided once, and its reason kept', () => {
    expect(decideSms('no_answer', account, false)).toBe('disabled');
    expect(smsOffReason(account, false)).toBe(SMS_NOT_SENT.noGateway);
    expect(smsOffReason({ ...account, smsBackup: false }, false)).toBe(SMS_NOT_SENT.backupOff);
    expect(smsOffReason({ ...account, status: 'suspended' }, true)).toBe(SMS_NOT_SENT.suspended);
    expect(smsOffReason(undefined, true)).toBe(SMS_NOT_SENT.accountGone);
  });
});
