// Configuration from environment variables, validated once at start: one schema for every
// variable (the SMS gateway's come from config/sms), their defaults in config/defaults, every
// problem listed at once with the variable, the value and the fix. Nothing runs at import time.
import fs from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { parseDatabaseUrl } from '../core/database-url.js';
import { DEFAULTS } from './defaults.js';
import { type DataDirOrigin, findDataDir } from './data-dir.js';
import { inSingleExecutable, repoRoot } from '../lib/assets.js';
import { describeIssue, onOff, port, presentVariables, unknownVariables, type Env } from './rules.js';
import { decodeSecretKey } from './rules.js';
import { UserError } from '../lib/errors.js';
import { parseAddressList, type AddressMatcher } from '../core/address-match.js';
import { parseSourceRule, type SourceRule } from '../core/webhook-sources.js';
import { checkSmsVariables, smsConfigFrom, smsFields, type SmsConfig } from './sms.js';
import { transportConfigFrom, transportFields, type TransportConfig } from './transport.js';
import {
  FLITE_LISTED_VOICES,
  telephonyConfig,
  telephonyFields,
  trunkTransport,
  type TelephonyConfig,
} from './telephony.js';

import { ACME_DEFAULTS, acmeConfigFrom, acmeFields, checkAcmeVariables, type AcmeConfig } from './acme.js';

export type { MediaEncryption, SipTransport, TelephonyConfig, TrunkConfig } from './telephony.js';

/** Every variable ringhook reads, with its rule: the one schema (config/docs.ts renders the reference from it). */
export const envSchema = z
  .object({
    RINGHOOK_DATA_DIR: z
      .string()
      .min(1, { error: 'RINGHOOK_DATA_DIR must be a folder, e.g. /var/lib/ringhook' })
      .optional(),
    RINGHOOK_HOST: z
      .string()
      .refine((h) => isIP(h) !== 0 || /^[a-zA-Z0-9.-]+$/.test(h), {
        error: 'RINGHOOK_HOST must be an IP address or a host name, e.g. 0.0.0.0 or 127.0.0.1',
      })
      .default(DEFAULTS.host),
    RINGHOOK_PORT: port('RINGHOOK_PORT', { anyFree: true }).optional(),
    RINGHOOK_TLS_CERT: z.string().optional(),
    RINGHOOK_TLS_KEY: z.string().optional(),
    RINGHOOK_HTTP_PORT: port('RINGHOOK_HTTP_PORT', { anyFree: true }).optional(),
    RINGHOOK_TRUST_PROXY: z.string().optional(),
    /** Who may send alerts to any account: "any" (default), "tradingview" (its four published addresses) or addresses/CIDRs. */
    RINGHOOK_WEBHOOK_SOURCES: z.string().optional(),
    /** Address ranges status callbacks may reach although private, loopback or link-local (SSRF rule). */
    RINGHOOK_CALLBACK_ALLOW: z.string().optional(),
    RINGHOOK_PUBLIC_URL: z
      .url({
        protocol: /^https?$/,
        error: 'RINGHOOK_PUBLIC_URL must be an absolute URL such as https://alerts.example.com',
      })
      .refine((u) => !u.includes('?') && !u.includes('#'), {
        error: 'RINGHOOK_PUBLIC_URL must not have a query (?) or fragment (#): webhook paths are appended to it',
      })
      .optional(),
    ...telephonyFields,
    RINGHOOK_METRICS_TOKEN: z
      .string()
      .min(16, { error: 'RINGHOOK_METRICS_TOKEN must be at least 16 characters' })
      .optional(),
    RINGHOOK_SECRET_KEY: z
      .string()
      .transform((text, ctx) => {
        const key = decodeSecretKey(text.trim());
        if (key) return key;
        ctx.addIssue({
          code: 'custom',
          message:
            'RINGHOOK_SECRET_KEY must be 32 bytes written as 64 hex characters or base64, e.g. from: openssl rand -hex 32',
        });
        return z.NEVER;
      })
      .optional(),
    RINGHOOK_LOG_LEVEL: z
      .enum(['debug', 'info', 'warn', 'error'], { error: 'RINGHOOK_LOG_LEVEL must be debug, info, warn or error' })
      .default(DEFAULTS.logLevel),
    RINGHOOK_DB_SYNC: z
      .enum(['normal', 'full'], { error: 'RINGHOOK_DB_SYNC must be normal or full' })
      .default(DEFAULTS.dbSync),
    RINGHOOK_DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\/\S+$/, {
        error:
          'RINGHOOK_DATABASE_URL must be a PostgreSQL URL, postgres://user:password@host:5432/ringhook (unset: SQLite in the data dir)',
      })
      // Read here by the same reader the driver's options come from (core/database-url.ts).
      .superRefine((url, ctx) => {
        const parsed = parseDatabaseUrl(url);
        if (!parsed.ok) ctx.addIssue({ code: 'custom', message: `RINGHOOK_DATABASE_URL: ${parsed.error}` });
      })
      .optional(),
    RINGHOOK_NODE_ID: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, {
        error: 'RINGHOOK_NODE_ID must be 1 to 63 letters, digits, dots, dashes or underscores (unset: the host name)',
      })
      .optional(),
    RINGHOOK_NODE_TIMEOUT: z.coerce
      .number({ error: 'RINGHOOK_NODE_TIMEOUT must be a number of seconds' })
      .int({ error: 'RINGHOOK_NODE_TIMEOUT must be a whole number of seconds' })
      .min(3, { error: 'RINGHOOK_NODE_TIMEOUT must be at least 3 seconds (nodes say they are alive every second)' })
      .max(600, { error: 'RINGHOOK_NODE_TIMEOUT must be at most 600 seconds' })
      .default(DEFAULTS.nodeTimeoutSec),
    RINGHOOK_SELF_SIGNED: onOff('RINGHOOK_SELF_SIGNED').default(DEFAULTS.selfSigned),
    ...smsFields,
    ...transportFields,
    ...acmeFields,
  })
  .superRefine((env, ctx) => {
    if (Boolean(env.RINGHOOK_TLS_CERT) !== Boolean(env.RINGHOOK_TLS_KEY)) {
      ctx.addIssue({
        code: 'custom',
        path: ['RINGHOOK_TLS_CERT'],
        message:
          'RINGHOOK_TLS_CERT and RINGHOOK_TLS_KEY go together: set both (PEM files) or neither (a self-signed certificate is made)',
      });
    }
    if (env.RINGHOOK_ARI_URL && !(env.RINGHOOK_ARI_USER && env.RINGHOOK_ARI_PASSWORD)) {
      ctx.addIssue({
        code: 'custom',
        path: ['RINGHOOK_ARI_USER'],
        message:
          'RINGHOOK_ARI_URL points at an external Asterisk: set RINGHOOK_ARI_USER and RINGHOOK_ARI_PASSWORD to the ari.conf user too',
      });
    }
    // The bound counts from the originate: a call must be able to ring its whole time and then talk.
    if (env.RINGHOOK_MAX_CALL_SECONDS <= env.RINGHOOK_RING_TIMEOUT) {
      ctx.addIssue({
        code: 'custom',
        path: ['RINGHOOK_MAX_CALL_SECONDS'],
        message: `RINGHOOK_MAX_CALL_SECONDS (${env.RINGHOOK_MAX_CALL_SECONDS}) must be longer than RINGHOOK_RING_TIMEOUT (${env.RINGHOOK_RING_TIMEOUT}): it bounds the whole call, ring included`,
      });
    }
    if (env.RINGHOOK_TELEPHONY === 'external' && !env.RINGHOOK_ARI_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['RINGHOOK_TELEPHONY'],
        message: 'RINGHOOK_TELEPHONY=external needs RINGHOOK_ARI_URL, RINGHOOK_ARI_USER and RINGHOOK_ARI_PASSWORD',
      });
    }
    for (const t of ['RINGHOOK_TRUNK', 'RINGHOOK_TRUNK2'] as const) {
      if (Boolean(env[`${t}_USERNAME`]) !== Boolean(env[`${t}_PASSWORD`])) {
        ctx.addIssue({
          code: 'custom',
          path: [`${t}_USERNAME`],
          message: `${t}_USERNAME and ${t}_PASSWORD go together`,
        });
      }
      if (env[`${t}_REGISTER`] && !env[`${t}_USERNAME`]) {
        ctx.addIssue({
          code: 'custom',
          path: [`${t}_REGISTER`],
          message: `${t}_REGISTER=on needs ${t}_USERNAME and ${t}_PASSWORD`,
        });
      }
      const uri = env[`${t}_URI`];
      if (uri?.startsWith('sips:') && env[`${t}_TRANSPORT`] !== undefined && env[`${t}_TRANSPORT`] !== 'tls') {
        ctx.addIssue({
          code: 'custom',
          path: [`${t}_TRANSPORT`],
          message: `${t}_URI is a sips: URI, which means TLS: leave ${t}_TRANSPORT unset or tls`,
        });
      }
      if (uri && env[`${t}_MEDIA_ENCRYPTION`] === 'sdes' && trunkTransport(uri, env[`${t}_TRANSPORT`]) !== 'tls') {
        ctx.addIssue({
          code: 'custom',
          path: [`${t}_MEDIA_ENCRYPTION`],
          message: `${t}_MEDIA_ENCRYPTION=sdes sends the SRTP keys inside the SIP signalling: set ${t}_TRANSPORT=tls (or use dtls)`,
        });
      }
    }
    // flite speaks a voice it does not know in its default one, without a word.
    const voice = env.RINGHOOK_VOICE;
    if (
      env.RINGHOOK_TTS_ENGINE === 'flite' &&
      voice !== undefined &&
      !FLITE_LISTED_VOICES.includes(voice) &&
      !voice.endsWith('.flitevox')
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['RINGHOOK_VOICE'],
        message: `RINGHOOK_VOICE must be one of flite's voices, ${FLITE_LISTED_VOICES.join(', ')}, or a .flitevox file (for espeak-ng's voices set RINGHOOK_TTS_ENGINE=espeak-ng)`,
      });
    }
    if (env.RINGHOOK_TRUNK2_URI && !env.RINGHOOK_TRUNK_URI) {
      ctx.addIssue({
        code: 'custom',
        path: ['RINGHOOK_TRUNK2_URI'],
        message: 'RINGHOOK_TRUNK2_URI is the backup of RINGHOOK_TRUNK_URI: set the first trunk too',
      });
    }
    const [rtpStart = 0, rtpEnd = 0] = env.RINGHOOK_RTP_PORTS.split('-').map(Number);
    if (rtpStart < 1024 || rtpEnd > 65535 || rtpEnd <= rtpStart) {
      ctx.addIssue({
        code: 'custom',
        path: ['RINGHOOK_RTP_PORTS'],
        message: 'RINGHOOK_RTP_PORTS must be a range of ports above 1023, low-high, e.g. 10000-20000',
      });
    } else if (env.RINGHOOK_MAX_CALLS !== undefined && env.RINGHOOK_MAX_CALLS * 2 > rtpEnd - rtpStart + 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['RINGHOOK_MAX_CALLS'],
        message: `RINGHOOK_MAX_CALLS needs two RTP ports a call: RINGHOOK_RTP_PORTS (${env.RINGHOOK_RTP_PORTS}) has room for ${Math.floor((rtpEnd - rtpStart + 1) / 2)}`,
      });
    }
    const httpsPort = env.RINGHOOK_PORT ?? (env.RINGHOOK_ACME_DOMAIN ? ACME_DEFAULTS.port : DEFAULTS.port);
    const plainPort = env.RINGHOOK_HTTP_PORT ?? (env.RINGHOOK_ACME_DOMAIN ? ACME_DEFAULTS.httpPort : undefined);
    if (plainPort !== undefined && plainPort === httpsPort && httpsPort !== 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['RINGHOOK_HTTP_PORT'],
        message: 'RINGHOOK_HTTP_PORT must differ from RINGHOOK_PORT',
      });
    }
    if (env.RINGHOOK_DATABASE_URL && !env.RINGHOOK_SECRET_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['RINGHOOK_SECRET_KEY'],
        message:
          'RINGHOOK_DATABASE_URL (nodes sharing PostgreSQL) needs RINGHOOK_SECRET_KEY, the same on every node: the webhook URLs are sealed with it (make one with: openssl rand -hex 32)',
      });
    }
    checkSmsVariables(env, (variable, message) => ctx.addIssue({ code: 'custom', path: [variable], message }));
    checkAcmeVariables(env, (variable, message) => ctx.addIssue({ code: 'custom', path: [variable], message }));
  });

export interface Config extends TransportConfig {
  dataDir: string;
  /** Why this data dir (config/data-dir.ts): chosen by the variable, an earlier install's ./data, or the default. */
  dataDirOrigin: DataDirOrigin;
  dbFile: string;
  host: string;
  port: number;
  tls: { cert: string; key: string } | null;
  httpPort: number | null;
  trustProxy: AddressMatcher;
  trustProxyText: string;
  /** The server's allowed alert sources (RINGHOOK_WEBHOOK_SOURCES; core/webhook-sources). */
  webhookSources: SourceRule;
  /** Ranges status callbacks may reach although they are not public (RINGHOOK_CALLBACK_ALLOW; core/callback-address). */
  callbackAllow: AddressMatcher;
  /** Base of the webhook URLs shown to owners, without a trailing slash. */
  publicUrl: string;
  publicUrlConfigured: boolean;
  /** May a self-signed certificate be made when none is configured? */
  selfSigned: boolean;
  ari: { url: string; user: string; password: string } | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  dbSync: 'normal' | 'full';
  /** PostgreSQL, shared by several nodes; null: the SQLite file dbFile. */
  databaseUrl: string | null;
  /** This process among the nodes sharing PostgreSQL. */
  nodeId: string;
  /** A node silent this long is taken for dead: its calls in progress end interrupted. */
  nodeTimeoutMs: number;
  telephony: TelephonyConfig;
  sms: SmsConfig;
  /** ringhook's own certificate from an ACME authority; null: RINGHOOK_TLS_CERT or a self-signed one. */
  acme: AcmeConfig | null;
  /** When set, GET /metrics wants "Authorization: Bearer <token>". */
  metricsToken: string | undefined;
  /** Seals the api_keys at rest; unset: a key file in the data dir (see store/secret-key.ts). */
  secretKey: Buffer | undefined;
  /** RINGHOOK_* variables set that nothing reads (a misspelling, with the name it is closest to): serve warns, doctor fails. */
  unknownVariables: string[];
}

/** The data dir for these variables and this folder (config/data-dir.ts), looked up on this machine. */
export function dataDirOf(env: Env = process.env, cwd: string = process.cwd()): { dir: string; origin: DataDirOrigin } {
  return findDataDir({
    env: { RINGHOOK_DATA_DIR: env.RINGHOOK_DATA_DIR?.trim(), XDG_DATA_HOME: env.XDG_DATA_HOME, HOME: env.HOME },
    cwd,
    uid: process.getuid?.() ?? -1,
    homedir: os.homedir(),
    checkoutDir: inSingleExecutable() ? null : repoRoot(),
    exists: (file) => fs.existsSync(file),
  });
}

/** Reads and validates the configuration; throws a UserError listing every bad variable and its fix. */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const present = presentVariables(env);
  const result = envSchema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  - ${describeIssue(issue, env)}`);
    throw new UserError(`invalid configuration:\n${problems.join('\n')}`);
  }
  const e = result.data;
  let trustProxy: AddressMatcher;
  try {
    trustProxy = parseAddressList(e.RINGHOOK_TRUST_PROXY ?? '');
  } catch (error) {
    throw new UserError(
      `invalid configuration:\n  - RINGHOOK_TRUST_PROXY: ${(error as Error).message}; use comma-separated addresses or CIDRs, e.g. 127.0.0.1,10.0.0.0/8`,
    );
  }
  let webhookSources: SourceRule;
  try {
    webhookSources = parseSourceRule(e.RINGHOOK_WEBHOOK_SOURCES ?? 'any');
  } catch (error) {
    throw new UserError(
      `invalid configuration:\n  - RINGHOOK_WEBHOOK_SOURCES: ${(error as Error).message}; use any, tradingview, or comma-separated addresses or CIDRs, e.g. 203.0.113.0/24`,
    );
  }
  let callbackAllow: AddressMatcher;
  try {
    callbackAllow = parseAddressList(e.RINGHOOK_CALLBACK_ALLOW ?? '');
  } catch (error) {
    throw new UserError(
      `invalid configuration:\n  - RINGHOOK_CALLBACK_ALLOW: ${(error as Error).message}; use comma-separated addresses or CIDRs, e.g. 10.1.2.0/24`,
    );
  }
  const { dir: dataDir, origin: dataDirOrigin } = dataDirOf(env, cwd);
  const shownHost = e.RINGHOOK_HOST === '0.0.0.0' || e.RINGHOOK_HOST === '::' ? 'localhost' : e.RINGHOOK_HOST;
  const hostForUrl = isIP(shownHost) === 6 ? `[${shownHost}]` : shownHost;
  const acme = acmeConfigFrom(e, cwd);
  // With ACME the authority reaches the name on ports 80 and 443 (a port mapping may lead them to
  // others), and so do TradingView and the owners: the public URL is the name's, on 443.
  const httpsPort = e.RINGHOOK_PORT ?? (acme ? ACME_DEFAULTS.port : DEFAULTS.port);
  const defaultUrl = acme ? `https://${acme.domains[0]}` : `https://${hostForUrl}:${httpsPort}`;
  const publicUrl = (e.RINGHOOK_PUBLIC_URL ?? defaultUrl).replace(/\/+$/, '');
  return {
    dataDir,
    dataDirOrigin,
    dbFile: path.join(dataDir, 'ringhook.db'),
    host: e.RINGHOOK_HOST,
    port: httpsPort,
    tls:
      e.RINGHOOK_TLS_CERT && e.RINGHOOK_TLS_KEY
        ? { cert: path.resolve(cwd, e.RINGHOOK_TLS_CERT), key: path.resolve(cwd, e.RINGHOOK_TLS_KEY) }
        : null,
    httpPort: e.RINGHOOK_HTTP_PORT ?? (acme ? ACME_DEFAULTS.httpPort : null),
    trustProxy,
    trustProxyText: e.RINGHOOK_TRUST_PROXY ?? '',
    webhookSources,
    callbackAllow,
    publicUrl,
    publicUrlConfigured: e.RINGHOOK_PUBLIC_URL !== undefined,
    selfSigned: e.RINGHOOK_SELF_SIGNED,
    ari: e.RINGHOOK_ARI_URL
      ? { url: e.RINGHOOK_ARI_URL.replace(/\/+$/, ''), user: e.RINGHOOK_ARI_USER!, password: e.RINGHOOK_ARI_PASSWORD! }
      : null,
    logLevel: e.RINGHOOK_LOG_LEVEL,
    dbSync: e.RINGHOOK_DB_SYNC,
    databaseUrl: e.RINGHOOK_DATABASE_URL ?? null,
    nodeId:
      e.RINGHOOK_NODE_ID ??
      os
        .hostname()
        .replace(/[^A-Za-z0-9._-]/g, '-')
        .slice(0, 63),
    nodeTimeoutMs: e.RINGHOOK_NODE_TIMEOUT * 1000,
    telephony: telephonyConfig(e, cwd, env.HOME),
    metricsToken: e.RINGHOOK_METRICS_TOKEN,
    secretKey: e.RINGHOOK_SECRET_KEY,
    sms: smsConfigFrom(e),
    ...transportConfigFrom(e, cwd),
    acme,
    unknownVariables: unknownVariables(present, new Set(Object.keys(envSchema.shape))),
  };
}
