// Configuration from environment variables, validated once at start. Each variable has a named,
// commented default and every error says how to fix the value. Nothing here runs at import time.
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { UserError } from './errors.js';
import { parseAddressList, type AddressMatcher } from './http/address-match.js';

/** HTTPS port: 8443 so that no root privilege is needed; put 443 in front with a proxy or a port forward. */
export const DEFAULT_PORT = 8443;
/** Listen on every IPv4 interface: the charting platform must reach the webhook from the internet. */
export const DEFAULT_HOST = '0.0.0.0';
export const DEFAULT_DATA_DIR = './data';

type Env = Record<string, string | undefined>;

const port = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a port number` })
    .int({ error: `${name} must be a whole number between 1 and 65535` })
    .min(0, { error: `${name} must be between 1 and 65535` })
    .max(65535, { error: `${name} must be between 1 and 65535` });

const onOff = (name: string) =>
  z
    .string()
    .transform((v) => v.trim().toLowerCase())
    .pipe(z.enum(['on', 'off', 'true', 'false', '1', '0', 'yes', 'no'], { error: `${name} must be on or off` }))
    .transform((v) => ['on', 'true', '1', 'yes'].includes(v));

const envSchema = z
  .object({
    RINGHOOK_DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
    RINGHOOK_HOST: z
      .string()
      .refine((h) => isIP(h) !== 0 || /^[a-zA-Z0-9.-]+$/.test(h), { error: 'RINGHOOK_HOST must be an IP address or a host name, e.g. 0.0.0.0 or 127.0.0.1' })
      .default(DEFAULT_HOST),
    RINGHOOK_PORT: port('RINGHOOK_PORT').default(DEFAULT_PORT),
    RINGHOOK_TLS_CERT: z.string().min(1).optional(),
    RINGHOOK_TLS_KEY: z.string().min(1).optional(),
    RINGHOOK_HTTP_PORT: port('RINGHOOK_HTTP_PORT').optional(),
    RINGHOOK_TRUST_PROXY: z.string().optional(),
    RINGHOOK_PUBLIC_URL: z
      .url({ protocol: /^https?$/, error: 'RINGHOOK_PUBLIC_URL must be an absolute URL such as https://alerts.example.com' })
      .optional(),
    RINGHOOK_ARI_URL: z.url({ protocol: /^https?$/, error: 'RINGHOOK_ARI_URL must be the http(s) URL of Asterisk\'s HTTP server, e.g. http://127.0.0.1:8088' }).optional(),
    RINGHOOK_ARI_USER: z.string().min(1).optional(),
    RINGHOOK_ARI_PASSWORD: z.string().min(1).optional(),
    RINGHOOK_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error'], { error: 'RINGHOOK_LOG_LEVEL must be debug, info, warn or error' }).default('info'),
    RINGHOOK_DB_SYNC: z.enum(['normal', 'full'], { error: 'RINGHOOK_DB_SYNC must be normal or full' }).default('full'),
    RINGHOOK_SELF_SIGNED: onOff('RINGHOOK_SELF_SIGNED').default(true),
  })
  .superRefine((env, ctx) => {
    if (Boolean(env.RINGHOOK_TLS_CERT) !== Boolean(env.RINGHOOK_TLS_KEY)) {
      ctx.addIssue({ code: 'custom', path: ['RINGHOOK_TLS_CERT'], message: 'RINGHOOK_TLS_CERT and RINGHOOK_TLS_KEY go together: set both (PEM files) or neither (a self-signed certificate is made)' });
    }
    if (env.RINGHOOK_ARI_URL && !(env.RINGHOOK_ARI_USER && env.RINGHOOK_ARI_PASSWORD)) {
      ctx.addIssue({ code: 'custom', path: ['RINGHOOK_ARI_USER'], message: 'RINGHOOK_ARI_URL points at an external Asterisk: set RINGHOOK_ARI_USER and RINGHOOK_ARI_PASSWORD to the ari.conf user too' });
    }
    if (env.RINGHOOK_HTTP_PORT !== undefined && env.RINGHOOK_HTTP_PORT === env.RINGHOOK_PORT && env.RINGHOOK_PORT !== 0) {
      ctx.addIssue({ code: 'custom', path: ['RINGHOOK_HTTP_PORT'], message: 'RINGHOOK_HTTP_PORT must differ from RINGHOOK_PORT' });
    }
  });

export interface Config {
  dataDir: string;
  dbFile: string;
  host: string;
  port: number;
  tls: { cert: string; key: string } | null;
  httpPort: number | null;
  trustProxy: AddressMatcher;
  trustProxyText: string;
  /** Base of the webhook URLs shown to owners, without a trailing slash. */
  publicUrl: string;
  publicUrlConfigured: boolean;
  ari: { url: string; user: string; password: string } | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  dbSync: 'normal' | 'full';
}

function describeIssue(issue: z.core.$ZodIssue, env: Env): string {
  const name = String(issue.path[0] ?? 'configuration');
  const value = env[name];
  const got = value === undefined ? '' : ` (got ${JSON.stringify(value.length > 60 ? value.slice(0, 60) + '…' : value)})`;
  const text = issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`;
  return text + got;
}

/** Reads and validates the configuration; throws a UserError listing every bad variable and its fix. */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const emptyAsUnset = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('RINGHOOK_') && v !== ''));
  const result = envSchema.safeParse(emptyAsUnset);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  - ${describeIssue(issue, env)}`);
    throw new UserError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = result.data;
  let trustProxy: AddressMatcher;
  try {
    trustProxy = parseAddressList(e.RINGHOOK_TRUST_PROXY ?? '');
  } catch (error) {
    throw new UserError(`invalid configuration:\n  - RINGHOOK_TRUST_PROXY: ${(error as Error).message}; use comma-separated addresses or CIDRs, e.g. 127.0.0.1,10.0.0.0/8`);
  }
  const dataDir = path.resolve(cwd, e.RINGHOOK_DATA_DIR);
  const shownHost = e.RINGHOOK_HOST === '0.0.0.0' || e.RINGHOOK_HOST === '::' ? 'localhost' : e.RINGHOOK_HOST;
  const hostForUrl = isIP(shownHost) === 6 ? `[${shownHost}]` : shownHost;
  const publicUrl = (e.RINGHOOK_PUBLIC_URL ?? `https://${hostForUrl}:${e.RINGHOOK_PORT}`).replace(/\/+$/, '');
  return {
    dataDir,
    dbFile: path.join(dataDir, 'ringhook.db'),
    host: e.RINGHOOK_HOST,
    port: e.RINGHOOK_PORT,
    tls: e.RINGHOOK_TLS_CERT && e.RINGHOOK_TLS_KEY ? { cert: path.resolve(cwd, e.RINGHOOK_TLS_CERT), key: path.resolve(cwd, e.RINGHOOK_TLS_KEY) } : null,
    httpPort: e.RINGHOOK_HTTP_PORT ?? null,
    trustProxy,
    trustProxyText: e.RINGHOOK_TRUST_PROXY ?? '',
    publicUrl,
    publicUrlConfigured: e.RINGHOOK_PUBLIC_URL !== undefined,
    ari: e.RINGHOOK_ARI_URL ? { url: e.RINGHOOK_ARI_URL.replace(/\/+$/, ''), user: e.RINGHOOK_ARI_USER!, password: e.RINGHOOK_ARI_PASSWORD! } : null,
    logLevel: e.RINGHOOK_LOG_LEVEL,
    dbSync: e.RINGHOOK_DB_SYNC,
  };
}
