// The SMS gateway's part of the configuration: its variables, the checks across them, and the
// typed result. Read with the rest of the configuration (src/config/index.ts), by the same rules.
import { z } from 'zod';
import { DEFAULTS } from './defaults.js';
import { httpUrl, isHttpUrl, onOff, wholeNumber } from './rules.js';
import { genericTemplateProblems, KANNEL_URL_EXAMPLE, kannelUrlProblem } from './sms-rules.js';

export const SMS_ENV = {
  gateway: 'RINGHOOK_SMS_GATEWAY',
  from: 'RINGHOOK_SMS_FROM',
  maxParts: 'RINGHOOK_SMS_MAX_PARTS',
  dlrUrl: 'RINGHOOK_SMS_DLR_URL',
  timeoutMs: 'RINGHOOK_SMS_TIMEOUT_MS',
  retryAttempts: 'RINGHOOK_SMS_RETRY_ATTEMPTS',
  retryDelayMs: 'RINGHOOK_SMS_RETRY_DELAY_MS',
  httpPreset: 'RINGHOOK_SMS_HTTP_PRESET',
  httpUrl: 'RINGHOOK_SMS_HTTP_URL',
  httpMethod: 'RINGHOOK_SMS_HTTP_METHOD',
  httpHeaders: 'RINGHOOK_SMS_HTTP_HEADERS',
  httpBody: 'RINGHOOK_SMS_HTTP_BODY',
  httpBodyFormat: 'RINGHOOK_SMS_HTTP_BODY_FORMAT',
  httpSuccessStatus: 'RINGHOOK_SMS_HTTP_SUCCESS_STATUS',
  httpSuccessMatch: 'RINGHOOK_SMS_HTTP_SUCCESS_MATCH',
  httpIdField: 'RINGHOOK_SMS_HTTP_ID_FIELD',
  twilioAccountSid: 'RINGHOOK_SMS_TWILIO_ACCOUNT_SID',
  twilioAuthToken: 'RINGHOOK_SMS_TWILIO_AUTH_TOKEN',
  smppUrl: 'RINGHOOK_SMPP_URL',
  smppSystemType: 'RINGHOOK_SMPP_SYSTEM_TYPE',
  smppSourceTon: 'RINGHOOK_SMPP_SOURCE_TON',
  smppSourceNpi: 'RINGHOOK_SMPP_SOURCE_NPI',
  smppDestTon: 'RINGHOOK_SMPP_DEST_TON',
  smppDestNpi: 'RINGHOOK_SMPP_DEST_NPI',
  smppUsePayload: 'RINGHOOK_SMPP_USE_MESSAGE_PAYLOAD',
  smppDeliveryReceipts: 'RINGHOOK_SMPP_DELIVERY_RECEIPTS',
  smppEnquireLinkS: 'RINGHOOK_SMPP_ENQUIRE_LINK_S',
  smppConnectTimeoutMs: 'RINGHOOK_SMPP_CONNECT_TIMEOUT_MS',
  smppReconnectMinMs: 'RINGHOOK_SMPP_RECONNECT_MIN_MS',
  smppReconnectMaxMs: 'RINGHOOK_SMPP_RECONNECT_MAX_MS',
  smppThrottleRetries: 'RINGHOOK_SMPP_THROTTLE_RETRIES',
  smppThrottleDelayMs: 'RINGHOOK_SMPP_THROTTLE_DELAY_MS',
  smppTlsInsecure: 'RINGHOOK_SMPP_TLS_INSECURE',
} as const;

const D = DEFAULTS.sms;

export type HttpPreset = 'kannel' | 'twilio' | 'generic';

interface CommonSmsConfig {
  from: string;
  maxParts: number;
  /** Public URL of ringhook's delivery-report endpoint (HTTP gateways); null: no reports asked for. */
  dlrUrl: string | null;
  timeoutMs: number;
  retryAttempts: number;
  retryDelayMs: number;
}

export interface KannelConfig {
  preset: 'kannel';
  /** The sendsms URL with username and password query parameters. */
  url: string;
}
export interface TwilioConfig {
  preset: 'twilio';
  /** API base, https://api.twilio.com unless pointed elsewhere (tests, Twilio-compatible APIs). */
  baseUrl: string;
  accountSid: string;
  authToken: string;
}
export interface GenericHttpConfig {
  preset: 'generic';
  /** URL template: {to} {from} {text} {reference} are replaced, URL-encoded. */
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Body template (POST), placeholders escaped per bodyFormat; null sends no body. */
  body: string | null;
  bodyFormat: 'json' | 'form';
  /** Status codes that mean accepted. */
  successStatus: (status: number) => boolean;
  successStatusText: string;
  /** When set, the response body must match too. */
  successMatch: RegExp | null;
  /** Dotted path of the message id in a JSON reply, e.g. "sid" or "data.id". */
  idField: string | null;
}
export type HttpGatewayConfig = KannelConfig | TwilioConfig | GenericHttpConfig;

export interface SmppConfig {
  host: string;
  port: number;
  tls: boolean;
  tlsInsecure: boolean;
  systemId: string;
  password: string;
  systemType: string;
  /** 'auto': international (1/1) for +digits, alphanumeric (5/0) for letters, unknown (0/1) otherwise. */
  sourceTon: number | 'auto';
  sourceNpi: number | 'auto';
  destTon: number;
  destNpi: number;
  usePayload: boolean;
  deliveryReceipts: boolean;
  enquireLinkMs: number;
  connectTimeoutMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  throttleRetries: number;
  throttleDelayMs: number;
}

export type SmsConfig =
  | ({ gateway: 'none' } & Partial<CommonSmsConfig>)
  | ({ gateway: 'http'; http: HttpGatewayConfig } & CommonSmsConfig)
  | ({ gateway: 'smpp'; smpp: SmppConfig } & CommonSmsConfig);

const tonOrAuto = (name: string) =>
  z
    .string()
    .regex(/^(auto|\d{1,3})$/i, { error: `${name} must be "auto" or a number 0-255 (e.g. 1 international, 5 alphanumeric)` })
    .transform((v) => (v.toLowerCase() === 'auto' ? ('auto' as const) : Number(v)))
    .refine((v) => v === 'auto' || v <= 255, { error: `${name} must be at most 255` });

const lowerEnum = <const T extends readonly [string, ...string[]]>(values: T, error: string) => z.string().toLowerCase().pipe(z.enum(values, { error }));

/** The SMS variables: each has its default here, applied once, or is optional (the gateway does not need it). */
export const smsFields = {
  [SMS_ENV.gateway]: lowerEnum(
    ['none', 'http', 'smpp'],
    `${SMS_ENV.gateway} must be none, http or smpp (none turns SMS backup off; http for Kannel, Twilio or another HTTP API; smpp for an SMSC)`,
  ).default(D.gateway),
  [SMS_ENV.from]: z
    .string()
    .refine((v) => /^\+?\d{1,15}$/.test(v) || /^[A-Za-z0-9 ._-]{1,11}$/.test(v), {
      error: `${SMS_ENV.from} must be a phone number (+15551234567), a short code (12345) or an alphanumeric sender of at most 11 characters (RINGHOOK)`,
    })
    .optional(),
  [SMS_ENV.maxParts]: wholeNumber(SMS_ENV.maxParts, { min: 1, max: 16 }, 'the parts one alert SMS may take', D.maxParts).default(D.maxParts),
  [SMS_ENV.dlrUrl]: httpUrl(SMS_ENV.dlrUrl, 'https://ringhook.example.com/sms/dlr').optional(),
  [SMS_ENV.timeoutMs]: wholeNumber(SMS_ENV.timeoutMs, { min: 100, max: 120_000 }, 'milliseconds to wait for the gateway', D.timeoutMs).default(D.timeoutMs),
  [SMS_ENV.retryAttempts]: wholeNumber(
    SMS_ENV.retryAttempts,
    { min: 1, max: 10 },
    'attempts while the gateway certainly did not take the SMS',
    D.retryAttempts,
  ).default(D.retryAttempts),
  [SMS_ENV.retryDelayMs]: wholeNumber(
    SMS_ENV.retryDelayMs,
    { min: 0, max: 60_000 },
    'first pause between attempts in milliseconds, doubled each time',
    D.retryDelayMs,
  ).default(D.retryDelayMs),
  [SMS_ENV.httpPreset]: lowerEnum(['kannel', 'twilio', 'generic'], `${SMS_ENV.httpPreset} must be kannel, twilio or generic`).optional(),
  [SMS_ENV.httpUrl]: z.string().optional(),
  [SMS_ENV.httpMethod]: z
    .string()
    .toUpperCase()
    .pipe(z.enum(['GET', 'POST'], { error: `${SMS_ENV.httpMethod} must be GET or POST` }))
    .default(D.httpMethod),
  [SMS_ENV.httpHeaders]: z
    .string()
    .transform((v, ctx) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(v);
      } catch {
        parsed = undefined;
      }
      const r = z.record(z.string(), z.string()).safeParse(parsed);
      if (r.success) return r.data;
      ctx.addIssue({ code: 'custom', message: `${SMS_ENV.httpHeaders} must be a JSON object of strings, e.g. {"Authorization":"Bearer TOKEN"}` });
      return z.NEVER;
    })
    .optional(),
  [SMS_ENV.httpBody]: z.string().optional(),
  [SMS_ENV.httpBodyFormat]: lowerEnum(['json', 'form'], `${SMS_ENV.httpBodyFormat} must be json or form`).default(D.httpBodyFormat),
  [SMS_ENV.httpSuccessStatus]: z
    .string()
    .regex(/^\s*(\dxx|\d{3})(\s*,\s*(\dxx|\d{3}))*\s*$/i, { error: `${SMS_ENV.httpSuccessStatus} must list status codes or classes, e.g. "2xx" or "200,201"` })
    .default(D.httpSuccessStatus),
  [SMS_ENV.httpSuccessMatch]: z
    .string()
    .refine(
      (v) => {
        try {
          new RegExp(v);
          return true;
        } catch {
          return false;
        }
      },
      { error: `${SMS_ENV.httpSuccessMatch} must be a valid regular expression, e.g. ^0: Accepted` },
    )
    .optional(),
  [SMS_ENV.httpIdField]: z
    .string()
    .regex(/^[\w$-]+(\.[\w$-]+)*$/, { error: `${SMS_ENV.httpIdField} must be a dotted JSON path such as sid or data.id` })
    .optional(),
  [SMS_ENV.twilioAccountSid]: z.string().optional(),
  [SMS_ENV.twilioAuthToken]: z.string().optional(),
  [SMS_ENV.smppUrl]: z.string().optional(),
  [SMS_ENV.smppSystemType]: z
    .string()
    .max(12, { error: `${SMS_ENV.smppSystemType} must be at most 12 characters` })
    .optional(),
  [SMS_ENV.smppSourceTon]: tonOrAuto(SMS_ENV.smppSourceTon).optional(),
  [SMS_ENV.smppSourceNpi]: tonOrAuto(SMS_ENV.smppSourceNpi).optional(),
  [SMS_ENV.smppDestTon]: wholeNumber(SMS_ENV.smppDestTon, { min: 0, max: 255 }, 'type of number of the destination, 1 international', D.smppDestTon).default(
    D.smppDestTon,
  ),
  [SMS_ENV.smppDestNpi]: wholeNumber(SMS_ENV.smppDestNpi, { min: 0, max: 255 }, 'numbering plan of the destination, 1 E.164', D.smppDestNpi).default(
    D.smppDestNpi,
  ),
  [SMS_ENV.smppUsePayload]: onOff(SMS_ENV.smppUsePayload).optional(),
  [SMS_ENV.smppDeliveryReceipts]: onOff(SMS_ENV.smppDeliveryReceipts).default(D.smppDeliveryReceipts),
  [SMS_ENV.smppEnquireLinkS]: wholeNumber(
    SMS_ENV.smppEnquireLinkS,
    { min: 1, max: 3600 },
    'seconds between enquire_link keep-alives',
    D.smppEnquireLinkS,
  ).default(D.smppEnquireLinkS),
  [SMS_ENV.smppConnectTimeoutMs]: wholeNumber(
    SMS_ENV.smppConnectTimeoutMs,
    { min: 100, max: 120_000 },
    'how long a send waits for a bound session, in milliseconds',
    D.smppConnectTimeoutMs,
  ).default(D.smppConnectTimeoutMs),
  [SMS_ENV.smppReconnectMinMs]: wholeNumber(
    SMS_ENV.smppReconnectMinMs,
    { min: 10, max: 600_000 },
    'first reconnect pause in milliseconds',
    D.smppReconnectMinMs,
  ).default(D.smppReconnectMinMs),
  [SMS_ENV.smppReconnectMaxMs]: wholeNumber(
    SMS_ENV.smppReconnectMaxMs,
    { min: 10, max: 3_600_000 },
    'longest reconnect pause in milliseconds',
    D.smppReconnectMaxMs,
  ).default(D.smppReconnectMaxMs),
  [SMS_ENV.smppThrottleRetries]: wholeNumber(
    SMS_ENV.smppThrottleRetries,
    { min: 0, max: 20 },
    'retries of a submit answered ESME_RTHROTTLED',
    D.smppThrottleRetries,
  ).default(D.smppThrottleRetries),
  [SMS_ENV.smppThrottleDelayMs]: wholeNumber(
    SMS_ENV.smppThrottleDelayMs,
    { min: 0, max: 60_000 },
    'pause before retrying a throttled submit, in milliseconds',
    D.smppThrottleDelayMs,
  ).default(D.smppThrottleDelayMs),
  [SMS_ENV.smppTlsInsecure]: onOff(SMS_ENV.smppTlsInsecure).optional(),
};

type SmsEnv = z.output<z.ZodObject<typeof smsFields>>;

function parseStatusList(spec: string): (status: number) => boolean {
  const items = spec.split(',').map((s) => s.trim().toLowerCase());
  return (status) => items.some((item) => (item.endsWith('xx') ? Math.floor(status / 100) === Number(item[0]) : status === Number(item)));
}

function parseSmppUrl(raw: string): Pick<SmppConfig, 'host' | 'port' | 'tls' | 'systemId' | 'password'> | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if ((u.protocol !== 'smpp:' && u.protocol !== 'smpps:') || !u.hostname || !u.username) return null;
  const tls = u.protocol === 'smpps:';
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : tls ? D.smppsPort : D.smppPort,
    tls,
    systemId: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  };
}

/** Checks across the SMS variables: what the chosen gateway needs. */
export function checkSmsVariables(env: SmsEnv, issue: (variable: string, message: string) => void): void {
  const gateway = env[SMS_ENV.gateway];
  if (gateway === 'none') return;
  if (!env[SMS_ENV.from])
    issue(SMS_ENV.from, `${SMS_ENV.from} is required when ${SMS_ENV.gateway}=${gateway}: the sender number or name, e.g. +15551234567 or RINGHOOK`);
  if (gateway === 'smpp') {
    const url = env[SMS_ENV.smppUrl];
    if (!url)
      issue(
        SMS_ENV.smppUrl,
        `${SMS_ENV.smppUrl} is required when ${SMS_ENV.gateway}=smpp, e.g. smpp://system_id:password@smsc.example.com:2775 (smpps:// for TLS)`,
      );
    else if (!parseSmppUrl(url))
      issue(
        SMS_ENV.smppUrl,
        `${SMS_ENV.smppUrl} must look like smpp://system_id:password@host:port (smpps:// for TLS); percent-encode special characters in the password`,
      );
    const min = env[SMS_ENV.smppReconnectMinMs];
    const max = env[SMS_ENV.smppReconnectMaxMs];
    if (min > max) issue(SMS_ENV.smppReconnectMaxMs, `${SMS_ENV.smppReconnectMaxMs} (${max}) must not be below ${SMS_ENV.smppReconnectMinMs} (${min})`);
    return;
  }
  const preset = env[SMS_ENV.httpPreset];
  const url = env[SMS_ENV.httpUrl];
  if (!preset) {
    issue(SMS_ENV.httpPreset, `${SMS_ENV.httpPreset} is required when ${SMS_ENV.gateway}=http: kannel, twilio or generic`);
    return;
  }
  if (preset === 'kannel') {
    const problem = url ? kannelUrlProblem(url) : `is required for the kannel preset, e.g. ${KANNEL_URL_EXAMPLE}`;
    if (problem) issue(SMS_ENV.httpUrl, `${SMS_ENV.httpUrl} ${problem}`);
  } else if (preset === 'twilio') {
    if (url && !isHttpUrl(url))
      issue(SMS_ENV.httpUrl, `${SMS_ENV.httpUrl} (the API base for the twilio preset) must be an http(s) URL; leave it unset for ${D.twilioBaseUrl}`);
    if (!env[SMS_ENV.twilioAccountSid])
      issue(SMS_ENV.twilioAccountSid, `${SMS_ENV.twilioAccountSid} is required for the twilio preset (the Account SID, AC...)`);
    if (!env[SMS_ENV.twilioAuthToken])
      issue(SMS_ENV.twilioAuthToken, `${SMS_ENV.twilioAuthToken} is required for the twilio preset (the Auth Token or API secret)`);
  } else if (!url) {
    issue(SMS_ENV.httpUrl, `${SMS_ENV.httpUrl} is required for the generic preset: the URL template, e.g. https://sms.example.com/send?to={to}`);
  } else {
    const method = env[SMS_ENV.httpMethod];
    for (const p of genericTemplateProblems({ url, method, body: env[SMS_ENV.httpBody] })) {
      const variable = p.part === 'url' ? SMS_ENV.httpUrl : SMS_ENV.httpBody;
      issue(variable, `${variable} ${p.message}`);
    }
  }
}

function httpGateway(env: SmsEnv): HttpGatewayConfig {
  const preset = env[SMS_ENV.httpPreset]!;
  if (preset === 'kannel') return { preset, url: env[SMS_ENV.httpUrl]! };
  if (preset === 'twilio') {
    return {
      preset,
      baseUrl: (env[SMS_ENV.httpUrl] ?? D.twilioBaseUrl).replace(/\/+$/, ''),
      accountSid: env[SMS_ENV.twilioAccountSid]!,
      authToken: env[SMS_ENV.twilioAuthToken]!,
    };
  }
  const statusSpec = env[SMS_ENV.httpSuccessStatus];
  const match = env[SMS_ENV.httpSuccessMatch];
  return {
    preset,
    url: env[SMS_ENV.httpUrl]!,
    method: env[SMS_ENV.httpMethod],
    headers: env[SMS_ENV.httpHeaders] ?? {},
    body: env[SMS_ENV.httpBody] ?? null,
    bodyFormat: env[SMS_ENV.httpBodyFormat],
    successStatus: parseStatusList(statusSpec),
    successStatusText: statusSpec,
    successMatch: match ? new RegExp(match) : null,
    idField: env[SMS_ENV.httpIdField] ?? null,
  };
}

/** The SMS configuration, from variables that passed checkSmsVariables. */
export function smsConfigFrom(env: SmsEnv): SmsConfig {
  const gateway = env[SMS_ENV.gateway];
  if (gateway === 'none') return { gateway: 'none' };
  const common: CommonSmsConfig = {
    from: env[SMS_ENV.from] ?? '',
    maxParts: env[SMS_ENV.maxParts],
    dlrUrl: env[SMS_ENV.dlrUrl] ?? null,
    timeoutMs: env[SMS_ENV.timeoutMs],
    retryAttempts: env[SMS_ENV.retryAttempts],
    retryDelayMs: env[SMS_ENV.retryDelayMs],
  };
  if (gateway === 'http') return { gateway: 'http', ...common, http: httpGateway(env) };
  return {
    gateway: 'smpp',
    ...common,
    smpp: {
      ...parseSmppUrl(env[SMS_ENV.smppUrl]!)!,
      tlsInsecure: env[SMS_ENV.smppTlsInsecure] ?? false,
      systemType: env[SMS_ENV.smppSystemType] ?? '',
      sourceTon: env[SMS_ENV.smppSourceTon] ?? 'auto',
      sourceNpi: env[SMS_ENV.smppSourceNpi] ?? 'auto',
      destTon: env[SMS_ENV.smppDestTon],
      destNpi: env[SMS_ENV.smppDestNpi],
      usePayload: env[SMS_ENV.smppUsePayload] ?? false,
      deliveryReceipts: env[SMS_ENV.smppDeliveryReceipts],
      enquireLinkMs: env[SMS_ENV.smppEnquireLinkS] * 1000,
      connectTimeoutMs: env[SMS_ENV.smppConnectTimeoutMs],
      reconnectMinMs: env[SMS_ENV.smppReconnectMinMs],
      reconnectMaxMs: env[SMS_ENV.smppReconnectMaxMs],
      throttleRetries: env[SMS_ENV.smppThrottleRetries],
      throttleDelayMs: env[SMS_ENV.smppThrottleDelayMs],
    },
  };
}
