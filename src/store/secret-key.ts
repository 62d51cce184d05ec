// Where the api_keys' secret key comes from: RINGHOOK_SECRET_KEY, or a file in the data dir made at
// the first start. serve and the CLI run on the same data dir, so they use the same key.
import path from 'node:path';
import type { Config } from '../config/index.js';
import { decodeSecretKey, SecretBox } from './secret-box.js';
import { UserError } from '../lib/errors.js';
import { readOrCreateSecret } from '../lib/secret-file.js';

const NAME = 'api-keys';

export function secretKeyFile(dataDir: string): string {
  return path.join(dataDir, `${NAME}.secret`);
}

export function loadSecretBox(config: Pick<Config, 'dataDir' | 'secretKey'>): SecretBox {
  if (config.secretKey) return new SecretBox(config.secretKey, 'RINGHOOK_SECRET_KEY');
  const { value, file, created } = readOrCreateSecret(config.dataDir, NAME, 32);
  const key = decodeSecretKey(value);
  if (!key)
    throw new UserError(
      `${file} is not a ringhook secret key (43 base64url characters): put back the one kept with your backup, or set RINGHOOK_SECRET_KEY`,
    );
  return new SecretBox(key, created ? `${file} (made just now: none was there)` : file);
}
