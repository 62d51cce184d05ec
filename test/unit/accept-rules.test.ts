// The webhook's accept rules in core (#55): the first check that refuses decides, in one order, and a
// fact past it is never read (the body of an alert refused for its key is not parsed).
import { describe, expect, it } from 'vitest';
import {
  ACCEPT_CHECKS,
  type AcceptFacts,
  CHECKS_BEFORE_LOCK,
  CHECKS_UNDER_LOCK,
  decideAccept,
  firstRefusal,
  firstRefusalAwaiting,
} from '../../src/core/webhook/accept-rules.js';

const LIMITED = { allowed: false, limit: 'burst', perMinute: 1, retryAfterSeconds: 30 } as const;

/** Every check refuses; `read` lists the facts read, in order. */
function allRefuse(read: string[]): AcceptFacts {
  const fact =
    <T>(name: string, value: T) =>
    () => {
      read.push(name);
      return value;
    };
  return {
    authenticated: fact('authenticated', false),
    active: fact('active', false),
    sourceRefusedBy: fact('sourceRefusedBy', 'account' as const),
    payloadValid: fact('payloadValid', false),
    duplicateOf: fact('duplicateOf', 'call_first'),
    limits: fact('limits', LIMITED as never),
  };
}

describe('the accept rules', () => {
  it('the checks in their order, split at the lock', () => {
    expect(ACCEPT_CHECKS).toEqual(['credentials', 'suspension', 'sources', 'payload', 'duplicate', 'limits']);
    expect([...CHECKS_BEFORE_LOCK, ...CHECKS_UNDER_LOCK]).toEqual([...ACCEPT_CHECKS]);
  });

  it('each check in turn decides once those before it pass; no fact past it is read', () => {
    const expected = ['unauthorized', 'suspended', 'source_not_allowed', 'invalid', 'duplicate', 'refused'];
    for (let passed = 0; passed < ACCEPT_CHECKS.length; passed++) {
      const read: string[] = [];
      const facts = allRefuse(read);
      const passing: Partial<AcceptFacts> = {
        authenticated: () => true,
        active: () => true,
        sourceRefusedBy: () => undefined,
        payloadValid: () => true,
        duplicateOf: () => undefined,
      };
      const keys = Object.keys(passing).slice(0, passed) as Array<keyof AcceptFacts>;
      for (const key of keys) Object.assign(facts, { [key]: passing[key] });
      expect(decideAccept(facts).outcome).toBe(expected[passed]);
      expect(read).toHaveLength(1);
    }
  });

  it('an alert every check passes is accepted', () => {
    const answer = decideAccept({
      authenticated: () => true,
      active: () => true,
      sourceRefusedBy: () => undefined,
      payloadValid: () => true,
      duplicateOf: () => undefined,
      limits: () => ({ allowed: true }),
    });
    expect(answer).toEqual({ check: null, outcome: 'accepted' });
  });

  it('only the checks asked for: the store under its lock asks duplicate and limits, in that order', async () => {
    const read: string[] = [];
    expect(firstRefusal(allRefuse(read), CHECKS_UNDER_LOCK)).toMatchObject({ outcome: 'duplicate' });
    expect(read).toEqual(['duplicateOf']);
    const awaited: string[] = [];
    const facts = allRefuse(awaited);
    const refusal = await firstRefusalAwaiting(
      { ...facts, authenticated: async () => true, active: async () => true },
      CHECKS_BEFORE_LOCK,
    );
    expect(refusal).toMatchObject({ outcome: 'source_not_allowed', by: 'account' });
    expect(awaited).toEqual(['sourceRefusedBy']);
  });
});
