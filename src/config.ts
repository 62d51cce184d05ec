// Configuration from environment variables, validated once at start. Each variable has a named,
// commented default and every error says how to fix the value. Nothing here runs at import time.
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { decodeSecretKey } from './db/secret-box.js';
import { UserError } from './errors.js';
import { RESERVED_SECTIONS } from './pbx/asterisk-config.js';
import { parseAddressList, type AddressMatcher } from './http/address-match.js';
import { parseSmsConfig, SmsConfigError, type SmsConfig } from './sms/index.js';

/** HTTPS port: 8443 so that no root privilege is needed; put 443 in front with a proxy or a port forward. */
export const DEFAULT_PORT = 8443;
/** Listen on every IPv4 interface: the charting platform must reach the webhook from the internet. */
export const DEFAULT_HOST = '0.0.0.0';
export const DEFAULT_DATA_DIR = './data';
/** Seconds a phone rings before the call counts as not answered. */
export const DEFAULT_RING_TIMEOUT = 30;
/** Simultaneous calls; more wait in the queue. A home line or a small trunk seldom allows more. */
export const DEFAULT_MAX_CALLS = 10;
/** Seconds a queued call stays worth placing (after a restart, or while Asterisk is down). */
export const DEFAULT_CALL_FRESHNESS = 300;
/** SIP listens on every interface so that a softphone on the LAN can register. */
export const DEFAULT_SIP_HOST = '0.0.0.0';
export const DEFAULT_SIP_PORT = 5060;
/** The managed Asterisk's HTTP/ARI port, on 127.0.0.1 only. */
export const DEFAULT_ARI_PORT = 8088;

type Env = Record<string, string | undefined>;

/** A port: digits only, 1 to 65535; 0 asks the system for a free one (used by tests). */
const port = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, { error: `${name} must be a port number` })
    .transform(Number)
    .pipe(z.number().max(65535, { error: `${name} must be between 1 and 65535` }));

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
      .refine((u) => !u.includes('?') && !u.includes('#'), { error: 'RINGHOOK_PUBLIC_URL must not have a query (?) or fragment (#): webhook paths are appended to it' })
      .optional(),
    RINGHOOK_ARI_URL: z.url({ protocol: /^https?$/, error: 'RINGHOOK_ARI_URL must be the http(s) URL of Asterisk\'s HTTP server, e.g. http://127.0.0.1:8088' }).optional(),
    RINGHOOK_ARI_USER: z.string().min(1).optional(),
    RINGHOOK_ARI_PASSWORD: z.string().min(1).optional(),
    RINGHOOK_TELEPHONY: z.enum(['managed', 'external', 'off'], { error: 'RINGHOOK_TELEPHONY must be managed (ringhook runs Asterisk), external (RINGHOOK_ARI_URL) or off (accept alerts, place no calls)' }).optional(),
    RINGHOOK_TRUNK_URI: z
      .string()
      .regex(/^sips?:(?:[^@\s;]+@)?(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?(?:;[A-Za-z0-9=._-]+)*$/, { error: 'RINGHOOK_TRUNK_URI must look like sip:host[:port], e.g. sip:sip.provider.example:5060' })
      .optional(),
    RINGHOOK_TRUNK_USERNAME: z.string().regex(/^[^\s;[\]"\\{}]+$/, { error: 'RINGHOOK_TRUNK_USERNAME must not contain spaces, quotes, ; [ ] { } or backslashes' }).optional(),
    RINGHOOK_TRUNK_PASSWORD: z.string().regex(/^[^\s;[\]"\\{}]+$/, { error: 'RINGHOOK_TRUNK_PASSWORD must not contain spaces, quotes, ; [ ] { } or backslashes' }).optional(),
    RINGHOOK_TRUNK_REGISTER: onOff('RINGHOOK_TRUNK_REGISTER').default(false),
    RINGHOOK_CALLER_ID: z.string().regex(/^(?:"[^"\n]{0,40}" ?)?<?\+?[0-9A-Za-z*#]{1,32}>?$/, { error: 'RINGHOOK_CALLER_ID must be a number such as +14155550123, optionally with a name: "Alerts" <+14155550123>' }).optional(),
    RINGHOOK_RING_TIMEOUT: z.coerce.number({ error: 'RINGHOOK_RING_TIMEOUT must be a number of seconds' }).int({ error: 'RINGHOOK_RING_TIMEOUT must be whole seconds' }).min(5, { error: 'RINGHOOK_RING_TIMEOUT must be between 5 and 120 seconds' }).max(120, { error: 'RINGHOOK_RING_TIMEOUT must be between 5 and 120 seconds' }).default(DEFAULT_RING_TIMEOUT),
    RINGHOOK_MAX_CALLS: z.coerce.number({ error: 'RINGHOOK_MAX_CALLS must be a number' }).int({ error: 'RINGHOOK_MAX_CALLS must be a whole number' }).min(1, { error: 'RINGHOOK_MAX_CALLS must be between 1 and 500' }).max(500, { error: 'RINGHOOK_MAX_CALLS must be between 1 and 500' }).default(DEFAULT_MAX_CALLS),
    RINGHOOK_CALL_FRESHNESS: z.coerce.number({ error: 'RINGHOOK_CALL_FRESHNESS must be a number of seconds' }).int().min(10, { error: 'RINGHOOK_CALL_FRESHNESS must be at least 10 seconds' }).max(86_400, { error: 'RINGHOOK_CALL_FRESHNESS must be at most 86400 seconds' }).default(DEFAULT_CALL_FRESHNESS),
    RINGHOOK_TTS_ENGINE: z.enum(['flite', 'espeak-ng'], { error: 'RINGHOOK_TTS_ENGINE must be flite or espeak-ng' }).default('flite'),
    RINGHOOK_VOICE: z.string().regex(/^[A-Za-z0-9_.+][A-Za-z0-9_./+-]{0,99}$/, { error: 'RINGHOOK_VOICE must be a voice name such as slt (flite) or en-us (espeak-ng)' }).optional(),
    RINGHOOK_TTS_COMMAND: z.string().regex(/^[^\u0000-\u001f\u007f]{1,2000}$/, { error: 'RINGHOOK_TTS_COMMAND must be one line (at most 2000 characters): a command that reads the text on stdin and writes a WAV on stdout' }).optional(),
    RINGHOOK_SIP_HOST: z.ipv4({ error: 'RINGHOOK_SIP_HOST must be an IPv4 address, e.g. 0.0.0.0 or 127.0.0.1' }).default(DEFAULT_SIP_HOST),
    RINGHOOK_SIP_PORT: port('RINGHOOK_SIP_PORT').default(DEFAULT_SIP_PORT),
    RINGHOOK_ARI_PORT: port('RINGHOOK_ARI_PORT').default(DEFAULT_ARI_PORT),
    RINGHOOK_RTP_PORTS: z.string().regex(/^\d{4,5}-\d{4,5}$/, { error: 'RINGHOOK_RTP_PORTS must be a range such as 10000-20000' }).default('10000-20000'),
    RINGHOOK_SOFTPHONE_USER: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: 'RINGHOOK_SOFTPHONE_USER may contain letters, digits, _ . and - only' })
      .refine((name) => !RESERVED_SECTIONS.has(name), { error: `RINGHOOK_SOFTPHONE_USER must not be ${[...RESERVED_SECTIONS].join(', ')} (names Asterisk's configuration uses)` })
      .default('ringhook'),
    RINGHOOK_SOFTPHONE_PASSWORD: z.string().regex(/^[^\s;[\]"\\{}]{8,64}$/, { error: 'RINGHOOK_SOFTPHONE_PASSWORD must be 8 to 64 characters without spaces, quotes, ; [ ] { } or backslashes' }).optional(),
    RINGHOOK_CACHE_DIR: z.string().min(1).optional(),
    RINGHOOK_MEDIA_DIR: z.string().min(1).optional(),
    RINGHOOK_METRICS_TOKEN: z.string().min(16, { error: 'RINGHOOK_METRICS_TOKEN must be at least 16 characters' }).optional(),
    RINGHOOK_SECRET_KEY: z
      .string()
      .transform((text, ctx) => decodeSecretKey(text.trim()) ?? (ctx.addIssue({ code: 'custom', message: 'RINGHOOK_SECRET_KEY must be 32 bytes written as 64 hex characters or base64, e.g. from: openssl rand -hex 32' }), z.NEVER))
      .optional(),
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
    if (env.RINGHOOK_TELEPHONY === 'external' && !env.RINGHOOK_ARI_URL) {
      ctx.addIssue({ code: 'custom', path: ['RINGHOOK_TELEPHONY'], message: 'RINGHOOK_TELEPHONY=external needs RINGHOOK_ARI_URL, RINGHOOK_ARI_USER and RINGHOOK_ARI_PASSWORD' });
    }
    if (Boolean(env.RINGHOOK_TRUNK_USERNAME) !== Boolean(env.RINGHOOK_TRUNK_PASSWORD)) {
      ctx.addIssue({ code: 'custom', path: ['RINGHOOK_TRUNK_USERNAME'], message: 'RINGHOOK_TRUNK_USERNAME and RINGHOOK_TRUNK_PASSWORD go together' });
    }
    if (env.RINGHOOK_TRUNK_REGISTER && !env.RINGHOOK_TRUNK_USERNAME) {
      ctx.addIssue({ code: 'custom', path: ['RINGHOOK_TRUNK_REGISTER'], message: 'RINGHOOK_TRUNK_REGISTER=on needs RINGHOOK_TRUNK_USERNAME and RINGHOOK_TRUNK_PASSWORD' });
    }
    const [rtpStart = 0, rtpEnd = 0] = env.RINGHOOK_RTP_PORTS.split('-').map(Number);
    if (rtpStart < 1024 || rtpEnd > 65535 || rtpEnd <= rtpStart) {
      ctx.addIssue({ code: 'custom', path: ['RINGHOOK_RTP_PORTS'], message: 'RINGHOOK_RTP_PORTS must be a range of ports above 1023, low-high, e.g. 10000-20000' });
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
  /** May a self-signed certificate be made when none is configured? */
  selfSigned: boolean;
  ari: { url: string; user: string; password: string } | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  dbSync: 'normal' | 'full';
  telephony: TelephonyConfig;
  sms: SmsConfig;
  /** When set, GET /metrics wants "Authorization: Bearer <token>". */
  metricsToken: string | undefined;
  /** Seals the api_keys at rest; unset: a key file in the data dir (see secret-key.ts). */
  secretKey: Buffer | undefined;
}

export interface TelephonyConfig {
  mode: 'managed' | 'external' | 'off';
  trunk: { uri: string; username?: string; password?: string; register: boolean } | null;
  callerId: string | undefined;
  ringTimeoutSec: number;
  maxCalls: number;
  freshnessMs: number;
  /** command: the operator's own engine, run through /bin/sh; engine and voice are its fallback. */
  tts: { engine: 'flite' | 'espeak-ng'; voice: string | undefined; command: string | undefined };
  sip: { host: string; port: number };
  ariPort: number;
  rtp: { start: number; end: number };
  softphone: { username: string; password: string | undefined };
  /** Where provisioning caches the Asterisk root file system. */
  cacheDir: string;
  /** Where speech is written; Asterisk must see it at the same path (shared with an external Asterisk). */
  mediaDir: string | undefined;
}

/** Never repeated in an error message. */
const SECRET_VARIABLES = new Set(['RINGHOOK_SECRET_KEY']);

function describeIssue(issue: z.core.$ZodIssue, env: Env): string {
  const name = String(issue.path[0] ?? 'configuration');
  const value = SECRET_VARIABLES.has(name) ? undefined : env[name];
  const got = value === undefined ? '' : ` (got ${JSON.stringify(value.length > 60 ? value.slice(0, 60) + '…' : value)})`;
  const text = issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`;
  return text + got;
}

/** Reads and validates the configuration; throws a UserError listing every bad variable and its fix. */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  // A variable set to nothing (or only blanks) counts as unset.
  const emptyAsUnset = Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('RINGHOOK_') && v !== undefined && v.trim() !== ''));
  const result = envSchema.safeParse(emptyAsUnset);
  const problems = result.success ? [] : result.error.issues.map((issue) => describeIssue(issue, env));
  let sms: SmsConfig | undefined;
  try {
    sms = parseSmsConfig(emptyAsUnset);
  } catch (error) {
    if (!(error instanceof SmsConfigError)) throw error;
    problems.push(...error.problems.map((p) => (p.message.startsWith(p.variable) ? p.message : `${p.variable}: ${p.message}`)));
  }
  if (!result.success || !sms || problems.length > 0) {
    throw new UserError(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
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
    selfSigned: e.RINGHOOK_SELF_SIGNED,
    ari: e.RINGHOOK_ARI_URL ? { url: e.RINGHOOK_ARI_URL.replace(/\/+$/, ''), user: e.RINGHOOK_ARI_USER!, password: e.RINGHOOK_ARI_PASSWORD! } : null,
    logLevel: e.RINGHOOK_LOG_LEVEL,
    dbSync: e.RINGHOOK_DB_SYNC,
    telephony: telephonyConfig(e, cwd, env.HOME),
    metricsToken: e.RINGHOOK_METRICS_TOKEN,
    secretKey: e.RINGHOOK_SECRET_KEY,
    sms,
  };
}

function telephonyConfig(e: z.output<typeof envSchema>, cwd: string, home: string | undefined): TelephonyConfig {
  const [start, end] = e.RINGHOOK_RTP_PORTS.split('-').map(Number) as [number, number];
  return {
    mode: e.RINGHOOK_TELEPHONY ?? (e.RINGHOOK_ARI_URL ? 'external' : 'managed'),
    trunk: e.RINGHOOK_TRUNK_URI
      ? {
          uri: e.RINGHOOK_TRUNK_URI,
          ...(e.RINGHOOK_TRUNK_USERNAME && { username: e.RINGHOOK_TRUNK_USERNAME, password: e.RINGHOOK_TRUNK_PASSWORD! }),
          register: e.RINGHOOK_TRUNK_REGISTER,
        }
      : null,
    callerId: e.RINGHOOK_CALLER_ID,
    ringTimeoutSec: e.RINGHOOK_RING_TIMEOUT,
    maxCalls: e.RINGHOOK_MAX_CALLS,
    freshnessMs: e.RINGHOOK_CALL_FRESHNESS * 1000,
    tts: { engine: e.RINGHOOK_TTS_ENGINE, voice: e.RINGHOOK_VOICE, command: e.RINGHOOK_TTS_COMMAND },
    sip: { host: e.RINGHOOK_SIP_HOST, port: e.RINGHOOK_SIP_PORT },
    ariPort: e.RINGHOOK_ARI_PORT,
    rtp: { start, end },
    softphone: { username: e.RINGHOOK_SOFTPHONE_USER, password: e.RINGHOOK_SOFTPHONE_PASSWORD },
    cacheDir: path.resolve(cwd, e.RINGHOOK_CACHE_DIR ?? path.join(home ?? '/root', '.cache', 'ringhook')),
    mediaDir: e.RINGHOOK_MEDIA_DIR ? path.resolve(cwd, e.RINGHOOK_MEDIA_DIR) : undefined,
  };
}
