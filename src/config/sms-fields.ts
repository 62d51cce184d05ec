// The SMS gateway's variables: their names and their schema, each with its default (applied once,
// here) or optional when a gateway does not need it.
import { z } from 'zod';
import { DEFAULTS } from './defaults.js';
import { type DefaultedWholeNumber, httpUrl, onOff, wholeNumbers } from './rules.js';

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

const tonOrAuto = (name: string) =>
  z
    .string()
    .regex(/^(auto|\d{1,3})$/i, {
      error: `${name} must be "auto" or a number 0-255 (e.g. 1 international, 5 alphanumeric)`,
    })
    .transform((v) => (v.toLowerCase() === 'auto' ? ('auto' as const) : Number(v)))
    .refine((v) => v === 'auto' || v <= 255, { error: `${name} must be at most 255` });

const lowerEnum = <const T extends readonly [string, ...string[]]>(values: T, error: string) =>
  z.string().toLowerCase().pipe(z.enum(values, { error }));

type NumberKey = {
  [K in keyof typeof SMS_ENV & keyof typeof D]: (typeof D)[K] extends number ? K : never;
}[keyof typeof SMS_ENV & keyof typeof D];

/** Whole-number SMS variables by their SMS_ENV key: [min, max, what the number is for]; the default is D's. */
const smsNumbers = <const T extends { [K in NumberKey]?: readonly [min: number, max: number, what: string] }>(
  table: T,
) =>
  wholeNumbers(
    Object.fromEntries(
      Object.entries(table).map(([key, [min, max, what]]) => [
        SMS_ENV[key as NumberKey],
        [min, max, D[key as NumberKey], what] as const,
      ]),
    ),
  ) as { [K in keyof T as K extends NumberKey ? (typeof SMS_ENV)[K] : never]: DefaultedWholeNumber };

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
  ...smsNumbers({
    maxParts: [1, 16, 'the parts one alert SMS may take'],
  }),
  [SMS_ENV.dlrUrl]: httpUrl(SMS_ENV.dlrUrl, 'https://ringhook.example.com/sms/dlr').optional(),
  ...smsNumbers({
    timeoutMs: [100, 120_000, 'milliseconds to wait for the gateway'],
    retryAttempts: [1, 10, 'attempts while the gateway certainly did not take the SMS'],
    retryDelayMs: [0, 60_000, 'first pause between attempts in milliseconds, doubled each time'],
  }),
  [SMS_ENV.httpPreset]: lowerEnum(
    ['kannel', 'twilio', 'generic'],
    `${SMS_ENV.httpPreset} must be kannel, twilio or generic`,
  ).optional(),
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
      ctx.addIssue({
        code: 'custom',
        message: `${SMS_ENV.httpHeaders} must be a JSON object of strings, e.g. {"Authorization":"Bearer TOKEN"}`,
      });
      return z.NEVER;
    })
    .optional(),
  [SMS_ENV.httpBody]: z.string().optional(),
  [SMS_ENV.httpBodyFormat]: lowerEnum(['json', 'form'], `${SMS_ENV.httpBodyFormat} must be json or form`).default(
    D.httpBodyFormat,
  ),
  [SMS_ENV.httpSuccessStatus]: z
    .string()
    .regex(/^\s*(\dxx|\d{3})(\s*,\s*(\dxx|\d{3}))*\s*$/i, {
      error: `${SMS_ENV.httpSuccessStatus} must list status codes or classes, e.g. "2xx" or "200,201"`,
    })
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
    .regex(/^[\w$-]+(\.[\w$-]+)*$/, {
      error: `${SMS_ENV.httpIdField} must be a dotted JSON path such as sid or data.id`,
    })
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
  ...smsNumbers({
    smppDestTon: [0, 255, 'type of number of the destination, 1 international'],
    smppDestNpi: [0, 255, 'numbering plan of the destination, 1 E.164'],
  }),
  [SMS_ENV.smppUsePayload]: onOff(SMS_ENV.smppUsePayload).optional(),
  [SMS_ENV.smppDeliveryReceipts]: onOff(SMS_ENV.smppDeliveryReceipts).default(D.smppDeliveryReceipts),
  ...smsNumbers({
    smppEnquireLinkS: [1, 3600, 'seconds between enquire_link keep-alives'],
    smppConnectTimeoutMs: [100, 120_000, 'how long a send waits for a bound session, in milliseconds'],
    smppReconnectMinMs: [10, 600_000, 'first reconnect pause in milliseconds'],
    smppReconnectMaxMs: [10, 3_600_000, 'longest reconnect pause in milliseconds'],
    smppThrottleRetries: [0, 20, 'retries of a submit answered ESME_RTHROTTLED'],
    smppThrottleDelayMs: [0, 60_000, 'pause before retrying a throttled submit, in milliseconds'],
  }),
  [SMS_ENV.smppTlsInsecure]: onOff(SMS_ENV.smppTlsInsecure).optional(),
};

export type SmsEnv = z.output<z.ZodObject<typeof smsFields>>;
