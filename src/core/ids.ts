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

export function newCallId(): string {
  return `call_${randomBytes(16).toString('base64url')}`;
}

export const USER_ID_PATTERN = /^[0-9a-f]{32}$/;
export const API_KEY_PATTERN = /^rk_[A-Za-z0-9_-]{43}$/;
