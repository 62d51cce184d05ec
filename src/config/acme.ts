// ringhook's own certificate from an ACME authority (Let's Encrypt by default): the variables, their
// checks, and the settings serve reads. Set RINGHOOK_ACME_DOMAIN and serve orders, serves and renews it.
import path from 'node:path';
import { z } from 'zod';

export const ACME_ENV = {
  domain: 'RINGHOOK_ACME_DOMAIN',
  email: 'RINGHOOK_ACME_EMAIL',
  directory: 'RINGHOOK_ACME_DIRECTORY',
  caFile: 'RINGHOOK_ACME_CA_FILE',
} as const;

export const ACME_DEFAULTS = {
  directory: 'https://acme-v02.api.letsencrypt.org/directory',
  /** What the authority connects to: HTTPS on 443, HTTP-01 challenges on 80. */
  port: 443,
  httpPort: 80,
} as const;

const DNS_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** Names separated by commas or blanks, lower-cased, each a public DNS name (HTTP-01 cannot prove a wildcard or an address). */
function domainList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((n) => n.toLowerCase().replace(/\.$/, '')),
    ),
  ];
}

export const acmeFields = {
  [ACME_ENV.domain]: z
    .string()
    .transform(domainList)
    .refine((names) => names.length > 0 && names.length <= 100 && names.every((n) => DNS_NAME.test(n)), {
      error: `${ACME_ENV.domain} must be one or more DNS names that point at this machine, separated by commas, e.g. alerts.example.com (no wildcards, no IP addresses)`,
    })
    .optional(),
  [ACME_ENV.email]: z
    .email({
      error: `${ACME_ENV.email} must be an email address, e.g. you@example.com (the authority's contact for this account)`,
    })
    .optional(),
  [ACME_ENV.directory]: z
    .url({
      protocol: /^https$/,
      error: `${ACME_ENV.directory} must be the https:// URL of an ACME directory, e.g. https://acme-staging-v02.api.letsencrypt.org/directory`,
    })
    .optional(),
  [ACME_ENV.caFile]: z.string().min(1).optional(),
};

type AcmeEnv = z.output<z.ZodObject<typeof acmeFields>> & { RINGHOOK_TLS_CERT?: string | undefined };

export function checkAcmeVariables(env: AcmeEnv, issue: (variable: string, message: string) => void): void {
  const domains = env[ACME_ENV.domain];
  if (!domains) {
    for (const name of [ACME_ENV.email, ACME_ENV.directory, ACME_ENV.caFile] as const) {
      if (env[name] !== undefined)
        issue(
          name,
          `${name} is used only with ${ACME_ENV.domain}: set the name(s) to obtain a certificate for, or remove ${name}`,
        );
    }
    return;
  }
  if (env.RINGHOOK_TLS_CERT) {
    issue(
      ACME_ENV.domain,
      `${ACME_ENV.domain} obtains a certificate, RINGHOOK_TLS_CERT serves your own: set one or the other`,
    );
  }
}

export interface AcmeConfig {
  domains: string[];
  email: string | undefined;
  directory: string;
  /** PEM file of the authority the directory's own HTTPS certificate chains to; unset: the system's list. */
  caFile: string | undefined;
}

export function acmeConfigFrom(env: AcmeEnv, cwd: string): AcmeConfig | null {
  const domains = env[ACME_ENV.domain];
  if (!domains) return null;
  const caFile = env[ACME_ENV.caFile];
  return {
    domains,
    email: env[ACME_ENV.email],
    directory: env[ACME_ENV.directory] ?? ACME_DEFAULTS.directory,
    caFile: caFile ? path.resolve(cwd, caFile) : undefined,
  };
}
