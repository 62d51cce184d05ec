// One certificate order through acme-client (a maintained ACME library: RFC 8555, the account, the
// order, the challenges, the finalization): the account key from the data dir, the HTTP-01 answers
// handed to the store so that whichever node the authority reaches can give them.
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import * as acme from 'acme-client';
import type { AcmeConfig } from '../../config/index.js';
import type { ChallengeType } from '../../core/server/acme.js';
import type { StoredCertificate } from '../../core/server/certificate.js';
import type { CertificateRepo } from '../../store/index.js';
import { UserError } from '../../lib/errors.js';

/** A challenge left pending is given up on after this long. */
const CHALLENGE_TTL_MS = 60 * 60_000;

export function acmeDir(dataDir: string): string {
  return path.join(dataDir, 'acme');
}

function writePrivate(file: string, text: string, mode: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode });
  fs.chmodSync(tmp, mode);
  fs.renameSync(tmp, file);
}

/** The account's key (made once, 0600): the authority knows this node's account by it. */
async function accountKey(dataDir: string): Promise<string> {
  const file = path.join(acmeDir(dataDir), 'account-key.pem');
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = (await acme.crypto.createPrivateEcdsaKey('P-256')).toString();
  writePrivate(file, key, 0o600);
  return key;
}

/** The certificate in the data dir as well, for the operator (the key 0600). */
export function writeCertificateFiles(dataDir: string, certificate: StoredCertificate): void {
  writePrivate(path.join(acmeDir(dataDir), 'key.pem'), certificate.keyPem, 0o600);
  writePrivate(path.join(acmeDir(dataDir), 'cert.pem'), certificate.certPem, 0o644);
}

/** The names and dates of a PEM chain's first certificate. */
export function readCertificate(certPem: string): { names: string[]; notBefore: number; notAfter: number } {
  const first = new X509Certificate(certPem);
  const names = (first.subjectAltName ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n.startsWith('DNS:'))
    .map((n) => n.slice(4));
  return { names, notBefore: Date.parse(first.validFrom), notAfter: Date.parse(first.validTo) };
}

/** The library's HTTP client: the authorities trusted, and short retries (ringhook backs off by itself, core/server/acme). */
function configureHttp(caFile: string | undefined): void {
  const defaults = acme.axios.defaults as typeof acme.axios.defaults & { acmeSettings: Record<string, number> };
  defaults.acmeSettings = { ...defaults.acmeSettings, retryMaxAttempts: 2, retryDefaultDelay: 1 };
  if (!caFile) {
    acme.axios.defaults.httpsAgent = undefined;
    return;
  }
  let pem: string;
  try {
    pem = fs.readFileSync(caFile, 'utf8');
  } catch (error) {
    throw new UserError(
      `cannot read RINGHOOK_ACME_CA_FILE ${caFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  acme.axios.defaults.httpsAgent = new https.Agent({ ca: [...rootCertificates, pem] });
}

/**
 * The client, its account registered once and its URL kept beside the key: later orders skip the
 * registration, whose repeat would be an "update" some authorities refuse as empty (Pebble does).
 */
async function accountClient(config: AcmeConfig, dataDir: string): Promise<acme.Client> {
  const urlFile = path.join(acmeDir(dataDir), 'account-url.json');
  const key = await accountKey(dataDir);
  let known: string | undefined;
  try {
    const saved = JSON.parse(fs.readFileSync(urlFile, 'utf8')) as { directory?: unknown; url?: unknown };
    if (saved.directory === config.directory && typeof saved.url === 'string') known = saved.url;
  } catch {
    known = undefined;
  }
  const options = {
    directoryUrl: config.directory,
    accountKey: key,
    backoffAttempts: 10,
    backoffMin: 1000,
    backoffMax: 10_000,
  };
  const client = new acme.Client({ ...options, ...(known && { accountUrl: known }) });
  if (!known) {
    await client.createAccount({
      termsOfServiceAgreed: true,
      ...(config.email && { contact: [`mailto:${config.email}`] }),
    });
    writePrivate(urlFile, `${JSON.stringify({ directory: config.directory, url: client.getAccountUrl() })}\n`, 0o600);
  }
  return client;
}

export interface OrderDeps {
  config: AcmeConfig;
  dataDir: string;
  store: CertificateRepo;
  challenges: ChallengeType[];
  now: () => number;
}

/**
 * The directory fetched first, by Node itself: a down or untrusted authority fails here with its
 * own code (acme-client's retry wrapper loses the network error's code once it gives up).
 */
function reachDirectory(directory: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const agent = acme.axios.defaults.httpsAgent as https.Agent | undefined;
    const req = https.get(directory, { ...(agent && { agent }), timeout: 10_000 }, (res) => {
      res.resume();
      if (res.statusCode === 200) resolve();
      else reject(new Error(`the ACME directory returned HTTP ${res.statusCode}: ${directory}`));
    });
    req.on('timeout', () =>
      req.destroy(Object.assign(new Error(`no answer from ${directory} within 10 s`), { code: 'ETIMEDOUT' })),
    );
    req.on('error', reject);
  });
}

/** acme-client's retry wrapper turns a connection lost mid-order into a TypeError about `status`. */
export function plainOrderError(error: unknown): Error & { code?: string } {
  if (error instanceof TypeError && /reading 'status'/.test(error.message)) {
    return Object.assign(new Error('the connection to the ACME authority failed during the order'), {
      code: 'ECONNRESET',
    });
  }
  return error as Error & { code?: string };
}

/** Orders a certificate for the configured names; throws the authority's (or the network's) error. */
export async function orderCertificate({
  config,
  dataDir,
  store,
  challenges,
  now,
}: OrderDeps): Promise<StoredCertificate> {
  if (challenges.length === 0)
    throw new UserError(
      'no challenge can be answered: the plain-HTTP port (RINGHOOK_HTTP_PORT, default 80) is needed for HTTP-01',
    );
  configureHttp(config.caFile);
  await reachDirectory(config.directory);
  const client = await accountClient(config, dataDir);
  const [key, csr] = await acme.crypto.createCsr(
    { commonName: config.domains[0]!, altNames: config.domains },
    await acme.crypto.createPrivateRsaKey(2048),
  );
  const certPem = await client.auto({
    csr,
    ...(config.email && { email: config.email }),
    termsOfServiceAgreed: true,
    challengePriority: challenges,
    // The authority checks; a check of our own fails behind routers without hairpin NAT.
    skipChallengeVerification: true,
    challengeCreateFn: (_authz, challenge, keyAuthorization) =>
      store.putChallenge(challenge.token, keyAuthorization, now() + CHALLENGE_TTL_MS),
    challengeRemoveFn: (_authz, challenge) => store.deleteChallenge(challenge.token),
  });
  const info = readCertificate(certPem);
  return {
    names: config.domains,
    certPem,
    keyPem: key.toString(),
    notBefore: info.notBefore,
    notAfter: info.notAfter,
    obtainedAt: now(),
  };
}
