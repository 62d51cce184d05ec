// What every CLI command needs: the validated config and the stores, closed when the command ends.
import type { z } from 'zod';
import { loadConfig, type Config } from '../config.js';
import { UserError } from '../errors.js';
import { openStores, type Stores } from '../service.js';

export async function withStores<T>(fn: (stores: Stores, config: Config) => T | Promise<T>): Promise<T> {
  const config = loadConfig();
  const stores = openStores(config);
  try {
    return await fn(stores, config);
  } finally {
    stores.db.close();
  }
}

/** Validates one CLI argument with a zod schema; a bad value is a one-line UserError. */
export function parseArg<S extends z.ZodType>(schema: S, value: unknown, option: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new UserError(`${option}: ${result.error.issues[0]?.message ?? 'invalid value'}`);
  return result.data;
}
