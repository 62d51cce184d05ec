// The telephony's variables: Asterisk (managed or external) and ARI, the SIP trunks, the pace and
// bounds of calls, the speech engine, SIP and RTP on this machine, the LAN softphone.
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { RESERVED_SECTIONS } from '../core/server/asterisk-sections.js';
import { FLITE_VOICES } from '../core/speech/flite-voices.js';
import { isPrivateIpv4, parseCidr } from '../core/connections/network.js';
import { defaultMaxCalls } from '../core/calls/pace.js';
import { DEFAULTS } from './defaults.js';
import { onOff, port, wholeNumber, wholeNumbers } from './rules.js';

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
      .enum(SIP_TRANSPORTS, {
        error: `${prefix}_TRANSPORT must be udp, tcp or tls (unset: tls for a sips: URI, udp otherwise)`,
      })
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
export const FLITE_LISTED_VOICES: readonly string[] = FLITE_VOICES.flatMap((v) =>
  v === 'awb' ? [v, 'awb_time'] : [v],
);

const SIP_TRANSPORTS = ['udp', 'tcp', 'tls'] as const;
export type SipTransport = (typeof SIP_TRANSPORTS)[number];
const MEDIA_ENCRYPTIONS = ['none', 'sdes', 'dtls'] as const;
export type MediaEncryption = (typeof MEDIA_ENCRYPTIONS)[number];

export const telephonyFields = {
  RINGHOOK_ARI_URL: z
    .url({
      protocol: /^https?$/,
      error: "RINGHOOK_ARI_URL must be the http(s) URL of Asterisk's HTTP server, e.g. http://127.0.0.1:8088",
    })
    .optional(),
  RINGHOOK_ARI_USER: z.string().optional(),
  RINGHOOK_ARI_PASSWORD: z.string().optional(),
  RINGHOOK_TELEPHONY: z
    .enum(['managed', 'external', 'off'], {
      error:
        'RINGHOOK_TELEPHONY must be managed (ringhook runs Asterisk), external (RINGHOOK_ARI_URL) or off (accept alerts, place no calls)',
    })
    .optional(),
  ...trunkFields('RINGHOOK_TRUNK'),
  ...trunkFields('RINGHOOK_TRUNK2'),
  RINGHOOK_CALLER_ID: z
    .string()
    .regex(/^(?:"[^"\n]{0,40}" ?)?<?\+?[0-9A-Za-z*#]{1,32}>?$/, {
      error:
        'RINGHOOK_CALLER_ID must be a number such as +14155550123, optionally with a name: "Alerts" <+14155550123>',
    })
    .optional(),
  ...wholeNumbers({
    RINGHOOK_RING_TIMEOUT: [5, 120, DEFAULTS.ringTimeoutSec, 'seconds of ringing before a call counts as not answered'],
    RINGHOOK_MAX_CALL_SECONDS: [
      10,
      86_400,
      DEFAULTS.maxCallSec,
      'the longest a call may last, ring included, hung up by Asterisk itself',
    ],
  }),
  RINGHOOK_AMD: onOff('RINGHOOK_AMD').default(DEFAULTS.answeringMachineDetection),
  RINGHOOK_MAX_CALLS: wholeNumber(
    'RINGHOOK_MAX_CALLS',
    { min: 1, max: DEFAULTS.maxCallsMost },
    'simultaneous calls (default: half the RTP ports)',
  ).optional(),
  ...wholeNumbers({
    RINGHOOK_TRUNK_CPS: [1, 1000, DEFAULTS.trunkCps, 'new calls a second the provider allows'],
    RINGHOOK_CALL_FRESHNESS: [10, 86_400, DEFAULTS.callFreshnessSec, 'seconds a queued call stays worth placing'],
  }),
  RINGHOOK_TTS_ENGINE: z
    .enum(['flite', 'espeak-ng'], { error: 'RINGHOOK_TTS_ENGINE must be flite or espeak-ng' })
    .default(DEFAULTS.ttsEngine),
  RINGHOOK_VOICE: z
    .string()
    .regex(/^[A-Za-z0-9_.+][A-Za-z0-9_./+-]{0,99}$/, {
      error: 'RINGHOOK_VOICE must be a voice name such as slt (flite) or en-us (espeak-ng)',
    })
    .optional(),
  RINGHOOK_BURST_VOICE: z
    .enum([...FLITE_VOICES, 'off'], {
      error: `RINGHOOK_BURST_VOICE must be one of ${FLITE_VOICES.join(', ')} (a flite voice) or off`,
    })
    .default(DEFAULTS.burstVoice),
  RINGHOOK_TTS_COMMAND: z
    .string()
    .regex(/^[^\u0000-\u001f\u007f]{1,2000}$/, {
      error:
        'RINGHOOK_TTS_COMMAND must be one line (at most 2000 characters): a command that reads the text on stdin and writes a WAV on stdout',
    })
    .optional(),
  RINGHOOK_JA_DICTIONARY: z
    .string()
    .regex(/^(?:auto|off|\/[^\u0000-\u001f\u007f]{0,999})$/, {
      error:
        'RINGHOOK_JA_DICTIONARY must be auto, off, or the absolute path of a folder of kuromoji dictionary files (base.dat.gz …)',
    })
    .default('auto'),
  RINGHOOK_SIP_HOST: z
    .ipv4({ error: 'RINGHOOK_SIP_HOST must be an IPv4 address, e.g. 0.0.0.0 or 127.0.0.1' })
    .default(DEFAULTS.sipHost),
  RINGHOOK_SIP_PORT: port('RINGHOOK_SIP_PORT').default(DEFAULTS.sipPort),
  RINGHOOK_SIP_TLS_PORT: port('RINGHOOK_SIP_TLS_PORT').default(DEFAULTS.sipTlsPort),
  RINGHOOK_TRUNK_CA_FILE: z.string().min(1).optional(),
  RINGHOOK_SIP_EXTERNAL_ADDRESS: z
    .string()
    .regex(
      /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/,
      {
        error:
          'RINGHOOK_SIP_EXTERNAL_ADDRESS must be the public IPv4 address or host name (dynamic DNS) of this network, e.g. 203.0.113.7 or home.example.net',
      },
    )
    .refine((a) => !isPrivateIpv4(a), {
      error:
        "RINGHOOK_SIP_EXTERNAL_ADDRESS must be the public address (the router's outside one), not a private or loopback address",
    })
    .optional(),
  RINGHOOK_STUN_SERVER: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,253}(?::\d{1,5})?$/, {
      error: 'RINGHOOK_STUN_SERVER must be host[:port] of a STUN server, e.g. stun.example.net:3478',
    })
    .refine((v) => Number(v.split(':')[1] ?? 1) >= 1 && Number(v.split(':')[1] ?? 1) <= 65535, {
      error: 'RINGHOOK_STUN_SERVER: the port must be 1-65535',
    })
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
    .regex(/^[^\s;[\]"\\{}]{8,64}$/, {
      error: 'RINGHOOK_SOFTPHONE_PASSWORD must be 8 to 64 characters without spaces, quotes, ; [ ] { } or backslashes',
    })
    .optional(),
  RINGHOOK_CACHE_DIR: z.string().optional(),
  RINGHOOK_MEDIA_DIR: z.string().optional(),
};

type TelephonyEnv = z.output<z.ZodObject<typeof telephonyFields>>;

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
export function trunkTransport(uri: string, transport: SipTransport | undefined): SipTransport {
  return transport ?? (uri.startsWith('sips:') ? 'tls' : 'udp');
}

/** Where a LAN softphone registers to the managed Asterisk, as the user is told it. */
export function softphoneAddress(config: Pick<TelephonyConfig, 'sip'>): string {
  return `sip:${config.sip.host === '0.0.0.0' ? '<this machine>' : config.sip.host}:${config.sip.port}`;
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
  tts: {
    engine: 'flite' | 'espeak-ng';
    voice: string | undefined;
    command: string | undefined;
    burstVoice: string | undefined;
    /** Where Japanese kanji readings come from: `auto` (node_modules or the executable's assets), `off`, or a folder. */
    japaneseDictionary: string;
  };
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

export function telephonyConfig(e: TelephonyEnv, cwd: string, home: string | undefined): TelephonyConfig {
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
      japaneseDictionary: e.RINGHOOK_JA_DICTIONARY,
    },
    sip: {
      host: e.RINGHOOK_SIP_HOST,
      port: e.RINGHOOK_SIP_PORT,
      externalAddress: e.RINGHOOK_SIP_EXTERNAL_ADDRESS,
      localNets: e.RINGHOOK_SIP_LOCAL_NET.split(',').map((n) => parseCidr(n.trim())!),
      stunServer:
        e.RINGHOOK_STUN_SERVER === undefined ? undefined : hostAndPort(e.RINGHOOK_STUN_SERVER, DEFAULTS.stunPort),
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

function trunkConfig(e: TelephonyEnv, prefix: 'RINGHOOK_TRUNK' | 'RINGHOOK_TRUNK2'): TrunkConfig | null {
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
