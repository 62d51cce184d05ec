// The SMS gateway's variables in the configuration's catalogue (config/catalogue.ts has the rest).
import type { CatalogueEntry } from './catalogue.js';

/** SMS backup: the gateway, then HTTP gateways' and SMPP's own settings. */
export const SMS_CATALOGUE: readonly CatalogueEntry[] = [
  { names: ['RINGHOOK_SMS_GATEWAY'], default: '`none`', meaning: '`none`, `http`, `smpp`' },
  { names: ['RINGHOOK_SMS_FROM'], default: '—', meaning: 'sender id / number (required unless `none`)' },
  { names: ['RINGHOOK_SMS_HTTP_PRESET'], default: '—', meaning: '`kannel`, `twilio`, `generic`' },
  {
    names: ['RINGHOOK_SMS_HTTP_URL'],
    default: '—',
    meaning: 'kannel: the sendsms URL with `username`/`password`; twilio: API base; generic: URL template',
    allowed: 'an http(s) URL (generic: a template)',
  },
  {
    names: ['RINGHOOK_SMPP_URL'],
    default: '—',
    meaning: '`smpp://system_id:password@host:2775` (`smpps://` for TLS)',
    allowed: '`smpp://` or `smpps://` URL',
  },
  {
    names: ['RINGHOOK_SMS_DLR_URL'],
    default: '—',
    meaning:
      "public URL of ringhook's delivery-report route (Kannel dlr-url, Twilio status callback); ringhook adds its secret `rh_token` (kept in `data/sms-receipt.secret`) to the URL it gives the gateway and refuses receipts without it, or without a valid Twilio signature (see [docs/sms.md](sms.md#the-receipt-route))",
  },
  { names: ['RINGHOOK_SMS_MAX_PARTS'], default: '`8`', meaning: 'cap on concatenated parts for one alert (1-16)' },
  { names: ['RINGHOOK_SMS_TIMEOUT_MS'], default: '`10000`', meaning: 'one HTTP request or one SMPP response' },
  {
    names: ['RINGHOOK_SMS_RETRY_ATTEMPTS'],
    default: '`3`',
    meaning: 'attempts while the gateway certainly did not take the SMS',
  },
  {
    names: ['RINGHOOK_SMS_RETRY_DELAY_MS'],
    default: '`500`',
    meaning: 'first pause between attempts, doubled each time',
  },
  {
    names: ['RINGHOOK_SMS_TWILIO_ACCOUNT_SID', 'RINGHOOK_SMS_TWILIO_AUTH_TOKEN'],
    default: '—',
    meaning: 'twilio: the account SID and auth token',
    allowed: 'text',
  },
  {
    names: ['RINGHOOK_SMS_HTTP_METHOD'],
    default: '`POST`',
    meaning: 'generic: GET or POST (GET: placeholders in the URL)',
  },
  {
    names: ['RINGHOOK_SMS_HTTP_HEADERS'],
    default: '—',
    meaning: 'generic: extra headers, a JSON object of strings',
    allowed: 'a JSON object of strings',
  },
  {
    names: ['RINGHOOK_SMS_HTTP_BODY'],
    default: '—',
    meaning:
      'generic: the body template (POST), same placeholders as the URL (`{to}` `{from}` `{text}` `{reference}`), escaped for the body format',
    allowed: 'a template',
  },
  {
    names: ['RINGHOOK_SMS_HTTP_BODY_FORMAT'],
    default: '`json`',
    meaning: "generic: how the body's placeholders are escaped, `json` or `form`",
  },
  {
    names: ['RINGHOOK_SMS_HTTP_SUCCESS_STATUS'],
    default: '`2xx`',
    meaning: 'generic: status codes that mean accepted, e.g. `2xx` or `200,201`',
  },
  {
    names: ['RINGHOOK_SMS_HTTP_SUCCESS_MATCH'],
    default: '—',
    meaning: 'generic: a regular expression the response body must match too',
  },
  {
    names: ['RINGHOOK_SMS_HTTP_ID_FIELD'],
    default: '—',
    meaning: 'generic: the dotted JSON path of the message id in the response, e.g. `data.id`',
  },
  { names: ['RINGHOOK_SMPP_SYSTEM_TYPE'], default: 'empty', meaning: 'bind system_type' },
  {
    names: ['RINGHOOK_SMPP_SOURCE_TON', 'RINGHOOK_SMPP_SOURCE_NPI'],
    default: '`auto`',
    meaning: 'auto: `+digits` → 1/1 (sent without `+`), letters → 5/0, other digits → 0/1',
  },
  {
    names: ['RINGHOOK_SMPP_DEST_TON', 'RINGHOOK_SMPP_DEST_NPI'],
    default: '`1` / `1`',
    meaning: 'destination is the E.164 number without `+`',
  },
  {
    names: ['RINGHOOK_SMPP_USE_MESSAGE_PAYLOAD'],
    default: '`off`',
    meaning: 'one submit_sm with the text in the message_payload TLV instead of UDH parts',
  },
  {
    names: ['RINGHOOK_SMPP_DELIVERY_RECEIPTS'],
    default: '`on`',
    meaning: 'registered_delivery=1 and receipts reported',
  },
  {
    names: ['RINGHOOK_SMPP_ENQUIRE_LINK_S'],
    default: '`30`',
    meaning: 'keep-alive period; an unanswered enquire_link drops and reconnects',
  },
  {
    names: ['RINGHOOK_SMPP_CONNECT_TIMEOUT_MS'],
    default: '`5000`',
    meaning: 'connect + bind; also how long send() waits for a session',
  },
  {
    names: ['RINGHOOK_SMPP_RECONNECT_MIN_MS', 'RINGHOOK_SMPP_RECONNECT_MAX_MS'],
    default: '`1000` / `30000`',
    meaning: 'reconnect backoff (doubling)',
  },
  {
    names: ['RINGHOOK_SMPP_THROTTLE_RETRIES'],
    default: '`3`',
    meaning: 'resubmits after ESME_RTHROTTLED / ESME_RMSGQFUL',
  },
  { names: ['RINGHOOK_SMPP_THROTTLE_DELAY_MS'], default: '`1000`', meaning: 'pause before each resubmit' },
  {
    names: ['RINGHOOK_SMPP_TLS_INSECURE'],
    default: '`off`',
    meaning: 'accept an untrusted certificate (self-signed SMSC); `smpps://` only, test set-ups only',
  },
];
