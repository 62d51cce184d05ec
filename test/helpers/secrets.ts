// A secret key for stores made directly in a test (serve and the CLI load theirs from the data dir).
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../src/store/secret-box.js';

export function testSecrets(): SecretBox {
  return new SecretBox(randomBytes(32), 'the test key');
}
