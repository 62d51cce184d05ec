// Sign-in throttling, in memory (a restart forgets, acceptable for the single serving process).
//
// An attempt is counted when it begins, before the password is hashed: concurrent attempts cannot
// all pass the check while the first ones are still hashing. A success takes its count back.
//
// Counted per client address (20) and per account (5), but the account's count is split so that
// knowing a user_id is no way to lock its owner out: failures from addresses the account has never
// signed in from share one count, and each address the account signed in from before has its own.
// One-time sign-in links are counted apart (per address) and never refused for password failures.

import { FailureWindow } from '../failure-window.js';

export interface ThrottleLimits {
  /** Failed passwords from one address, whatever the accounts. */
  perAddress: number;
  /** Failed passwords for one account from addresses it never signed in from, together. */
  perAccount: number;
  /** Failed passwords for one account from one address it signed in from before. */
  perKnownAddress: number;
  /** Failed one-time links from one address. */
  linksPerAddress: number;
  windowMs: number;
  /** How long an address stays known to an account after a successful sign-in from it. */
  knownForMs: number;
}

export const SIGN_IN_LIMITS: ThrottleLimits = {
  perAddress: 20,
  perAccount: 5,
  perKnownAddress: 5,
  linksPerAddress: 20,
  windowMs: 15 * 60_000,
  knownForMs: 30 * 24 * 60 * 60_000,
};

/** How many keys (and known account/address pairs) are tracked at most: a flood cannot grow memory without bound. */
const MAX_KEYS = 10_000;

/** A password attempt under way: counted in these keys at this time. */
export interface Attempt {
  readonly at: number;
  readonly keys: readonly string[];
  readonly account: string | undefined;
  readonly address: string;
}

export type ThrottleDecision = { allowed: true; attempt: Attempt } | { allowed: false; retryAfterSeconds: number };
export type LinkDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class SignInThrottle {
  private readonly window: FailureWindow;
  /** "account address" -> when the account last signed in from that address. Oldest first. */
  private readonly known = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly limits: ThrottleLimits = SIGN_IN_LIMITS,
  ) {
    const keep = Math.max(limits.perAddress, limits.perAccount, limits.perKnownAddress, limits.linksPerAddress);
    this.window = new FailureWindow(now, { windowMs: limits.windowMs, keep, maxKeys: MAX_KEYS });
  }

  /** Refuses, or counts the attempt as failed until `succeeded` or `abandoned` says otherwise. */
  begin(account: string | undefined, address: string): ThrottleDecision {
    const limited = this.keysFor(account, address);
    const wait = Math.max(...limited.map(([key, limit]) => this.window.waitMs(key, limit)));
    if (wait > 0) return { allowed: false, retryAfterSeconds: Math.ceil(wait / 1000) };
    const keys = limited.map(([key]) => key);
    for (const key of keys) this.window.fail(key);
    return { allowed: true, attempt: { at: this.now(), keys, account, address } };
  }

  /** The password was right: the attempt is not a failure, and the address becomes known to the account. */
  succeeded(attempt: Attempt): void {
    this.abandoned(attempt);
    if (!attempt.account) return;
    const pair = `${attempt.account} ${attempt.address}`;
    // A success from a known address clears that address's failures for the account; the count of
    // unknown addresses only ages out, so the owner's visits do not hand a guesser fresh attempts.
    if (attempt.keys.includes(`k:${pair}`)) this.window.clear(`k:${pair}`);
    this.known.delete(pair);
    if (this.known.size >= MAX_KEYS) this.known.delete(this.known.keys().next().value!);
    this.known.set(pair, this.now());
  }

  /** The attempt was not checked (the server was busy): it does not count. */
  abandoned(attempt: Attempt): void {
    for (const key of attempt.keys) this.window.withdraw(key, attempt.at);
  }

  linkAllowed(address: string): LinkDecision {
    const wait = this.window.waitMs(`l:${address}`, this.limits.linksPerAddress);
    return wait > 0 ? { allowed: false, retryAfterSeconds: Math.ceil(wait / 1000) } : { allowed: true };
  }

  linkFailed(address: string): void {
    this.window.fail(`l:${address}`);
  }

  private keysFor(account: string | undefined, address: string): Array<[string, number]> {
    const keys: Array<[string, number]> = [[`a:${address}`, this.limits.perAddress]];
    if (!account) return keys;
    if (this.isKnown(account, address)) keys.push([`k:${account} ${address}`, this.limits.perKnownAddress]);
    else keys.push([`u:${account}`, this.limits.perAccount]);
    return keys;
  }

  private isKnown(account: string, address: string): boolean {
    const since = this.known.get(`${account} ${address}`);
    return since !== undefined && this.now() - since < this.limits.knownForMs;
  }
}
