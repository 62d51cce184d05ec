// Identifiers and secrets. Every one carries at least 128 bits of randomness and is URL-safe.
import { randomBytes } from 'node:crypto';

/** 128 bits as 32 lowercase hex characters: safe in URLs and never mistaken for a CLI option. */
export function newUserId(): string {
  return randomBytes(16).toString('hex');
}

/** 256 bits, base64url, behind a prefix that says what it is (and keeps a leading "-" away). */
export function newApiKey(): string {
  return `rk_${randomBytes(32).toString('base64url')}`;
}

// Call ids are made for every alert: their random bytes are drawn from the CSPRNG in batches (one
// call into OpenSSL per 256 ids instead of one each), each byte used once. Secrets (api_keys,
// tokens) keep a draw of their own.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function pooledRandom(size: number): Buffer {
  if (poolOffset + size > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + size);
  poolOffset += size;
  return bytes;
}

/** base64url's characters in ASCII order: a number written with them sorts as the number does. */
const ORDERED_DIGITS = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';

/** `ms` (up to 2^48) as 8 of ORDERED_DIGITS, most significant first. */
function orderedTime(ms: number): string {
  let out = '';
  for (let shift = 42; shift >= 0; shift -= 6) out += ORDERED_DIGITS[Math.floor(ms / 2 ** shift) % 64];
  return out;
}

/**
 * "call_", when it was made (ms, 8 characters that sort in time order), then 128 random bits
 * (base64url). Ids made one after another sort one after another: each lands beside the last in
 * the index of call_ids, where random ids each dirtied a page of their own in every commit.
 */
export function newCallId(now = Date.now()): string {
  return `call_${orderedTime(now)}${pooledRandom(16).toString('base64url')}`;
}

export const USER_ID_PATTERN = /^[0-9a-f]{32}$/;
export const API_KEY_PATTERN = /^rk_[A-Za-z0-9_-]{43}$/;
