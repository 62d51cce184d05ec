// The server's variables: the data dir, the HTTPS listener and its certificate, the plain-HTTP port,
// who may send alerts, the public URL, metrics and logging. Part of the one catalogue (config/index.ts
// spreads them in).
import { isIP } from 'node:net';
import { z } from 'zod';
import { ACME_DEFAULTS } from './acme.js';
import { DEFAULTS } from './defaults.js';
import { onOff, port } from './rules.js';

export const serverFields = {
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
  RINGHOOK_METRICS_TOKEN: z
    .string()
    .min(16, { error: 'RINGHOOK_METRICS_TOKEN must be at least 16 characters' })
    .optional(),
  RINGHOOK_LOG_LEVEL: z
    .enum(['debug', 'info', 'warn', 'error'], { error: 'RINGHOOK_LOG_LEVEL must be debug, info, warn or error' })
    .default(DEFAULTS.logLevel),
  RINGHOOK_SELF_SIGNED: onOff('RINGHOOK_SELF_SIGNED').default(DEFAULTS.selfSigned),
};

type ServerEnv = z.output<z.ZodObject<typeof serverFields>>;

export function checkTlsVariables(env: ServerEnv, issue: (variable: string, message: string) => void): void {
  if (Boolean(env.RINGHOOK_TLS_CERT) !== Boolean(env.RINGHOOK_TLS_KEY)) {
    issue(
      'RINGHOOK_TLS_CERT',
      'RINGHOOK_TLS_CERT and RINGHOOK_TLS_KEY go together: set both (PEM files) or neither (a self-signed certificate is made)',
    );
  }
}

/** The plain-HTTP port must not be the HTTPS one (with ACME both have defaults of their own). */
export function checkPortVariables(
  env: ServerEnv & { RINGHOOK_ACME_DOMAIN?: unknown },
  issue: (variable: string, message: string) => void,
): void {
  const httpsPort = env.RINGHOOK_PORT ?? (env.RINGHOOK_ACME_DOMAIN ? ACME_DEFAULTS.port : DEFAULTS.port);
  const plainPort = env.RINGHOOK_HTTP_PORT ?? (env.RINGHOOK_ACME_DOMAIN ? ACME_DEFAULTS.httpPort : undefined);
  if (plainPort !== undefined && plainPort === httpsPort && httpsPort !== 0) {
    issue('RINGHOOK_HTTP_PORT', 'RINGHOOK_HTTP_PORT must differ from RINGHOOK_PORT');
  }
}
