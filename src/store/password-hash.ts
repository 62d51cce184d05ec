// Password hashing with scrypt (node:crypto): a random salt per password, parameters stored with
// the hash so they can be raised later, constant-time comparison.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // 128 * N * r bytes are needed; leave room above node's 32 MiB default.
    scryptCallback(
      password.normalize('NFC'),
      salt,
      keyLength,
      { ...options, maxmem: 256 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** "scrypt$N$r$p$salt$key", salt and key in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, KEY_LENGTH, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

interface Parsed {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parse(stored: string): Parsed | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return undefined;
  return { N, r, p, salt: Buffer.from(parts[4]!, 'base64url'), key: Buffer.from(parts[5]!, 'base64url') };
}

// Verified against when an account has no password, so that "no such account" and "wrong
// password" take the same time.
let dummyHash: Promise<string> | undefined;

/** True when the password matches. `stored` undefined: an equally slow comparison that fails. */
export async function verifyPassword(password: string, stored: string | undefined | null): Promise<boolean> {
  const target = stored ? parse(stored) : undefined;
  dummyHash ??= hashPassword('not a password');
  const reference = target ?? parse(await dummyHash)!;
  const key = await scrypt(password, reference.salt, reference.key.length, {
    N: reference.N,
    r: reference.r,
    p: reference.p,
  });
  return timingSafeEqual(key, reference.key) && target !== undefined;
}

/** The rules a password must meet: long enough to resist guessing, short enough to hash quickly. */
export function passwordProblem(password: string): string | undefined {
  const length = Array.from(password).length;
  if (length < 10) return 'the password must have at least 10 characters';
  if (length > 200) return 'the password must have at most 200 characters';
  return undefined;
}

/** A decision PIN's hash (#56): kept as a password is, never in clear. */
export const hashDecisionPin = (pin: string): Promise<string> => hashPassword(pin);
