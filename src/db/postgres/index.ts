// Placeholder until the PostgreSQL store lands.
import { UserError } from '../../errors.js';
import type { SecretBox } from '../secret-box.js';
import type { Store } from '../store.js';

export async function openPostgresStore(_options: { url: string; nodeId: string; secrets: SecretBox; now?: () => number; checkKey?: boolean }): Promise<Store> {
  throw new UserError('PostgreSQL is not available in this build');
}
