// Secret tokens for browsers (sessions, sign-in links): 256 random bits handed out, only their
// SHA-256 kept in the database.
import { createHash, randomBytes } from 'node:crypto';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
