// How connections are held and secured: the caps on the HTTPS listener's open connections, and how
// PostgreSQL's certificate is checked. Part of the one catalogue (config/index.ts spreads them in).
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_MAX_CONNECTIONS_PER_ADDRESS } from '../core/connections/connection-caps.js';
import { onOff, wholeNumber } from './rules.js';

export const transportFields = {
  RINGHOOK_MAX_CONNECTIONS: wholeNumber(
    'RINGHOOK_MAX_CONNECTIONS',
    { min: 16, max: 1_000_000 },
    'open connections of the HTTPS and plain-HTTP listeners together (default: the open-file limit less an eighth of it, at least 256 kept for the database, Asterisk, SMS gateways and files; between 64 and 4096)',
  ).optional(),
  RINGHOOK_MAX_CONNECTIONS_PER_ADDRESS: wholeNumber(
    'RINGHOOK_MAX_CONNECTIONS_PER_ADDRESS',
    { min: 1, max: 1_000_000 },
    'open connections from one address (an IPv6 /64), trusted proxies exempt',
    DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  ).default(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS),
  RINGHOOK_DATABASE_CA_FILE: z.string().min(1).optional(),
  RINGHOOK_DATABASE_UNVERIFIED: onOff('RINGHOOK_DATABASE_UNVERIFIED').default(false),
};

type TransportEnv = z.output<z.ZodObject<typeof transportFields>>;

export interface TransportConfig {
  /** Open connections: in all (undefined: from the open-file limit) and from one address. */
  connections: { total: number | undefined; perAddress: number };
  /** How PostgreSQL's certificate is checked: a private authority's PEM file; may a host not on this machine go unverified? */
  databaseTls: { caFile: string | undefined; allowUnverified: boolean };
}

export function transportConfigFrom(e: TransportEnv, cwd: string): TransportConfig {
  return {
    connections: { total: e.RINGHOOK_MAX_CONNECTIONS, perAddress: e.RINGHOOK_MAX_CONNECTIONS_PER_ADDRESS },
    databaseTls: {
      caFile: e.RINGHOOK_DATABASE_CA_FILE ? path.resolve(cwd, e.RINGHOOK_DATABASE_CA_FILE) : undefined,
      allowUnverified: e.RINGHOOK_DATABASE_UNVERIFIED,
    },
  };
}
