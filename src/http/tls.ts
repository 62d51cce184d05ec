// The certificate for the HTTPS listener: the operator's files, or a self-signed one made once
// (self-signed.ts) and kept in the data dir so that it survives restarts.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../lib/errors.js';

export interface TlsMaterial {
  cert: string;
  key: string;
}

export function selfSignedPaths(dataDir: string): { cert: string; key: string } {
  return {
    cert: path.join(dataDir, 'tls', 'self-signed-cert.pem'),
    key: path.join(dataDir, 'tls', 'self-signed-key.pem'),
  };
}

function readPem(file: string, what: string, variable: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UserError(
      `cannot read the TLS ${what} ${file} (${variable}): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  if (!text.includes('-----BEGIN ')) throw new UserError(`the TLS ${what} ${file} (${variable}) is not a PEM file`);
  return text;
}

/** The configured certificate, the saved self-signed one, or null when one must be generated. */
export function loadTls(
  configured: { cert: string; key: string } | null,
  dataDir: string,
): { material: TlsMaterial; selfSigned: boolean } | null {
  if (configured) {
    return {
      material: {
        cert: readPem(configured.cert, 'certificate', 'RINGHOOK_TLS_CERT'),
        key: readPem(configured.key, 'key', 'RINGHOOK_TLS_KEY'),
      },
      selfSigned: false,
    };
  }
  const saved = selfSignedPaths(dataDir);
  if (fs.existsSync(saved.cert) && fs.existsSync(saved.key)) {
    return {
      material: { cert: fs.readFileSync(saved.cert, 'utf8'), key: fs.readFileSync(saved.key, 'utf8') },
      selfSigned: true,
    };
  }
  return null;
}

export function saveSelfSigned(dataDir: string, material: TlsMaterial): void {
  const target = selfSignedPaths(dataDir);
  fs.mkdirSync(path.dirname(target.cert), { recursive: true, mode: 0o700 });
  for (const [file, text] of [
    [target.key, material.key],
    [target.cert, material.cert],
  ] as const) {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text, { mode: 0o600 });
    fs.renameSync(tmp, file);
  }
}
