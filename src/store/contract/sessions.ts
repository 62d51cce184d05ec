// Who is signed in to the dashboard, and how an owner signs in (password, login link, admin).
import type { Session } from '../../core/records.js';
import type { Awaitable } from './awaitable.js';

export interface SessionRepo {
  create(userId: string): Awaitable<{ token: string; session: Session }>;
  get(token: string): Awaitable<Session | undefined>;
  delete(token: string): Awaitable<void>;
  deleteForAccount(userId: string): Awaitable<void>;
}

export interface OwnerAuthRepo {
  setPassword(userId: string, password: string): Promise<void>;
  hasPassword(userId: string): Awaitable<boolean>;
  checkPassword(userId: string, password: string): Promise<boolean>;
  isAdmin(userId: string): Awaitable<boolean>;
  setAdmin(userId: string, admin: boolean): Awaitable<void>;
  createLoginLink(userId: string): Awaitable<{ token: string; expiresAt: number }>;
  useLoginLink(token: string): Awaitable<string | undefined>;
}
