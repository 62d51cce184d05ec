// SMS gateway configuration from environment variables: one zod schema, typed result, and error
// messages that name the variable and say how to fix it. Nothing is read at import time.

import { z } from 'zod';

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

/** Named defaults, each with the reason for its value. */
export const SMS_DEFAULTS = {
  /** A 500-character alert fits in 4 GSM parts or 8 UCS-2 parts (see buildSmsText). */
  maxParts: 8,
  /** Time for one gateway request or SMPP response: the target is "SMS handed over in under 1 s". */
  timeoutMs: 10_000,
  /** Attempts while the gateway certainly did not take the message (refused, 429/503, throttled). */
  retryAttempts: 3,
  /** First pause between attempts; doubled each time. */
  retryDelayMs: 500,
  twilioBaseUrl: 'https://api.twilio.com',
  smppPort: 2775,
  smppsPort: 3550,
  /** Every 30 s: below the idle timeout of the SMSCs seen in practice (60 s and up). */
  smppEnquireLinkS: 30,
  smppConnectTimeoutMs: 5_000,
  smppReconnectMinMs: 1_000,
  smppReconnectMaxMs: 30_000,
  smppThrottleRetries: 3,
  smppThrottleDelayMs: 1_000,
} as const;

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

export type AddrTon = number;
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

// ---- building blocks -----------------------------------------------------------------------

/** An unset or blank variable is absent. */
const opt = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : typeof v === 'string' ? v.trim() : v), schema.optional());

const intVar = (name: string, min: number, max: number, hint: string) =>
  opt(
    z
      .string()
      .regex(/^\d+$/, { error: `${name} must be a whole number from ${min} to ${max}. ${hint}` })
      .transform(Number)
      .pipe(z.number().min(min, { error: `${name} must be at least ${min}. ${hint}` }).max(max, { error: `${name} must be at most ${max}. ${hint}` })),
  );

const boolVar = (name: string) =>
  opt(
    z
      .string()
      .toLowerCase()
      .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: `${name} must be true or false.` }))
      .transform((v) => ['true', '1', 'yes', 'on'].includes(v)),
  );

const tonVar = (name: string) =>
  opt(
    z
      .string()
      .regex(/^(auto|\d{1,3})$/i, { error: `${name} must be "auto" or a number 0-255 (e.g. 1 international, 5 alphanumeric).` })
      .transform((v) => (v.toLowerCase() === 'auto' ? ('auto' as const) : Number(v)))
      .refine((v) => v === 'auto' || v <= 255, { error: `${name} must be at most 255.` }),
  );

const httpUrl = (name: string, example: string) =>
  z.string().refine(
    (v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    },
    { error: `${name} must be an http:// or https:// URL, e.g. ${example}.` },
  );

const KANNEL_EXAMPLE = 'http://127.0.0.1:13013/cgi-bin/sendsms?username=ringhook&password=SECRET';

/** The raw environment, variable by variable. */
export const smsEnvSchema = z.object({
  [SMS_ENV.gateway]: opt(
    z.string().toLowerCase().pipe(
      z.enum(['none', 'http', 'smpp'], {
        error: `${SMS_ENV.gateway} must be none, http or smpp (none turns SMS backup off; http for Kannel, Twilio or another HTTP API; smpp for an SMSC).`,
      }),
    ),
  ),
  [SMS_ENV.from]: opt(
    z.string().refine((v) => /^\+?\d{1,15}$/.test(v) || /^[A-Za-z0-9 ._-]{1,11}$/.test(v), {
      error: `${SMS_ENV.from} must be a phone number (+15551234567), a short code (12345) or an alphanumeric sender of at most 11 characters (RINGHOOK).`,
    }),
  ),
  [SMS_ENV.maxParts]: intVar(SMS_ENV.maxParts, 1, 16, 'It caps one alert SMS at that many concatenated parts (default 8).'),
  [SMS_ENV.dlrUrl]: opt(httpUrl(SMS_ENV.dlrUrl, 'https://ringhook.example.com/sms/dlr')),
  [SMS_ENV.timeoutMs]: intVar(SMS_ENV.timeoutMs, 100, 120_000, 'Milliseconds to wait for the gateway (default 10000).'),
  [SMS_ENV.retryAttempts]: intVar(SMS_ENV.retryAttempts, 1, 10, 'Attempts while the gateway certainly did not take the SMS (default 3).'),
  [SMS_ENV.retryDelayMs]: intVar(SMS_ENV.retryDelayMs, 0, 60_000, 'First pause between attempts, doubled each time (default 500).'),
  [SMS_ENV.httpPreset]: opt(
    z.string().toLowerCase().pipe(z.enum(['kannel', 'twilio', 'generic'], { error: `${SMS_ENV.httpPreset} must be kannel, twilio or generic.` })),
  ),
  [SMS_ENV.httpUrl]: opt(z.string()),
  [SMS_ENV.httpMethod]: opt(z.string().toUpperCase().pipe(z.enum(['GET', 'POST'], { error: `${SMS_ENV.httpMethod} must be GET or POST.` }))),
  [SMS_ENV.httpHeaders]: opt(
    z.string().transform((v, ctx) => {
      const fail = () => {
        ctx.addIssue({ code: 'custom', message: `${SMS_ENV.httpHeaders} must be a JSON object of strings, e.g. {"Authorization":"Bearer TOKEN"}.` });
        return z.NEVER;
      };
      try {
        const parsed: unknown = JSON.parse(v);
        const r = z.record(z.string(), z.string()).safeParse(parsed);
        return r.success ? r.data : fail();
      } catch {
        return fail();
      }
    }),
  ),
  [SMS_ENV.httpBody]: opt(z.string()),
  [SMS_ENV.httpBodyFormat]: opt(z.string().toLowerCase().pipe(z.enum(['json', 'form'], { error: `${SMS_ENV.httpBodyFormat} must be json or form.` }))),
  [SMS_ENV.httpSuccessStatus]: opt(
    z.string().regex(/^\s*(\dxx|\d{3})(\s*,\s*(\dxx|\d{3}))*\s*$/i, {
      error: `${SMS_ENV.httpSuccessStatus} must list status codes or classes, e.g. "2xx" or "200,201".`,
    }),
  ),
  [SMS_ENV.httpSuccessMatch]: opt(
    z.string().refine(
      (v) => {
        try {
          new RegExp(v);
          return true;
        } catch {
          return false;
        }
      },
      { error: `${SMS_ENV.httpSuccessMatch} must be a valid regular expression, e.g. ^0: Accepted.` },
    ),
  ),
  [SMS_ENV.httpIdField]: opt(z.string().regex(/^[\w$-]+(\.[\w$-]+)*$/, { error: `${SMS_ENV.httpIdField} must be a dotted JSON path such as sid or data.id.` })),
  [SMS_ENV.twilioAccountSid]: opt(z.string()),
  [SMS_ENV.twilioAuthToken]: opt(z.string()),
  [SMS_ENV.smppUrl]: opt(z.string()),
  [SMS_ENV.smppSystemType]: opt(z.string().max(12, { error: `${SMS_ENV.smppSystemType} must be at most 12 characters.` })),
  [SMS_ENV.smppSourceTon]: tonVar(SMS_ENV.smppSourceTon),
  [SMS_ENV.smppSourceNpi]: tonVar(SMS_ENV.smppSourceNpi),
  [SMS_ENV.smppDestTon]: intVar(SMS_ENV.smppDestTon, 0, 255, 'Type of number of the destination (default 1, international).'),
  [SMS_ENV.smppDestNpi]: intVar(SMS_ENV.smppDestNpi, 0, 255, 'Numbering plan of the destination (default 1, E.164).'),
  [SMS_ENV.smppUsePayload]: boolVar(SMS_ENV.smppUsePayload),
  [SMS_ENV.smppDeliveryReceipts]: boolVar(SMS_ENV.smppDeliveryReceipts),
  [SMS_ENV.smppEnquireLinkS]: intVar(SMS_ENV.smppEnquireLinkS, 1, 3600, 'Seconds between enquire_link keep-alives (default 30).'),
  [SMS_ENV.smppConnectTimeoutMs]: intVar(SMS_ENV.smppConnectTimeoutMs, 100, 120_000, 'How long send() waits for a bound session (default 5000).'),
  [SMS_ENV.smppReconnectMinMs]: intVar(SMS_ENV.smppReconnectMinMs, 10, 600_000, 'First reconnect pause (default 1000).'),
  [SMS_ENV.smppReconnectMaxMs]: intVar(SMS_ENV.smppReconnectMaxMs, 10, 3_600_000, 'Longest reconnect pause (default 30000).'),
  [SMS_ENV.smppThrottleRetries]: intVar(SMS_ENV.smppThrottleRetries, 0, 20, 'Retries of a submit answered ESME_RTHROTTLED (default 3).'),
  [SMS_ENV.smppThrottleDelayMs]: intVar(SMS_ENV.smppThrottleDelayMs, 0, 60_000, 'Pause before retrying a throttled submit (default 1000).'),
  [SMS_ENV.smppTlsInsecure]: boolVar(SMS_ENV.smppTlsInsecure),
});

type SmsEnv = z.output<typeof smsEnvSchema>;

function parseStatusList(spec: string): (status: number) => boolean {
  const items = spec.split(',').map((s) => s.trim().toLowerCase());
  return (status) => items.some((item) => (item.endsWith('xx') ? Math.floor(status / 100) === Number(item[0]) : status === Number(item)));
}

function parseSmppUrl(raw: string): { ok: true; value: Pick<SmppConfig, 'host' | 'port' | 'tls' | 'systemId' | 'password'> } | { ok: false } {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { ok: false };
  }
  if ((u.protocol !== 'smpp:' && u.protocol !== 'smpps:') || !u.hostname || !u.username) return { ok: false };
  const tls = u.protocol === 'smpps:';
  return {
    ok: true,
    value: {
      host: u.hostname.replace(/^\[|\]$/g, ''),
      port: u.port ? Number(u.port) : tls ? SMS_DEFAULTS.smppsPort : SMS_DEFAULTS.smppPort,
      tls,
      systemId: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
    },
  };
}

function kannelUrlProblem(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `${SMS_ENV.httpUrl} must be Kannel's sendsms URL, e.g. ${KANNEL_EXAMPLE}.`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `${SMS_ENV.httpUrl} must be an http:// or https:// URL, e.g. ${KANNEL_EXAMPLE}.`;
  if (!u.searchParams.get('username') || !u.searchParams.get('password')) {
    return `${SMS_ENV.httpUrl} must carry the sendsms-user's username and password as query parameters, e.g. ${KANNEL_EXAMPLE}.`;
  }
  return null;
}

/** The environment, checked across variables and shaped into an SmsConfig. */
export const smsConfigSchema = smsEnvSchema
  .superRefine((env, ctx) => {
    const issue = (variable: string, message: string) => ctx.addIssue({ code: 'custom', path: [variable], message });
    const gateway = env[SMS_ENV.gateway] ?? 'none';
    if (gateway === 'none') return;
    if (!env[SMS_ENV.from]) issue(SMS_ENV.from, `${SMS_ENV.from} is required when ${SMS_ENV.gateway}=${gateway}: the sender number or name, e.g. +15551234567 or RINGHOOK.`);
    if (gateway === 'http') {
      const preset = env[SMS_ENV.httpPreset];
      const url = env[SMS_ENV.httpUrl];
      if (!preset) {
        issue(SMS_ENV.httpPreset, `${SMS_ENV.httpPreset} is required when ${SMS_ENV.gateway}=http: kannel, twilio or generic.`);
        return;
      }
      if (preset === 'kannel') {
        if (!url) issue(SMS_ENV.httpUrl, `${SMS_ENV.httpUrl} is required for the kannel preset, e.g. ${KANNEL_EXAMPLE}.`);
        else {
          const problem = kannelUrlProblem(url);
          if (problem) issue(SMS_ENV.httpUrl, problem);
        }
      } else if (preset === 'twilio') {
        if (url && !httpUrl(SMS_ENV.httpUrl, SMS_DEFAULTS.twilioBaseUrl).safeParse(url).success) {
          issue(SMS_ENV.httpUrl, `${SMS_ENV.httpUrl} (the API base for the twilio preset) must be an http(s) URL; leave it unset for ${SMS_DEFAULTS.twilioBaseUrl}.`);
        }
        if (!env[SMS_ENV.twilioAccountSid]) issue(SMS_ENV.twilioAccountSid, `${SMS_ENV.twilioAccountSid} is required for the twilio preset (the Account SID, AC...).`);
        if (!env[SMS_ENV.twilioAuthToken]) issue(SMS_ENV.twilioAuthToken, `${SMS_ENV.twilioAuthToken} is required for the twilio preset (the Auth Token or API secret).`);
      } else {
        if (!url) issue(SMS_ENV.httpUrl, `${SMS_ENV.httpUrl} is required for the generic preset: the URL template, e.g. https://sms.example.com/send?to={to}.`);
        else if (!httpUrl(SMS_ENV.httpUrl, 'https://sms.example.com/send').safeParse(url.replace(/\{(to|from|text|reference)\}/g, 'x')).success) {
          issue(SMS_ENV.httpUrl, `${SMS_ENV.httpUrl} must be an http(s) URL template, e.g. https://sms.example.com/send?to={to}.`);
        }
        const method = env[SMS_ENV.httpMethod] ?? 'POST';
        const body = env[SMS_ENV.httpBody];
        if (method === 'GET' && body) issue(SMS_ENV.httpBody, `${SMS_ENV.httpBody} is set but ${SMS_ENV.httpMethod}=GET sends no body: unset one of them.`);
        if (url && !/\{text\}/.test(url) && !(body && /\{text\}/.test(body))) {
          issue(SMS_ENV.httpBody, `The generic preset needs {text} in ${SMS_ENV.httpUrl} or ${SMS_ENV.httpBody}, e.g. {"to":"{to}","from":"{from}","text":"{text}"}.`);
        }
      }
    } else {
      const url = env[SMS_ENV.smppUrl];
      if (!url) issue(SMS_ENV.smppUrl, `${SMS_ENV.smppUrl} is required when ${SMS_ENV.gateway}=smpp, e.g. smpp://system_id:password@smsc.example.com:2775 (smpps:// for TLS).`);
      else if (!parseSmppUrl(url).ok) {
        issue(SMS_ENV.smppUrl, `${SMS_ENV.smppUrl} must look like smpp://system_id:password@host:port (smpps:// for TLS); percent-encode special characters in the password.`);
      }
      const min = env[SMS_ENV.smppReconnectMinMs] ?? SMS_DEFAULTS.smppReconnectMinMs;
      const max = env[SMS_ENV.smppReconnectMaxMs] ?? SMS_DEFAULTS.smppReconnectMaxMs;
      if (min > max) issue(SMS_ENV.smppReconnectMaxMs, `${SMS_ENV.smppReconnectMaxMs} (${max}) must not be below ${SMS_ENV.smppReconnectMinMs} (${min}).`);
    }
  })
  .transform((env: SmsEnv): SmsConfig => {
    const gateway = env[SMS_ENV.gateway] ?? 'none';
    const common: CommonSmsConfig = {
      from: env[SMS_ENV.from] ?? '',
      maxParts: env[SMS_ENV.maxParts] ?? SMS_DEFAULTS.maxParts,
      dlrUrl: env[SMS_ENV.dlrUrl] ?? null,
      timeoutMs: env[SMS_ENV.timeoutMs] ?? SMS_DEFAULTS.timeoutMs,
      retryAttempts: env[SMS_ENV.retryAttempts] ?? SMS_DEFAULTS.retryAttempts,
      retryDelayMs: env[SMS_ENV.retryDelayMs] ?? SMS_DEFAULTS.retryDelayMs,
    };
    if (gateway === 'none') return { gateway: 'none' };
    if (gateway === 'smpp') {
      const parsed = parseSmppUrl(env[SMS_ENV.smppUrl]!);
      if (!parsed.ok) throw new Error('unreachable: smpp url checked above');
      return {
        gateway: 'smpp',
        ...common,
        smpp: {
          ...parsed.value,
          tlsInsecure: env[SMS_ENV.smppTlsInsecure] ?? false,
          systemType: env[SMS_ENV.smppSystemType] ?? '',
          sourceTon: env[SMS_ENV.smppSourceTon] ?? 'auto',
          sourceNpi: env[SMS_ENV.smppSourceNpi] ?? 'auto',
          destTon: env[SMS_ENV.smppDestTon] ?? 1,
          destNpi: env[SMS_ENV.smppDestNpi] ?? 1,
          usePayload: env[SMS_ENV.smppUsePayload] ?? false,
          deliveryReceipts: env[SMS_ENV.smppDeliveryReceipts] ?? true,
          enquireLinkMs: (env[SMS_ENV.smppEnquireLinkS] ?? SMS_DEFAULTS.smppEnquireLinkS) * 1000,
          connectTimeoutMs: env[SMS_ENV.smppConnectTimeoutMs] ?? SMS_DEFAULTS.smppConnectTimeoutMs,
          reconnectMinMs: env[SMS_ENV.smppReconnectMinMs] ?? SMS_DEFAULTS.smppReconnectMinMs,
          reconnectMaxMs: env[SMS_ENV.smppReconnectMaxMs] ?? SMS_DEFAULTS.smppReconnectMaxMs,
          throttleRetries: env[SMS_ENV.smppThrottleRetries] ?? SMS_DEFAULTS.smppThrottleRetries,
          throttleDelayMs: env[SMS_ENV.smppThrottleDelayMs] ?? SMS_DEFAULTS.smppThrottleDelayMs,
        },
      };
    }
    const preset = env[SMS_ENV.httpPreset]!;
    let http: HttpGatewayConfig;
    if (preset === 'kannel') http = { preset, url: env[SMS_ENV.httpUrl]! };
    else if (preset === 'twilio') {
      http = {
        preset,
        baseUrl: (env[SMS_ENV.httpUrl] ?? SMS_DEFAULTS.twilioBaseUrl).replace(/\/+$/, ''),
        accountSid: env[SMS_ENV.twilioAccountSid]!,
        authToken: env[SMS_ENV.twilioAuthToken]!,
      };
    } else {
      const statusSpec = env[SMS_ENV.httpSuccessStatus] ?? '2xx';
      const match = env[SMS_ENV.httpSuccessMatch];
      http = {
        preset,
        url: env[SMS_ENV.httpUrl]!,
        method: env[SMS_ENV.httpMethod] ?? 'POST',
        headers: env[SMS_ENV.httpHeaders] ?? {},
        body: env[SMS_ENV.httpBody] ?? null,
        bodyFormat: env[SMS_ENV.httpBodyFormat] ?? 'json',
        successStatus: parseStatusList(statusSpec),
        successStatusText: statusSpec,
        successMatch: match ? new RegExp(match) : null,
        idField: env[SMS_ENV.httpIdField] ?? null,
      };
    }
    return { gateway: 'http', ...common, http };
  });

export class SmsConfigError extends Error {
  constructor(
    readonly problems: { variable: string; message: string }[],
  ) {
    super(`SMS configuration is invalid:\n${problems.map((p) => `  - ${p.message}`).join('\n')}`);
    this.name = 'SmsConfigError';
  }
}

/** Reads the RINGHOOK_SMS_* and RINGHOOK_SMPP_* variables; throws SmsConfigError listing every problem. */
export function parseSmsConfig(env: Record<string, string | undefined>): SmsConfig {
  const result = smsConfigSchema.safeParse(env);
  if (result.success) return result.data;
  throw new SmsConfigError(
    result.error.issues.map((i) => ({ variable: String(i.path[0] ?? ''), message: i.message })),
  );
}
