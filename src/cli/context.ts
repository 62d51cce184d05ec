// What every CLI command needs: the validated config and the stores, closed when the command ends.
import { z } from 'zod';
import type { Account } from '../core/account.js';
import { USER_ID_PATTERN } from '../core/ids.js';
import { loadConfig, type Config } from '../config/index.js';
import { UserError } from '../lib/errors.js';
import { openStores, type Stores } from '../app/open-stores.js';
import { creationNotice, dataDirReady, missingDataDir, noteEarlierInstall } from './data-dir.js';

/**
 * Runs `fn` with the stores. A data dir that is not there is an error, not a new empty one (a
 * command would otherwise work on nothing), except for a command that `creates` (account create),
 * which says that it made one.
 */
export async function withStores<T>(
  fn: (stores: Stores, config: Config) => T | Promise<T>,
  options: { lostSecretKey?: boolean; creates?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  noteEarlierInstall(config);
  if (!options.creates && !dataDirReady(config)) throw missingDataDir(config);
  const made = options.creates ? creationNotice(config) : null;
  const stores = await openStores(config, Date.now, options);
  if (made) process.stderr.write(made);
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
