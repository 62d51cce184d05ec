// The webhook's accept rules, written once (#55): which checks an alert passes, in which order, and
// what each refusal is. The first check that refuses decides; an alert that passes them all is
// accepted. SQLite's path asks these checks one by one (http/webhook-step-by-step.ts, and the
// store's accept for the two that need the account's lock); PostgreSQL's one round trip runs them
// in its function under the lock (store/postgres/receive-function-v14.ts), and one table of cases
// (test/contract/accept-rules.test.ts) holds core, the SQLite path and the PostgreSQL path to the
// same answers. Pure.
import type { LimitDecision } from './limits.js';

/** The checks in their order: a later one is never looked at for an alert an earlier one refused. */
export const ACCEPT_CHECKS = ['credentials', 'suspension', 'sources', 'payload', 'duplicate', 'limits'] as const;
export type AcceptCheck = (typeof ACCEPT_CHECKS)[number];

/** The checks made before the account's lock (no count of its alerts needed), and those under it. */
export const CHECKS_BEFORE_LOCK: readonly AcceptCheck[] = ['credentials', 'suspension', 'sources', 'payload'];
export const CHECKS_UNDER_LOCK: readonly AcceptCheck[] = ['duplicate', 'limits'];

/** The facts of the checks before the lock, for a store's accept that is reached only once they passed. */
export const PASSED_BEFORE_LOCK: Pick<AcceptFacts, 'authenticated' | 'active' | 'sourceRefusedBy' | 'payloadValid'> = {
  authenticated: () => true,
  active: () => true,
  sourceRefusedBy: () => undefined,
  payloadValid: () => true,
};

/** What the checks read of one alert; each is asked only when its check is reached. */
export interface AcceptFacts {
  /** The key is the account's. */
  authenticated: () => boolean;
  /** The account takes calls (not suspended). */
  active: () => boolean;
  /** Who refuses the client's address: the server's sources first, then the account's; undefined: allowed. */
  sourceRefusedBy: () => 'server' | 'account' | undefined;
  /** The body is a valid alert. */
  payloadValid: () => boolean;
  /** The call an earlier alert with the same key made within the account's window; undefined: none. */
  duplicateOf: () => string | undefined;
  /** The account's limits for one more alert (core/webhook/limits' decideLimits). */
  limits: () => LimitDecision;
}

export type AcceptAnswer =
  | { check: 'credentials'; outcome: 'unauthorized' }
  | { check: 'suspension'; outcome: 'suspended' }
  | { check: 'sources'; outcome: 'source_not_allowed'; by: 'server' | 'account' }
  | { check: 'payload'; outcome: 'invalid' }
  | { check: 'duplicate'; outcome: 'duplicate'; firstCallId: string }
  | { check: 'limits'; outcome: 'refused'; decision: Exclude<LimitDecision, { allowed: true }> }
  | { check: null; outcome: 'accepted' };

type Refusal = Exclude<AcceptAnswer, { outcome: 'accepted' }>;

/** The fact each check reads. */
const FACT = {
  credentials: 'authenticated',
  suspension: 'active',
  sources: 'sourceRefusedBy',
  payload: 'payloadValid',
  duplicate: 'duplicateOf',
  limits: 'limits',
} as const satisfies Record<AcceptCheck, keyof AcceptFacts>;

/** One check's refusal given its fact, or undefined when the alert passes it. */
function refusalFor(check: AcceptCheck, fact: unknown): Refusal | undefined {
  switch (check) {
    case 'credentials':
      return fact ? undefined : { check, outcome: 'unauthorized' };
    case 'suspension':
      return fact ? undefined : { check, outcome: 'suspended' };
    case 'sources':
      return fact ? { check, outcome: 'source_not_allowed', by: fact as 'server' | 'account' } : undefined;
    case 'payload':
      return fact ? undefined : { check, outcome: 'invalid' };
    case 'duplicate':
      return fact === undefined ? undefined : { check, outcome: 'duplicate', firstCallId: fact as string };
    case 'limits': {
      const decision = fact as LimitDecision;
      return decision.allowed ? undefined : { check, outcome: 'refused', decision };
    }
  }
}

/** The first of `checks` (in ACCEPT_CHECKS' order) that refuses the alert; undefined when none does. */
export function firstRefusal(facts: AcceptFacts, checks: readonly AcceptCheck[] = ACCEPT_CHECKS): Refusal | undefined {
  for (const check of ACCEPT_CHECKS) {
    if (!checks.includes(check)) continue;
    const refusal = refusalFor(check, facts[FACT[check]]());
    if (refusal) return refusal;
  }
  return undefined;
}

/** Facts some of which are read on demand over I/O (the body read only when its check is reached). */
export type AwaitedFacts = {
  [K in keyof AcceptFacts]: () => ReturnType<AcceptFacts[K]> | Promise<ReturnType<AcceptFacts[K]>>;
};

/** firstRefusal over facts read on demand, one after another. */
export async function firstRefusalAwaiting(
  facts: AwaitedFacts,
  checks: readonly AcceptCheck[] = ACCEPT_CHECKS,
): Promise<Refusal | undefined> {
  for (const check of ACCEPT_CHECKS) {
    if (!checks.includes(check)) continue;
    const refusal = refusalFor(check, await facts[FACT[check]]());
    if (refusal) return refusal;
  }
  return undefined;
}

/** The answer to one alert: the first refusal, or accepted. */
export function decideAccept(facts: AcceptFacts): AcceptAnswer {
  return firstRefusal(facts) ?? { check: null, outcome: 'accepted' };
}
