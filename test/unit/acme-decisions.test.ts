// The pure decisions of ringhook's own certificate: when to renew, how long to back off, which
// challenge, and what a failure tells the operator to do.
import { describe, expect, it } from 'vitest';
import {
  backoffOutlivesRestart,
  challengePriority,
  coversNames,
  daysToExpiry,
  describeAcmeFault,
  nextAttemptAfterFailure,
  RENEW_BEFORE_MS,
  renewalTime,
} from '../../src/core/server/acme.js';

const DAY = 86_400_000;
const names = ['alerts.example.com'];
const directory = 'https://acme-v02.api.letsencrypt.org/directory';

describe('renewalTime', () => {
  it('renews a 90-day certificate 30 days before it expires', () => {
    expect(renewalTime({ notBefore: 0, notAfter: 90 * DAY })).toBe(60 * DAY);
    expect(RENEW_BEFORE_MS).toBe(30 * DAY);
  });

  it('renews a certificate living longer than 90 days 30 days before expiry too', () => {
    expect(renewalTime({ notBefore: 0, notAfter: 365 * DAY })).toBe(335 * DAY);
  });

  it('renews a short-lived certificate once two thirds of its life have passed', () => {
    expect(renewalTime({ notBefore: 1_000, notAfter: 31_000 })).toBe(21_000);
    expect(renewalTime({ notBefore: 0, notAfter: 6 * DAY })).toBe(4 * DAY);
  });
});

describe('nextAttemptAfterFailure', () => {
  it('waits 5 minutes after the first failure and doubles up to 12 hours', () => {
    expect(nextAttemptAfterFailure(0, 1)).toBe(5 * 60_000);
    expect(nextAttemptAfterFailure(0, 2)).toBe(10 * 60_000);
    expect(nextAttemptAfterFailure(100, 4)).toBe(100 + 40 * 60_000);
    expect(nextAttemptAfterFailure(0, 40)).toBe(12 * 3_600_000);
  });

  it("waits as long as the authority's Retry-After when that is longer", () => {
    expect(nextAttemptAfterFailure(0, 1, 3_600_000)).toBe(3_600_000);
    expect(nextAttemptAfterFailure(0, 3, 1_000)).toBe(20 * 60_000);
  });
});

describe('backoffOutlivesRestart', () => {
  it('keeps the wait across a restart only for what the authority counts: failed validations and rate limits', () => {
    expect(backoffOutlivesRestart('validation')).toBe(true);
    expect(backoffOutlivesRestart('rate_limited')).toBe(true);
    for (const kind of ['unreachable', 'untrusted', 'rejected', 'other', null] as const)
      expect(backoffOutlivesRestart(kind)).toBe(false);
  });
});

describe('challengePriority', () => {
  it('offers HTTP-01 when the plain-HTTP port listens, and nothing without it', () => {
    expect(challengePriority(true)).toEqual(['http-01']);
    expect(challengePriority(false)).toEqual([]);
  });
});

describe('coversNames and daysToExpiry', () => {
  it('compares names without regard to case or order', () => {
    expect(coversNames(['B.example.com', 'a.example.com'], ['a.example.com', 'b.example.com'])).toBe(true);
    expect(coversNames(['a.example.com'], ['a.example.com', 'b.example.com'])).toBe(false);
  });

  it('counts whole days, negative once expired', () => {
    expect(daysToExpiry(10 * DAY + 5, 0)).toBe(10);
    expect(daysToExpiry(0, DAY / 2)).toBe(-1);
  });
});

describe('describeAcmeFault', () => {
  it('names an authority that cannot be reached, with the variable to check', () => {
    const fault = describeAcmeFault(
      { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:14000' },
      names,
      directory,
    );
    expect(fault.kind).toBe('unreachable');
    expect(fault.fix).toContain('RINGHOOK_ACME_DIRECTORY');
  });

  it('names an untrusted directory certificate and points at RINGHOOK_ACME_CA_FILE', () => {
    const fault = describeAcmeFault(
      { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', message: 'unable to verify the first certificate' },
      names,
      directory,
    );
    expect(fault).toEqual({ kind: 'untrusted', fix: expect.stringContaining('RINGHOOK_ACME_CA_FILE') });
  });

  it('names a refused name (Pebble and Boulder wording) and points at RINGHOOK_ACME_DOMAIN', () => {
    for (const message of [
      'Order included an identifier for which issuance is forbidden by policy: blocked.ringhook.test',
      'Error creating new order :: Cannot issue for "foo.example": The ACME server refuses to issue a certificate for this domain name, because it is forbidden by policy',
    ]) {
      const fault = describeAcmeFault({ message }, names, directory);
      expect(fault.kind).toBe('rejected');
      expect(fault.fix).toContain('RINGHOOK_ACME_DOMAIN');
    }
  });

  it('names a rate limit as something to wait out', () => {
    expect(
      describeAcmeFault(
        { message: 'too many certificates (5) already issued for this exact set of domains' },
        names,
        directory,
      ).kind,
    ).toBe('rate_limited');
  });

  it('names a failed validation with the ports to open', () => {
    const fault = describeAcmeFault(
      { message: 'Connection refused fetching http://alerts.example.com/.well-known/acme-challenge/x' },
      names,
      directory,
    );
    expect(fault.kind).toBe('validation');
    expect(fault.fix).toContain('port 80');
  });
});
