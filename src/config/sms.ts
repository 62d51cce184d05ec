import { DEFAULTS } from './defaults.js';
import { isHttpUrl } from './rules.js';
import { genericTemplateProblems, KANNEL_URL_EXAMPLE, kannelUrlProblem } from './sms-rules.js';
import { SMS_ENV, type SmsEnv } from './sms-fields.js';

export { SMS_ENV, smsFields } from './sms-fields.js';

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

function parseStatusList(spec: string): (status: number) => boolean {
  const items = spec.split(',').map((s) => s.trim().toLowerCase());
  return (status) =>
    items.some((item) =>
      item.endsWith('xx') ? Math.floor(status / 100) === Number(item[0]) : status === Number(item),
    );
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
    issue(
      SMS_ENV.from,
      `${SMS_ENV.from} is required when ${SMS_ENV.gateway}=${gateway}: the sender number or name, e.g. +15551234567 or RINGHOOK`,
    );
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
    if (min > max)
      issue(
        SMS_ENV.smppReconnectMaxMs,
        `${SMS_ENV.smppReconnectMaxMs} (${max}) must not be below ${SMS_ENV.smppReconnectMinMs} (${min})`,
      );
    return;
  }
  const preset = env[SMS_ENV.httpPreset];
  const url = env[SMS_ENV.httpUrl];
  if (!preset) {
    issue(
      SMS_ENV.httpPreset,
      `${SMS_ENV.httpPreset} is required when ${SMS_ENV.gateway}=http: kannel, twilio or generic`,
    );
    return;
  }
  if (preset === 'kannel') {
    const problem = url ? kannelUrlProblem(url) : `is required for the kannel preset, e.g. ${KANNEL_URL_EXAMPLE}`;
    if (problem) issue(SMS_ENV.httpUrl, `${SMS_ENV.httpUrl} ${problem}`);
  } else if (preset === 'twilio') {
    if (url && !isHttpUrl(url))
      issue(
        SMS_ENV.httpUrl,
        `${SMS_ENV.httpUrl} (the API base for the twilio preset) must be an http(s) URL; leave it unset for ${D.twilioBaseUrl}`,
      );
    if (!env[SMS_ENV.twilioAccountSid])
      issue(
        SMS_ENV.twilioAccountSid,
        `${SMS_ENV.twilioAccountSid} is required for the twilio preset (the Account SID, AC...)`,
      );
    if (!env[SMS_ENV.twilioAuthToken])
      issue(
        SMS_ENV.twilioAuthToken,
        `${SMS_ENV.twilioAuthToken} is required for the twilio preset (the Auth Token or API secret)`,
      );
  } else if (!url) {
    issue(
      SMS_ENV.httpUrl,
      `${SMS_ENV.httpUrl} is required for the generic preset: the URL template, e.g. https://sms.example.com/send?to={to}`,
    );
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
