// The api_keys' sealing and keyed hash, the key as an operator writes it, and the key file.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newApiKey, newUserId } from '../../src/core/ids.js';
import { decodeSecretKey, SecretBox } from '../../src/store/secret-box.js';
import { readOrCreateSecret } from '../../src/lib/secret-file.js';
import { loadSecretBox } from '../../src/store/secret-key.js';

const box = () => new SecretBox(randomBytes(32), 'test');

describe('SecretBox', () => {
  it('seals so that only the same key and user_id open it, and never shows the key', () => {
    const b = box();
    const [key, userId] = [newApiKey(), newUserId()];
    const sealed = b.seal(key, userId);
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(key.slice(3));
    expect(b.seal(key, userId)).not.toBe(sealed); // a fresh IV each time
    expect(b.open(sealed, userId)).toBe(key);
    expect(() => b.open(sealed, newUserId())).toThrow();
    expect(() => box().open(sealed, userId)).toThrow();
    // One character inside the sealed bytes changed for another (never the same one, never the last, whose
    // low bits may be padding): the old edit set the next-to-last to 'A' or 'B' by the last one, and left
    // the text as it was when it already held that letter (1 run in 64).
    const at = Math.floor(sealed.length / 2);
    const altered = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
    expect(altered).not.toBe(sealed);
    expect(() => b.open(altered, userId)).toThrow();
  });

  it('hashes with a key: 32 bytes whatever the input, different under another key', () => {
    const b = box();
    expect(b.mac('x'.repeat(5000))).toHaveLength(32);
    expect(b.mac('rk_a').equals(b.mac('rk_a'))).toBe(true);
    expect(b.mac('rk_a').equals(box().mac('rk_a'))).toBe(false);
  });

  it('recognizes its own fingerprint only', () => {
    const key = randomBytes(32);
    expect(new SecretBox(key, 'a').hasFingerprint(new SecretBox(Buffer.from(key), 'b').fingerprint)).toBe(true);
    expect(new SecretBox(key, 'a').hasFingerprint(box().fingerprint)).toBe(false);
    expect(() => new SecretBox(randomBytes(16), 'short')).toThrow(/32 bytes/);
  });
});

describe('decodeSecretKey', () => {
  const key = randomBytes(32);
  it.each([key.toString('hex'), key.toString('hex').toUpperCase(), key.toString('base64'), key.toString('base64url')])(
    'reads %s',
    (text) => {
      expect(decodeSecretKey(text)?.equals(key)).toBe(true);
    },
  );
  it.each(['', 'abc', key.toString('hex').slice(2), randomBytes(31).toString('base64'), 'x'.repeat(64)])(
    'refuses %j',
    (text) => {
      expect(decodeSecretKey(text)).toBeNull();
    },
  );
});

describe('the key file', () => {
  it('is made once, 0600, and read back the same by every later start', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-key-'));
    const first = loadSecretBox({ dataDir: dir, secretKey: undefined });
    const file = path.join(dir, 'api-keys.secret');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(first.source).toMatch(/made just now/);
    const again = loadSecretBox({ dataDir: dir, secretKey: undefined });
    expect(again.source).toBe(file);
    expect(again.hasFingerprint(first.fingerprint)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['api-keys.secret']);
  });

  it('takes RINGHOOK_SECRET_KEY instead, and then writes no file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-key-'));
    const key = randomBytes(32);
    const b = loadSecretBox({ dataDir: dir, secretKey: key });
    expect(b.source).toBe('RINGHOOK_SECRET_KEY');
    expect(b.hasFingerprint(new SecretBox(key, 'x').fingerprint)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('refuses a damaged key file with its name', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-key-'));
    fs.writeFileSync(path.join(dir, 'api-keys.secret'), 'not a key\n');
    expect(() => loadSecretBox({ dataDir: dir, secretKey: undefined })).toThrow(
      /api-keys\.secret is not a ringhook secret key/,
    );
  });

  it("keeps the first writer's secret when another one was there first", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-key-'));
    const made = readOrCreateSecret(dir, 'x', 32);
    expect(made.created).toBe(true);
    expect(readOrCreateSecret(dir, 'x', 32)).toEqual({ ...made, created: false });
  });
});
