// The database's variables: PostgreSQL shared by several nodes (or SQLite in the data dir), the key
// that seals the api_keys, and this node among the others. Part of the one catalogue.
import { z } from 'zod';
import { parseDatabaseUrl } from '../core/server/database-url.js';
import { DEFAULTS } from './defaults.js';
import { decodeSecretKey } from './rules.js';

export const databaseFields = {
  RINGHOOK_SECRET_KEY: z
    .string()
    .transform((text, ctx) => {
      const key = decodeSecretKey(text.trim());
      if (key) return key;
      ctx.addIssue({
        code: 'custom',
        message:
          'RINGHOOK_SECRET_KEY must be 32 bytes written as 64 hex characters or base64, e.g. from: openssl rand -hex 32',
      });
      return z.NEVER;
    })
    .optional(),
  RINGHOOK_DB_SYNC: z
    .enum(['normal', 'full'], { error: 'RINGHOOK_DB_SYNC must be normal or full' })
    .default(DEFAULTS.dbSync),
  RINGHOOK_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, {
      error:
        'RINGHOOK_DATABASE_URL must be a PostgreSQL URL, postgres://user:password@host:5432/ringhook (unset: SQLite in the data dir)',
    })
    // Read here by the same reader the driver's options come from (core/server/database-url.ts).
    .superRefine((url, ctx) => {
      const parsed = parseDatabaseUrl(url);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: `RINGHOOK_DATABASE_URL: ${parsed.error}` });
    })
    .optional(),
  RINGHOOK_NODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, {
      error: 'RINGHOOK_NODE_ID must be 1 to 63 letters, digits, dots, dashes or underscores (unset: the host name)',
    })
    .optional(),
  RINGHOOK_NODE_TIMEOUT: z.coerce
    .number({ error: 'RINGHOOK_NODE_TIMEOUT must be a number of seconds' })
    .int({ error: 'RINGHOOK_NODE_TIMEOUT must be a whole number of seconds' })
    .min(3, { error: 'RINGHOOK_NODE_TIMEOUT must be at least 3 seconds (nodes say they are alive every second)' })
    .max(600, { error: 'RINGHOOK_NODE_TIMEOUT must be at most 600 seconds' })
    .default(DEFAULTS.nodeTimeoutSec),
};

type DatabaseEnv = z.output<z.ZodObject<typeof databaseFields>>;

export function checkDatabaseVariables(env: DatabaseEnv, issue: (variable: string, message: string) => void): void {
  if (env.RINGHOOK_DATABASE_URL && !env.RINGHOOK_SECRET_KEY) {
    issue(
      'RINGHOOK_SECRET_KEY',
      'RINGHOOK_DATABASE_URL (nodes sharing PostgreSQL) needs RINGHOOK_SECRET_KEY, the same on every node: the webhook URLs are sealed with it (make one with: openssl rand -hex 32)',
    );
  }
}
