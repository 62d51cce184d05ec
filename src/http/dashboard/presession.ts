// The CSRF token of the sign-in forms, before there is a session: issued by the server, so that a
// value the browser was made to carry (a planted cookie plus the same value in a forged form) is
// refused. "nonce.expiry.mac": an HMAC-SHA256 under a key derived from the secret key, so that a
// form served by one node is taken by another sharing the database, and after a restart.
import { createHmac, randomBytes } from 'node:crypto';
import { sameToken } from '../same-token.js';

export const PRESESSION_TTL_MS = 60 * 60_000;

const SHAPE = /^([A-Za-z0-9_-]{22})\.([0-9a-z]{1,11})\.([A-Za-z0-9_-]{43})$/;

export class PresessionTokens {
  constructor(
    private readonly secret: Buffer,
    private readonly now: () => number,
    private readonly ttlMs = PRESESSION_TTL_MS,
  ) {}

  issue(): string {
    const nonce = randomBytes(16).toString('base64url');
    const expiry = (this.now() + this.ttlMs).toString(36);
    return `${nonce}.${expiry}.${this.mac(nonce, expiry)}`;
  }

  /** True for a token issued under this key that has not expired. */
  valid(token: string | undefined): token is string {
    const parts = token ? SHAPE.exec(token) : null;
    if (!parts) return false;
    const [, nonce, expiry, mac] = parts as unknown as [string, string, string, string];
    return parseInt(expiry, 36) > this.now() && sameToken(mac, this.mac(nonce, expiry));
  }

  private mac(nonce: string, expiry: string): string {
    return createHmac('sha256', this.secret).update(`presession ${nonce} ${expiry}`).digest('base64url');
  }
}
