// Renders ringhook's Asterisk configuration (the templates in asterisk/) from typed options.
// Pure: the template texts come in as an argument, the rendered files go out as strings.
import { RESERVED_SECTIONS } from '../core/server/asterisk-sections.js';
import { z } from 'zod';

export const TEMPLATE_FILES = [
  'asterisk.conf',
  'modules.conf',
  'http.conf',
  'ari.conf',
  'rtp.conf',
  'logger.conf',
  'extensions.conf',
  'pjsip.conf',
  'dnsmgr.conf',
  // Static files: present so Asterisk does not log errors for them, and CDR/CEL stay off.
  'cdr.conf',
  'cel.conf',
  'features.conf',
  'ccss.conf',
  'udptl.conf',
  'acl.conf',
  'pjproject.conf',
  'websocket_client.conf',
  'indications.conf',
] as const;
export type TemplateFile = (typeof TEMPLATE_FILES)[number];
export type AsteriskTemplates = Record<TemplateFile, string>;

// A value written after `key =` in an Asterisk config file: `;` would start a comment, a line
// break a new setting, brackets a new section. Refuse them rather than escape them.
const configValue = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^\s;[\]"\\{}]+$/, 'must not contain spaces, quotes, ; [ ] { } or backslashes');
const port = z.number().int().min(1).max(65535);
const ipv4 = z.ipv4();
const absolutePath = z
  .string()
  .startsWith('/', 'must be an absolute path')
  // Asterisk's control socket lives in <runDir>/run/asterisk.ctl: a Unix socket path is <108 bytes.
  .max(80, 'must be at most 80 characters (Asterisk puts a Unix socket under it)')
  .regex(/^[A-Za-z0-9._/-]+$/, 'may contain only letters, digits, . _ - and /');

/** What is wrong with a folder Asterisk is given (its run dir), as `absolutePath` says; undefined when nothing. */
export function asteriskPathProblem(folder: string): string | undefined {
  const result = absolutePath.safeParse(folder);
  return result.success ? undefined : result.error.issues[0]?.message;
}

/** A SIP URI of the provider or test phone: sip:[user@]host[:port][;params]. */
const trunkUri = z
  .string()
  .regex(
    /^sips?:(?:[^@\s;]+@)?(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?(?:;[A-Za-z0-9=._-]+)*$/,
    'must look like sip:host[:port] (for example sip:127.0.0.1:5070)',
  );

const trunkOptions = z
  .object({
    uri: trunkUri,
    username: configValue.optional(),
    password: configValue.optional(),
    register: z.boolean().default(false),
    fromDomain: configValue.optional(),
    transport: z.enum(['udp', 'tcp', 'tls']).default('udp'),
    mediaEncryption: z.enum(['none', 'sdes', 'dtls']).default('none'),
  })
  .refine((t) => (t.username === undefined) === (t.password === undefined), {
    message: 'trunk.username and trunk.password go together',
  })
  .refine((t) => !t.register || t.username !== undefined, {
    message: 'trunk.register needs trunk.username and trunk.password',
  });
type TrunkOptions = z.output<typeof trunkOptions>;

export const AsteriskConfigOptions = z
  .object({
    runDir: absolutePath,
    http: z.object({ bindAddress: ipv4.default('127.0.0.1'), port }),
    ari: z.object({
      user: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only'),
      password: configValue.min(12, 'must be at least 12 characters'),
    }),
    sip: z.object({
      bindAddress: ipv4.default('127.0.0.1'),
      port,
      // Behind NAT: the public address (or name) written into SIP headers and SDP for peers outside
      // `localNets`, and the networks that are reached directly.
      externalAddress: z
        .string()
        .regex(/^[A-Za-z0-9.-]{1,253}$/, 'must be an IPv4 address or a host name')
        .optional(),
      localNets: z
        .array(z.string().regex(/^[0-9.]+\/\d{1,2}$/, 'must be a network such as 192.168.0.0/16'))
        .default([]),
      // SIP over TLS, bound only when a trunk uses it; its certificate checked against caPem (the
      // authorities to trust, written beside the config) or the system's list.
      tlsPort: port.default(5061),
      caPem: z.string().includes('-----BEGIN CERTIFICATE-----', { message: 'must hold PEM certificates' }).optional(),
    }),
    rtp: z
      .object({ start: port, end: port })
      .refine((r) => r.end > r.start, 'rtp.end must be above rtp.start')
      .default({ start: 10000, end: 20000 }),
    // Without a trunk, calls can only go to the local softphone.
    trunk: trunkOptions.optional(),
    // A call the first trunk does not take goes out through this one.
    trunk2: trunkOptions.optional(),
    softphone: z
      .object({
        // Also the name of its endpoint and AOR: it must not be one of the other sections'.
        username: configValue
          .max(64)
          .regex(/^[A-Za-z0-9_.-]+$/, 'softphone.username may contain letters, digits, _ . and - only')
          .refine((name) => !RESERVED_SECTIONS.has(name), {
            message: `softphone.username must not be ${[...RESERVED_SECTIONS].join(', ')}`,
          }),
        password: configValue.min(8),
      })
      .optional(),
  })
  .strict();
export type AsteriskConfigInput = z.input<typeof AsteriskConfigOptions>;
export type AsteriskConfig = z.output<typeof AsteriskConfigOptions>;

export interface ParsedSipUri {
  scheme: 'sip' | 'sips';
  user: string | undefined;
  host: string;
  port: number | undefined;
}

export function parseSipUri(uri: string): ParsedSipUri {
  const m = /^(sips?):(?:([^@]+)@)?(\[[^\]]+\]|[^:;]+)(?::(\d+))?/.exec(uri);
  if (!m) throw new Error(`not a SIP URI: ${uri}`);
  return {
    scheme: m[1] as 'sip' | 'sips',
    user: m[2],
    host: m[3]!,
    port: m[4] === undefined ? undefined : Number(m[4]),
  };
}

function hostPort(u: ParsedSipUri): string {
  return u.port === undefined ? u.host : `${u.host}:${u.port}`;
}

type TemplateValue = string | number | boolean | undefined;
export type TemplateVars = { [name: string]: TemplateValue | TemplateVars[] };

/**
 * Fills `{{name}}` and keeps `{{#name}}…{{/name}}` blocks only when `name` is truthy; a block whose
 * value is a list is written once per item, with the item's values.
 */
export function renderTemplate(template: string, vars: TemplateVars): string {
  // Blocks may nest: expand until none is left.
  let withBlocks = template;
  for (let previous = ''; previous !== withBlocks; ) {
    previous = withBlocks;
    withBlocks = withBlocks.replace(
      /\{\{#(\w+)\}\}\n?([\s\S]*?)\{\{\/\1\}\}\n?/g,
      (_all, name: string, body: string) => {
        const value = vars[name];
        if (Array.isArray(value)) return value.map((item) => renderTemplate(body, { ...vars, ...item })).join('');
        return value ? body : '';
      },
    );
  }
  return withBlocks.replace(/\{\{(\w+)\}\}/g, (_all, name: string) => {
    const value = vars[name];
    if (value === undefined || value === false || Array.isArray(value)) {
      throw new Error(`template variable {{${name}}} has no value`);
    }
    return String(value);
  });
}

/** Where the system's certificate authorities are, in Debian's root file system and on the host. */
export const SYSTEM_CA_FILE = '/etc/ssl/certs/ca-certificates.crt';
export const TRUNK_CA_FILE = 'trunk-ca.pem';
/** Every template rendered, and the trunk's certificate authorities when they are not the system's. */
export type RenderedConfig = Record<TemplateFile, string> & { [TRUNK_CA_FILE]?: string };

/** Validates the options and renders every file; keys are file names under <runDir>/etc. */
export function renderAsteriskConfig(input: AsteriskConfigInput, templates: AsteriskTemplates): RenderedConfig {
  const o = AsteriskConfigOptions.parse(input);
  const trunks = [o.trunk && trunkVars('trunk', o.trunk), o.trunk2 && trunkVars('trunk2', o.trunk2)].filter(
    (t) => t !== undefined,
  );
  const used = new Set([o.trunk?.transport, o.trunk2?.transport]);
  const transports = [
    { transportProtocol: 'udp', transportPort: o.sip.port },
    ...(used.has('tcp') ? [{ transportProtocol: 'tcp', transportPort: o.sip.port }] : []),
    ...(used.has('tls') ? [{ transportProtocol: 'tls', transportPort: o.sip.tlsPort, transportTls: true }] : []),
  ];
  const vars: TemplateVars = {
    runDir: o.runDir,
    httpBindAddress: o.http.bindAddress,
    httpPort: o.http.port,
    ariUser: o.ari.user,
    ariPassword: o.ari.password,
    sipBindAddress: o.sip.bindAddress,
    sipPort: o.sip.port,
    rtpStart: o.rtp.start,
    rtpEnd: o.rtp.end,
    trunks,
    transports,
    trunkCaFile: o.sip.caPem === undefined ? SYSTEM_CA_FILE : `${o.runDir}/etc/${TRUNK_CA_FILE}`,
    externalAddress: o.sip.externalAddress,
    localNets: o.sip.localNets.map((net) => ({ localNet: net })),
    // Behind NAT the router forgets an idle UDP binding after 30 to 180 s: the registration is
    // renewed every minute to hold it. Not an OPTIONS qualify: a provider that does not answer
    // OPTIONS would have its trunk marked unreachable and every call refused (seen in the lab).
    trunkExpiration: o.sip.externalAddress ? 60 : 3600,
    softphone: o.softphone !== undefined,
    softphoneUsername: o.softphone?.username,
    softphonePassword: o.softphone?.password,
  };
  const out = {} as RenderedConfig;
  for (const file of TEMPLATE_FILES) out[file] = renderTemplate(templates[file], vars);
  if (o.sip.caPem !== undefined) out[TRUNK_CA_FILE] = o.sip.caPem;
  return out;
}

/** One trunk's values for its sections in pjsip.conf. */
function trunkVars(name: string, options: TrunkOptions): TemplateVars {
  const uri = parseSipUri(options.uri);
  // A sips: URI only chose TLS: Asterisk is given sip: with the transport named, which every
  // provider's TLS port takes (a sips: Request-URI asks for TLS on every hop beyond it, too). The
  // parameter's `;` is escaped: unescaped, it starts a comment in Asterisk's configuration.
  const server =
    options.transport === 'udp' ? `sip:${hostPort(uri)}` : `sip:${hostPort(uri)}\\;transport=${options.transport}`;
  return {
    trunkName: name,
    trunkTransport: `transport-${options.transport}`,
    trunkSdes: options.mediaEncryption === 'sdes',
    trunkDtls: options.mediaEncryption === 'dtls',
    trunkContact: server,
    trunkHost: uri.host.replace(/^\[|\]$/g, ''),
    trunkAuth: options.username !== undefined,
    trunkUsername: options.username,
    trunkPassword: options.password,
    trunkRegister: options.register,
    trunkServerUri: server,
    trunkClientUri: `sip:${options.username ?? ''}@${hostPort(uri)}`,
    trunkFromDomain: options.fromDomain,
  };
}
