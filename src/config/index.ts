// Configuration from environment variables, validated once at start: one schema for every
// variable (the SMS gateway's come from config/sms), their defaults in config/defaults, every
// problem listed at once with the variable, the value and the fix. Nothing runs at import time.
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { isPrivateIpv4, parseCidr } from '../core/network.js';
import { DEFAULTS } from './defaults.js';
import { FLITE_VOICES } from '../core/flite-voices.js';
import { defaultMaxCalls } from '../core/pace.js';
import { describeIssue, onOff, port, presentVariables, unknownVariables, wholeNumber, type Env } from './rules.js';
import { RESERVED_SECTIONS } from '../core/asterisk-sections.js';
import { decodeSecretKey } from './rules.js';
import { UserError } from '../lib/errors.js';
import { parseAddressList, type AddressMatcher } from '../core/address-match.js';
import { checkSmsVariables, smsConfigFrom, smsFields, type SmsConfig } from './sms.js';
import { transportConfigFrom, transportFields, type TransportConfig } from './transport.js';
import { ACME_DEFAULTS, acmeConfigFrom, acmeFields, checkAcmeVariables, type AcmeConfig } from './acme.js';

/** Safe characters for a value written into Asterisk's configuration. */
const ASTERISK_VALUE = /^[^\s;[\]"\\{}]+$/;

/** A trunk's variables: its URI, the credentials it asks for, whether to register, how SIP and audio travel. */
function trunkFields<P extends 'RINGHOOK_TRUNK' | 'RINGHOOK_TRUNK2'>(prefix: P) {
  const value = (name: string) =>
    z
      .string()
      .regex(ASTERISK_VALUE, { error: `${name} must not contain spaces, quotes, ; [ ] { } or backslashes` })
      .optional();
  return {
    [`${prefix}_URI`]: z
      .string()
      .regex(/^sips?:(?:[^@\s;]+@)?(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?(?:;[A-Za-z0-9=._-]+)*$/, {
        error: `${prefix}_URI must look like sip:host[:port], e.g. sip:sip.provider.example:5060`,
      })
      .optional(),
    [`${prefix}_USERNAME`]: value(`${prefix}_USERNAME`),
    [`${prefix}_PASSWORD`]: value(`${prefix}_PASSWORD`),
    [`${prefix}_REGISTER`]: onOff(`${prefix}_REGISTER`).default(DEFAULTS.trunkRegister),
    [`${prefix}_TRANSPORT`]: z
      .enum(SIP_TRANSPORTS, { error: `${prefix}_TRANSPORT must be udp, tcp or tls (unset: tls for a sips: URI, udp otherwise)` })
      .optional(),
    [`${prefix}_MEDIA_ENCRYPTION`]: z
      .enum(MEDIA_ENCRYPTIONS, {
        error: `${prefix}_MEDIA_ENCRYPTION must be none, sdes (SRTP keyed in the SIP signalling, over TLS) or dtls (SRTP keyed by DTLS)`,
      })
      .default(DEFAULTS.trunkMediaEncryption),
  } as { [K in `${P}_URI` | `${P}_USERNAME` | `${P}_PASSWORD`]: z.ZodOptional<z.ZodString> } & {
    [K in `${P}_REGISTER`]: z.ZodDefault<ReturnType<typeof onOff>>;
  } & { [K in `${P}_TRANSPORT`]: z.ZodOptional<z.ZodEnum<{ [T in SipTransport]: T }>> } & {
    [K in `${P}_MEDIA_ENCRYPTION`]: z.ZodDefault<z.ZodEnum<{ [M in MediaEncryption]: M }>>;
  };
}

/** What `flite -lv` lists, in its order: its voices, and awb_time (its talking clock) after awb. */
const FLITE_LISTED_VOICES: readonly string[] = FLITE_VOICES.flatMap((v) => (v === 'awb' ? [v, 'awb_time'] : [v]));

const SIP_TRANSPORTS = ['udp', 'tcp', 'tls'] as const;
export type SipTransport = (typeof SIP_TRANSPORTS)[number];
const MEDIA_ENCRYPTIONS = ['none', 'sdes', 'dtls'] as const;
export type MediaEncryption = (typeof MEDIA_ENCRYPTIONS)[number];

const envSchema = z
  .object({
    RINGHOOK_DATA_DIR: z.string().default(DEFAULTS.dataDir),
    RINGHOOK_HOST: z
      .string()
      .refine((h) => isIP(h) !== 0 || /^[a-zA-Z0-9.-]+$/.test(h), { error: 'RINGHOOK_HOST must be an IP address or a host name, e.g. 0.0.0.0 or 127.0.0.1' })
      .default(DEFAULTS.host),
    RINGHOOK_PORT: port('RINGHOOK_PORT', { anyFree: true }).optional(),
    RINGHOOK_TLS_CERT: z.string().optional(),
    RINGHOOK_TLS_KEY: z.string().optional(),
    RINGHOOK_HTTP_PORT: port('RINGHOOK_HTTP_PORT', { anyFree: true }).optional(),
    RINGHOOK_TRUST_PROXY: z.string().optional(),
    RINGHOOK_PUBLIC_URL: z
      .url({ protocol: /^https?$/, error: 'RINGHOOK_PUBLIC_URL must be an absolute URL such as https://alerts.example.com' })
      .refine((u) => !u.includes('?') && !u.includes('#'), {
        error: 'RINGHOOK_PUBLIC_URL must not have a query (?) or fragment (#): webhook paths are appended to it',
      })
      .optional(),
    RINGHOOK_ARI_URL: z
      .url({ protocol: /^https?$/, error: "RINGHOOK_ARI_URL must be the http(s) URL of Asterisk's HTTP server, e.g. http://127.0.0.1:8088" })
      .optional(),
    RINGHOOK_ARI_USER: z.string().optional(),
    RINGHOOK_ARI_PASSWORD: z.string().optional(),
    RINGHOOK_TELEPHONY: z
      .enum(['managed', 'external', 'off'], {
        error: 'RINGHOOK_TELEPHONY must be managed (ringhook runs Asterisk), external (RINGHOOK_ARI_URL) or off (accept alerts, place no calls)',
      })
      .optional(),
    ...trunkFields('RINGHOOK_TRUNK'),
    ...trunkFields('RINGHOOK_TRUNK2'),
    RINGHOOK_CALLER_ID: z
      .string()
      .regex(/^(?:"[^"\n]{0,40}" ?)?<?\+?[0-9A-Za-z*#]{1,32}>?$/, {
        error: 'RINGHOOK_CALLER_ID must be a number such as +14155550123, optionally with a name: "Alerts" <+14155550123>',
      })
      .optional(),
    RINGHOOK_RING_TIMEOUT: wholeNumber(
      'RINGHOOK_RING_TIMEOUT',
      { min: 5, max: 120 },
      'seconds of ringing before a call counts as not answered',
      DEFAULTS.ringTimeoutSec,
    ).default(DEFAULTS.ringTimeoutSec),
    RINGHOOK_MAX_CALL_SECONDS: wholeNumber(
      'RINGHOOK_MAX_CALL_SECONDS',
      { min: 10, max: 86_400 },
      'the longest a call may last, ring included, hung up by Asterisk itself',
      DEFAULTS.maxCallSec,
    ).default(DEFAULTS.maxCallSec),
    RINGHOOK_AMD: onOff('RINGHOOK_AMD').default(DEFAULTS.answeringMachineDetection),
    RINGHOOK_MAX_CALLS: wholeNumber(
      'RINGHOOK_MAX_CALLS',
      { min: 1, max: DEFAULTS.maxCallsMost },
      'simultaneous calls (default: half the RTP ports)',
    ).optional(),
    RINGHOOK_TRUNK_CPS: wholeNumber('RINGHOOK_TRUNK_CPS', { min: 1, max: 1000 }, 'new calls a second the provider allows', DEFAULTS.trunkCps).default(
      DEFAULTS.trunkCps,
    ),
    RINGHOOK_CALL_FRESHNESS: wholeNumber(
      'RINGHOOK_CALL_FRESHNESS',
      { min: 10, max: 86_400 },
      'seconds a queued call stays worth placing',
      DEFAULTS.callFreshnessSec,
    ).default(DEFAULTS.callFreshnessSec),
    RINGHOOK_TTS_ENGINE: z.enum(['flite', 'espeak-ng'], { error: 'RINGHOOK_TTS_ENGINE must be flite or espeak-ng' }).default(DEFAULTS.ttsEngine),
    RINGHOOK_VOICE: z
      .string()
      .regex(/^[A-Za-z0-9_.+][A-Za-z0-9_./+-]{0,99}$/, { error: 'RINGHOOK_VOICE must be a voice name such as slt (flite) or en-us (espeak-ng)' })
      .optional(),
    RINGHOOK_BURST_VOICE: z
      .enum([...FLITE_VOICES, 'off'], { error: `RINGHOOK_BURST_VOICE must be one of ${FLITE_VOICES.join(', ')} (a flite voice) or off` })
      .default(DEFAULTS.burstVoice),
    RINGHOOK_TTS_COMMAND: z
      .string()
      .regex(/^[^\u0000-\u001f\u007f]{1,2000}$/, {
        error: 'RINGHOOK_TTS_COMMAND must be one line (at most 2000 characters): a command that reads the text on stdin and writes a WAV on stdout',
      })
      .optional(),
    RINGHOOK_SIP_HOST: z.ipv4({ error: 'RINGHOOK_SIP_HOST must be an IPv4 address, e.g. 0.0.0.0 or 127.0.0.1' }).default(DEFAULTS.sipHost),
    RINGHOOK_SIP_PORT: port('RINGHOOK_SIP_PORT').default(DEFAULTS.sipPort),
    RINGHOOK_SIP_TLS_PORT: port('RINGHOOK_SIP_TLS_PORT').default(DEFAULTS.sipTlsPort),
    RINGHOOK_TRUNK_CA_FILE: z.string().min(1).optional(),
    RINGHOOK_SIP_EXTERNAL_ADDRESS: z
      .string()
      .regex(/^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/, {
        error: 'RINGHOOK_SIP_EXTERNAL_ADDRESS must be the public IPv4 address or host name (dynamic DNS) of this network, e.g. 203.0.113.7 or home.example.net',
      })
      .refine((a) => !isPrivateIpv4(a), {
        error: "RINGHOOK_SIP_EXTERNAL_ADDRESS must be the public address (the router's outside one), not a private or loopback address",
      })
      .optional(),
    RINGHOOK_STUN_SERVER: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,253}(?::\d{1,5})?$/, { error: 'RINGHOOK_STUN_SERVER must be host[:port] of a STUN server, e.g. stun.example.net:3478' })
      .refine((v) => Number(v.split(':')[1] ?? 1) >= 1 && Number(v.split(':')[1] ?? 1) <= 65535, { error: 'RINGHOOK_STUN_SERVER: the port must be 1-65535' })
      .optional(),
    RINGHOOK_SIP_LOCAL_NET: z
      .string()
      .refine((list) => list.split(',').every((n) => parseCidr(n.trim()) !== undefined), {
        error: 'RINGHOOK_SIP_LOCAL_NET must be a comma-separated list of IPv4 networks, e.g. 192.168.1.0/24,10.0.0.0/8',
      })
      .default(DEFAULTS.sipLocalNets),
    RINGHOOK_ARI_PORT: port('RINGHOOK_ARI_PORT').default(DEFAULTS.ariPort),
    RINGHOOK_RTP_PORTS: z
      .string()
      .regex(/^\d{4,5}-\d{4,5}$/, { error: 'RINGHOOK_RTP_PORTS must be a range such as 10000-20000' })
      .default(DEFAULTS.rtpPorts),
    RINGHOOK_SOFTPHONE_USER: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: 'RINGHOOK_SOFTPHONE_USER may contain letters, digits, _ . and - only' })
      .refine((name) => !RESERVED_SECTIONS.has(name), {
        error: `RINGHOOK_SOFTPHONE_USER must not be ${[...RESERVED_SECTIONS].join(', ')} (names Asterisk's configuration uses)`,
      })
      .default(DEFAULTS.softphoneUser),
    RINGHOOK_SOFTPHONE_PASSWORD: z
      .string()
      .regex(/^[^\s;[\]"\\{}]{8,64}$/, { error: 'RINGHOOK_SOFTPHONE_PASSWORD must be 8 to 64 characters without spaces, quotes, ; [ ] { } or backslashes' })
      .optional(),
    RINGHOOK_CACHE_DIR: z.string().optional(),
    RINGHOOK_MEDIA_DIR: z.string().optional(),
    RINGHOOK_METRICS_TOKEN: z.string().min(16, { error: 'RINGHOOK_METRICS_TOKEN must be at least 16 characters' }).optional(),
    RINGHOOK_SECRET_KEY: z
      .string()
      .transform((text, ctx) => {
        const key = decodeSecretKey(text.trim());
        if (key) return key;
        ctx.addIssue({
          code: 'custom',
          message: 'RINGHOOK_SECRET_KEY must be 32 bytes written as 64 hex characters or base64, e.g. from: openssl rand -hex 32',
        });
        return z.NEVER;
      })
      .optional(),
    RINGHOOK_LOG_LEVEL: z
      .enum(['debug', 'info', 'warn', 'error'], { error: 'RINGHOOK_LOG_LEVEL must be debug, info, warn or error' })
      .default(DEFAULTS.logLevel),
    RINGHOOK_DB_SYNC: z.enum(['normal', 'full'], { error: 'RINGHOOK_DB_SYNC must be normal or full' }).default(DEFAULTS.dbSync),
    RINGHOOK_DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\/\S+$/, {
        error: 'RINGHOOK_DATABASE_URL must be a PostgreSQL URL, postgres://user:password@host:5432/ringhook (unset: SQLite in the data dir)',
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
        message: 'RINGHOOK_TLS_CERT and RINGHOOK_TLS_KEY go together: set both (PEM files) or neither (a self-signed certificate is made)',
      });
    }
    if (env.RINGHOOK_ARI_URL && !(env.RINGHOOK_ARI_USER && env.RINGHOOK_ARI_PASSWORD)) {
      ctx.addIssue({
        code: 'custom',
        path: ['RINGHOOK_ARI_USER'],
        message: 'RINGHOOK_ARI_URL points at an external Asterisk: set RINGHOOK_ARI_USER and RINGHOOK_ARI_PASSWORD to the ari.conf user too',
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
        ctx.addIssue({ code: 'custom', path: [`${t}_USERNAME`], message: `${t}_USERNAME and ${t}_PASSWORD go together` });
      }
      if (env[`${t}_REGISTER`] && !env[`${t}_USERNAME`]) {
        ctx.addIssue({ code: 'custom', path: [`${t}_REGISTER`], message: `${t}_REGISTER=on needs ${t}_USERNAME and ${t}_PASSWORD` });
      }
      const uri = env[`${t}_URI`];
      if (uri?.startsWith('sips:') && env[`${t}_TRANSPORT`] !== undefined && env[`${t}_TRANSPORT`] !== 'tls') {
        ctx.addIssue({ code: 'custom', path: [`${t}_TRANSPORT`], message: `${t}_URI is a sips: URI, which means TLS: leave ${t}_TRANSPORT unset or tls` });
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
    if (env.RINGHOOK_TTS_ENGINE === 'flite' && voice !== undefined && !FLITE_LISTED_VOICES.includes(voice) && !voice.endsWith('.flitevox')) {
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
      ctx.addIssue({ code: 'custom', path: ['RINGHOOK_HTTP_PORT'], message: 'RINGHOOK_HTTP_PORT must differ from RINGHOOK_PORT' });
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

export interface TrunkConfig {
  uri: string;
  username?: string;
  password?: string;
  register: boolean;
  transport: SipTransport;
  mediaEncryption: MediaEncryption;
}

function hostAndPort(text: string, defaultPort: number): { host: string; port: number } {
  const [host, port] = text.split(':');
  return { host: host!, port: port === undefined ? defaultPort : Number(port) };
}

/** A sips: URI means TLS; otherwise what was asked, UDP by default. */
function trunkTransport(uri: string, transport: SipTransport | undefined): SipTransport {
  return transport ?? (uri.startsWith('sips:') ? 'tls' : 'udp');
}

export interface TelephonyConfig {
  mode: 'managed' | 'external' | 'off';
  trunk: TrunkConfig | null;
  /** The backup trunk: a call the first does not take goes out through it, once. */
  trunk2: TrunkConfig | null;
  callerId: string | undefined;
  ringTimeoutSec: number;
  /** The longest a call may last, ring included: Asterisk hangs it up then (TIMEOUT(absolute)). */
  maxCallSec: number;
  /** Answering-machine detection: a machine's call ends `voicemail`, the message left after its greeting. */
  amd: boolean;
  maxCalls: number;
  /** New calls a second the provider allows. */
  trunkCps: number;
  freshnessMs: number;
  /** command: the operator's own engine, run through /bin/sh; engine and voice are its fallback. */
  /** burstVoice: the flite voice English calls speak with when their own would not be ready in time or other calls wait to be placed; undefined: off. */
  tts: { engine: 'flite' | 'espeak-ng'; voice: string | undefined; command: string | undefined; burstVoice: string | undefined };
  sip: {
    host: string;
    port: number;
    /** Behind NAT: the public address or name peers outside `localNets` are given. */
    externalAddress: string | undefined;
    /** Networks reached without NAT, as a.b.c.d/n. */
    localNets: string[];
    /** Unset external address: ask this STUN server for it at start. */
    stunServer: { host: string; port: number } | undefined;
    /** The TLS transport's port, bound only when a trunk uses TLS. */
    tlsPort: number;
    /** PEM file of the authorities a trunk's TLS certificate must chain to; unset: the system's list. */
    trunkCaFile: string | undefined;
  };
  ariPort: number;
  rtp: { start: number; end: number };
  softphone: { username: string; password: string | undefined };
  /** Where provisioning caches the Asterisk root file system. */
  cacheDir: string;
  /** Where speech is written; Asterisk must see it at the same path (shared with an external Asterisk). */
  mediaDir: string | undefined;
}

/** Never repeated in an error message. */
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
  const dataDir = path.resolve(cwd, e.RINGHOOK_DATA_DIR);
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
    dbFile: path.join(dataDir, 'ringhook.db'),
    host: e.RINGHOOK_HOST,
    port: httpsPort,
    tls: e.RINGHOOK_TLS_CERT && e.RINGHOOK_TLS_KEY ? { cert: path.resolve(cwd, e.RINGHOOK_TLS_CERT), key: path.resolve(cwd, e.RINGHOOK_TLS_KEY) } : null,
    httpPort: e.RINGHOOK_HTTP_PORT ?? (acme ? ACME_DEFAULTS.httpPort : null),
    trustProxy,
    trustProxyText: e.RINGHOOK_TRUST_PROXY ?? '',
    publicUrl,
    publicUrlConfigured: e.RINGHOOK_PUBLIC_URL !== undefined,
    selfSigned: e.RINGHOOK_SELF_SIGNED,
    ari: e.RINGHOOK_ARI_URL ? { url: e.RINGHOOK_ARI_URL.replace(/\/+$/, ''), user: e.RINGHOOK_ARI_USER!, password: e.RINGHOOK_ARI_PASSWORD! } : null,
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

function telephonyConfig(e: z.output<typeof envSchema>, cwd: string, home: string | undefined): TelephonyConfig {
  const [start, end] = e.RINGHOOK_RTP_PORTS.split('-').map(Number) as [number, number];
  return {
    mode: e.RINGHOOK_TELEPHONY ?? (e.RINGHOOK_ARI_URL ? 'external' : 'managed'),
    trunk: trunkConfig(e, 'RINGHOOK_TRUNK'),
    trunk2: trunkConfig(e, 'RINGHOOK_TRUNK2'),
    callerId: e.RINGHOOK_CALLER_ID,
    ringTimeoutSec: e.RINGHOOK_RING_TIMEOUT,
    maxCallSec: e.RINGHOOK_MAX_CALL_SECONDS,
    amd: e.RINGHOOK_AMD,
    maxCalls: e.RINGHOOK_MAX_CALLS ?? defaultMaxCalls({ start, end }, DEFAULTS.maxCallsMost),
    trunkCps: e.RINGHOOK_TRUNK_CPS,
    freshnessMs: e.RINGHOOK_CALL_FRESHNESS * 1000,
    tts: {
      engine: e.RINGHOOK_TTS_ENGINE,
      voice: e.RINGHOOK_VOICE,
      command: e.RINGHOOK_TTS_COMMAND,
      burstVoice: e.RINGHOOK_BURST_VOICE === 'off' ? undefined : e.RINGHOOK_BURST_VOICE,
    },
    sip: {
      host: e.RINGHOOK_SIP_HOST,
      port: e.RINGHOOK_SIP_PORT,
      externalAddress: e.RINGHOOK_SIP_EXTERNAL_ADDRESS,
      localNets: e.RINGHOOK_SIP_LOCAL_NET.split(',').map((n) => parseCidr(n.trim())!),
      stunServer: e.RINGHOOK_STUN_SERVER === undefined ? undefined : hostAndPort(e.RINGHOOK_STUN_SERVER, DEFAULTS.stunPort),
      tlsPort: e.RINGHOOK_SIP_TLS_PORT,
      trunkCaFile: e.RINGHOOK_TRUNK_CA_FILE ? path.resolve(cwd, e.RINGHOOK_TRUNK_CA_FILE) : undefined,
    },
    ariPort: e.RINGHOOK_ARI_PORT,
    rtp: { start, end },
    softphone: { username: e.RINGHOOK_SOFTPHONE_USER, password: e.RINGHOOK_SOFTPHONE_PASSWORD },
    cacheDir: path.resolve(cwd, e.RINGHOOK_CACHE_DIR ?? path.join(home ?? os.homedir(), '.cache', 'ringhook')),
    mediaDir: e.RINGHOOK_MEDIA_DIR ? path.resolve(cwd, e.RINGHOOK_MEDIA_DIR) : undefined,
  };
}

function trunkConfig(e: z.output<typeof envSchema>, prefix: 'RINGHOOK_TRUNK' | 'RINGHOOK_TRUNK2'): TrunkConfig | null {
  const uri = e[`${prefix}_URI`];
  const username = e[`${prefix}_USERNAME`];
  const password = e[`${prefix}_PASSWORD`];
  if (!uri) return null;
  return {
    uri,
    ...(username && password && { username, password }),
    register: e[`${prefix}_REGISTER`],
    transport: trunkTransport(uri, e[`${prefix}_TRANSPORT`]),
    mediaEncryption: e[`${prefix}_MEDIA_ENCRYPTION`],
  };
}
