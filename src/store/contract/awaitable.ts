/** A value now (SQLite) or later (PostgreSQL). */
export type Awaitable<T> = T | Promise<T>;
