// What every CLI command needs: the validated config and the stores, closed when the command ends.
import fs from 'node:fs';
import { z } from 'zod';
import type { Account } from '../core/account.js';
import { USER_ID_PATTERN } from '../core/ids.js';
import { loadConfig, type Config } from '../config/index.js';
import { UserError } from '../lib/errors.js';
import { openStores, type Stores } from '../app/service.js';

/**
 * Runs `fn` with the stores. `mustExist`: an SQLite database that is not there is an error, not a
 * new empty one (a command run from another folder than serve's would otherwise work on nothing).
 */
export async function withStores<T>(
  fn: (stores: Stores, config: Config) => T | Promise<T>,
  options: { lostSecretKey?: boolean; mustExist?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  if (options.mustExist && !config.databaseUrl && !fs.existsSync(config.dbFile))
    throw new UserError(
      `there is no database at ${config.dbFile}: set RINGHOOK_DATA_DIR to serve's data dir (it is ${config.dataDir} here)`,
    );
  const stores = await openStores(config, Date.now, options);
  try {
    return await fn(stores, config);
  } finally {
    await stores.close();
  }
}

/** Validates one CLI argument with a zod schema; a bad value is a one-line UserError. */
export function parseArg<S extends z.ZodType>(schema: S, value: unknown, option: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new UserError(`${option}: ${result.error.issues[0]?.message ?? 'invalid value'}`);
  return result.data;
}

/** The account a CLI argument names, or a one-line error saying what is wrong with it. */
export async function requireAccount(stores: Stores, userId: string): Promise<Account> {
  if (!USER_ID_PATTERN.test(userId))
    throw new UserError(`"${userId}" is not a user_id: it has 32 hex characters (see ringhook account list)`);
  const account = await stores.accounts.get(userId);
  if (!account) throw new UserError(`no account with user_id ${userId} (see ringhook account list)`);
  return account;
}

export const onOffSchema = z.enum(['on', 'off'], { error: 'must be on or off' });
