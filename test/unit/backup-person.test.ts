// The backup person (#54) and an alert's own expiry: the pure decisions and words.
import { describe, expect, it } from 'vitest';
import { LANGUAGE_CODES } from '../../src/core/speech/language-types.js';
import {
  alertOwnerLabel,
  backupIntro,
  backupPhoneChange,
  decideEscalation,
  describeBackupPerson,
  parseBackupPhone,
  verificationMessage,
} from '../../src/core/calls/backup-person.js';
import { expiredFate, expiresAt, hasExpired, parseExpiresIn, soonerExpiry } from '../../src/core/calls/alert-expiry.js';
import { parseAlertBody } from '../../src/core/webhook/payload.js';
import { withoutExpired } from '../../src/core/delivery/sms-decision.js';

const OWN = '+14155550123';

describe('--backup-phone', () => {
  it("takes an E.164 number other than the account's own, or off", () => {
    expect(parseBackupPhone('+1 (415) 555-0777', OWN)).toEqual({ ok: true, value: '+14155550777' });
    expect(parseBackupPhone('off', OWN)).toEqual({ ok: true, value: null });
    expect(parseBackupPhone('4155550777', OWN)).toEqual({
      ok: false,
      error: "--backup-phone: '4155550777' is not a phone number in E.164 form (e.g. +14155550123) nor off",
    });
    expect(parseBackupPhone('+1 415 555 0123', OWN)).toEqual({
      ok: false,
      error:
        "--backup-phone: '+1 415 555 0123' is the account's own number: the backup person is called at another one",
    });
  });

  it('a new number waits for its 1 (pending); the same number keeps its state; off removes it', () => {
    const none = { backupPhone: null, backupPhoneStatus: null };
    const verified = { backupPhone: '+14155550777', backupPhoneStatus: 'verified' as const };
    expect(backupPhoneChange(none, '+14155550777')).toEqual({
      backupPhone: '+14155550777',
      backupPhoneStatus: 'pending',
    });
    expect(backupPhoneChange(verified, '+14155550777')).toEqual(verified);
    expect(backupPhoneChange(verified, '+14155550888')).toEqual({
      backupPhone: '+14155550888',
      backupPhoneStatus: 'pending',
    });
    expect(backupPhoneChange(verified, null)).toEqual(none);
  });
});

describe('the words', () => {
  it('names the account, or the last four digits of its number', () => {
    expect(alertOwnerLabel({ name: 'Alice', phone: OWN })).toBe('Alice');
    expect(alertOwnerLabel({ name: ' ', phone: OWN })).toBe('the phone ending 0 1 2 3');
    expect(backupIntro({ name: 'Alice', phone: OWN })).toBe('Alert for Alice:');
    expect(verificationMessage({ name: 'Alice', phone: OWN })).toMatch(
      /Press 1 to agree to receive alerts for Alice\.$/,
    );
  });

  it("speaks the account's language: the backup person hears the call's voice", () => {
    expect(backupIntro({ name: 'Alice', phone: OWN, language: 'de' })).toBe('Alarm für Alice:');
    expect(alertOwnerLabel({ name: '', phone: OWN, language: 'fr' })).toBe('le téléphone se terminant par 0 1 2 3');
    for (const language of LANGUAGE_CODES) {
      const asked = verificationMessage({ name: 'Alice', phone: OWN, language });
      expect(asked).toMatch(/1/);
      expect(asked).toContain('Alice');
      expect(backupIntro({ name: 'Alice', phone: OWN, language })).toContain('Alice');
      if (language !== 'en') expect(asked).not.toBe(verificationMessage({ name: 'Alice', phone: OWN }));
    }
  });

  it('says what happens, and that a pending number is not called', () => {
    expect(describeBackupPerson({ backupPhone: null, backupPhoneStatus: null })).toBe('');
    expect(describeBackupPerson({ backupPhone: '+14155550777', backupPhoneStatus: 'verified' })).toMatch(
      /^Then \+1 415 555 0777, the backup person, is called once/,
    );
    expect(describeBackupPerson({ backupPhone: '+14155550777', backupPhoneStatus: 'pending' })).toMatch(
      /not called yet: .*pending/,
    );
  });
});

describe('decideEscalation', () => {
  const account = {
    requireConfirm: true,
    status: 'active' as const,
    backupPhone: '+14155550777',
    backupPhoneStatus: 'verified' as const,
  };
  const facts = { state: 'no_answer' as const, account, toBackup: false, newerAlertForPhone: false, now: 1_000 };
  it('a missed alert goes to a verified backup number, once, while the account is active and the alert not expired', () => {
    expect(decideEscalation(facts)).toBe(true);
    expect(decideEscalation({ ...facts, state: 'unconfirmed' })).toBe(true);
    expect(decideEscalation({ ...facts, account: { ...account, requireConfirm: false }, state: 'unconfirmed' })).toBe(
      false,
    );
    expect(decideEscalation({ ...facts, state: 'acknowledged' })).toBe(false);
    expect(decideEscalation({ ...facts, toBackup: true })).toBe(false);
    expect(decideEscalation({ ...facts, account: { ...account, backupPhoneStatus: 'pending' } })).toBe(false);
    expect(decideEscalation({ ...facts, account: { ...account, status: 'suspended' } })).toBe(false);
    expect(decideEscalation({ ...facts, expiresAt: 1_000 })).toBe(false);
    expect(decideEscalation({ ...facts, newerAlertForPhone: true })).toBe(false);
  });
});

describe('expires_in', () => {
  it('a whole number of seconds from 10 to 86400, a number or digits', () => {
    expect(parseExpiresIn(10, 'expires_in')).toEqual({ ok: true, value: 10 });
    expect(parseExpiresIn('86400', 'Expires-In')).toEqual({ ok: true, value: 86_400 });
    expect(parseExpiresIn(undefined, 'expires_in')).toEqual({ ok: true, value: undefined });
    expect(parseExpiresIn(null, 'expires_in')).toEqual({ ok: true, value: undefined });
    for (const bad of [9, 86_401, 10.5, 'soon', true, '1e3', -10, Number.NaN])
      expect(parseExpiresIn(bad, 'expires_in').ok, String(bad)).toBe(false);
    expect(parseExpiresIn('x', 'Expires-In')).toEqual({
      ok: false,
      error: '"Expires-In" must be a whole number of seconds from 10 to 86400 (got "x")',
    });
    expect(soonerExpiry(30, 20)).toBe(20);
    expect(soonerExpiry(undefined, 20)).toBe(20);
  });

  it('the JSON body carries it, outside the extra fields; a bad one names the field', () => {
    const body = (o: object) => new TextEncoder().encode(JSON.stringify(o));
    const parsed = parseAlertBody(body({ message: 'm', expires_in: 60, note: 'x' }), 'application/json');
    expect(parsed).toMatchObject({ ok: true, alert: { expiresIn: 60, extra: { note: 'x' } } });
    expect(parseAlertBody(body({ message: 'm', expires_in: '60s' }), 'application/json')).toMatchObject({
      ok: false,
      code: 'invalid_field',
      field: 'expires_in',
    });
  });

  it('passes at receipt + expires_in; an expired alert ends expired and counts against the plan', () => {
    expect(expiresAt({ receivedAt: 1_000, expiresIn: 10 })).toBe(11_000);
    expect(expiresAt({ receivedAt: 1_000, expiresIn: null })).toBeUndefined();
    expect(hasExpired({ receivedAt: 1_000, expiresIn: 10 }, 10_999)).toBe(false);
    expect(hasExpired({ receivedAt: 1_000, expiresIn: 10 }, 11_000)).toBe(true);
    expect(expiredFate(10)).toMatchObject({
      state: 'expired',
      returnsAllowance: false,
      error: expect.stringContaining('10 s'),
    });
  });

  it('no SMS for an expired alert when one would follow its call; the others of the call keep theirs', () => {
    const call = {
      callId: 'a',
      state: 'no_answer' as const,
      message: 'A',
      expiresAt: 5_000,
      carried: [{ callId: 'b', message: 'B' }],
    };
    expect(withoutExpired(call, 4_999)).toEqual({ expired: [], live: call });
    expect(withoutExpired(call, 5_000)).toEqual({
      expired: ['a'],
      live: { ...call, callId: 'b', message: 'B', expiresAt: undefined, carried: [] },
    });
    expect(withoutExpired({ ...call, carried: [] }, 6_000)).toEqual({ expired: ['a'], live: undefined });
    // Heard: no SMS anyway, and none marked expired.
    expect(withoutExpired({ ...call, state: 'acknowledged' }, 6_000).expired).toEqual([]);
  });
});
