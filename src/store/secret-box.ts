// Seals the api_keys at rest (AES-256-GCM) and derives their keyed hash (HMAC-SHA256), both from one
// 32-byte secret key kept outside the database: a copy of the database alone reveals no webhook URL.
import { decodeSecretKey } from '../config/index.js';
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 'v1.';

function derive(key: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `ringhook ${purpose} v1`, 32));
}

export class SecretBox {
  private readonly encryptionKey: Buffer;
  private readonly macKey: Buffer;
  /** Identifies the key without revealing it: stored in the database to notice a wrong key. */
  readonly fingerprint: Buffer;
  /** Signs the dashboard's sign-in forms: the same on every node that shares the key. */
  readonly signInFormKey: Buffer;

  /** `source` says where the key came from (a file or RINGHOOK_SECRET_KEY), for error messages. */
  constructor(
    key: Buffer,
    readonly source: string,
  ) {
    if (key.length !== SECRET_KEY_BYTES) throw new Error(`the secret key must be ${SECRET_KEY_BYTES} bytes`);
    this.encryptionKey = derive(key, 'api_key encryption');
    this.macKey = derive(key, 'api_key hmac');
    this.fingerprint = derive(key, 'key fingerprint');
    this.signInFormKey = derive(key, 'sign-in form');
  }

  /** `context` (the user_id) is authenticated with it: a sealed value moved to another row does not open. */
  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return FORMAT + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** Throws when the value was sealed with another key or for another context, or was altered. */
  open(sealed: string, context: string): string {
    if (!sealed.startsWith(FORMAT)) throw new Error('not a sealed value');
    const bytes = Buffer.from(sealed.slice(FORMAT.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  }

  /** 32 bytes, whatever the value's length. */
  mac(value: string): Buffer {
    return createHmac('sha256', this.macKey).update(value).digest();
  }

  hasFingerprint(stored: Buffer): boolean {
    return stored.length === this.fingerprint.length && timingSafeEqual(stored, this.fingerprint);
  }
}

export { decodeSecretKey };
