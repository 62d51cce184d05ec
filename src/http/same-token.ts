// Secrets compared in constant time: CSRF tokens, the metrics bearer token.
import { timingSafeEqual } from 'node:crypto';

export function sameToken(given: string | undefined, expected: string | undefined): boolean {
  if (!given || !expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
