// Configuration from environment variables, validated once at start: one schema for every
// variable (the SMS gateway's come from config/sms), their defaults in config/defaults, every
// problem listed at once with the variable, the value and the fix. Nothing runs at import time.
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULTS } from './defaults.js';
import { type DataDirOrigin, dataDirOf } from '../lib/data-dir.js';
import { describeIssue, presentVariables, unknownVariables, type Env } from './rules.js';
import { UserError } from '../lib/errors.js';
import { parseAddressList, type AddressMatcher } from '../core/connections/address-match.js';
import { parseSourceRule, type SourceRule } from '../core/webhook/webhook-sources.js';
import { checkDatabaseVariables, databaseFields } from './database.js';
import { checkPortVariables, checkTlsVariables, serverFields } from './server.js';
import { checkTelephonyVariables } from './telephony-checks.js';
import { checkSmsVariables, smsConfigFrom, smsFields, type SmsConfig } from './sms.js';
import { transportConfigFrom, transportFields, type TransportConfig } from './transport.js';
import { telephonyConfig, telephonyFields, type TelephonyConfig } from './telephony.js';

import { ACME_DEFAULTS, acmeConfigFrom, acmeFields, checkAcmeVariables, type AcmeConfig } from './acme.js';

export type { MediaEncryption, SipTransport, TelephonyConfig, TrunkConfig } from './telephony.js';
export type { AcmeConfig } from './acme.js';
export type { GenericHttpConfig, HttpGatewayConfig, KannelConfig, SmppConfig, SmsConfig, TwilioConfig } from './sms.js';
export { DEFAULTS } from './defaults.js';
export { decodeSecretKey } from './rules.js';
export { PLACEHOLDER, withoutPlaceholders } from './sms-rules.js';
export { softphoneAddress } from './telephony.js';

/** Every variable ringhook reads, with its rule: the one schema (config/docs.ts renders the reference from it). */
export const envSchema = z
  .object({
    ...serverFields,
    ...databaseFields,
    ...telephonyFields,
    ...smsFields,
    ...transportFields,
    ...acmeFields,
  })
  .superRefine((env, ctx) => {
    const issue = (variable: string, message: string) => ctx.addIssue({ code: 'custom', path: [variable], message });
    checkTlsVariables(env, issue);
    checkTelephonyVariables(env, issue);
    checkPortVariables(env, issue);
    checkDatabaseVariables(env, issue);
    checkSmsVariables(env, issue);
    checkAcmeVariables(env, issue);
  });

export interface Config extends TransportConfig {
  dataDir: string;
  /** Why this data dir (lib/data-dir.ts): chosen by the variable, an earlier install's ./data, or the default. */
  dataDirOrigin: DataDirOrigin;
  dbFile: string;
  host: string;
  port: number;
  tls: { cert: string; key: string } | null;
  httpPort: number | null;
  trustProxy: AddressMatcher;
  trustProxyText: string;
  /** The server's allowed alert sources (RINGHOOK_WEBHOOK_SOURCES; core/webhook/webhook-sources). */
  webhookSources: SourceRule;
  /** Ranges status callbacks may reach although they are not public (RINGHOOK_CALLBACK_ALLOW; core/callbacks/callback-address). */
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

/** A variable holding addresses or CIDRs, or the one-line error naming it. */
function addressList(variable: string, value: string | undefined, example: string): AddressMatcher {
  try {
    return parseAddressList(value ?? '');
  } catch (error) {
    throw new UserError(
      `invalid configuration:\n  - ${variable}: ${(error as Error).message}; use comma-separated addresses or CIDRs, e.g. ${example}`,
    );
  }
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
  const trustProxy = addressList('RINGHOOK_TRUST_PROXY', e.RINGHOOK_TRUST_PROXY, '127.0.0.1,10.0.0.0/8');
  let webhookSources: SourceRule;
  try {
    webhookSources = parseSourceRule(e.RINGHOOK_WEBHOOK_SOURCES ?? 'any');
  } catch (error) {
    throw new UserError(
      `invalid configuration:\n  - RINGHOOK_WEBHOOK_SOURCES: ${(error as Error).message}; use any, tradingview, or comma-separated addresses or CIDRs, e.g. 203.0.113.0/24`,
    );
  }
  const callbackAllow = addressList('RINGHOOK_CALLBACK_ALLOW', e.RINGHOOK_CALLBACK_ALLOW, '10.1.2.0/24');
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
