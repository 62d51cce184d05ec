// The SMS gateway's delivery-report route (RINGHOOK_SMS_DLR_URL). Anybody can reach it, so a
// receipt counts only when it carries ringhook's receipt token (and, for Twilio, Twilio's
// signature), and its body is bounded before it is read.
import type { H3, H3Event } from 'h3';
import { ApiError } from './errors.js';
import { RECEIPT_TOKEN_PARAM } from '../sms/index.js';
import { twilioSignature, twilioSignedUrls } from '../sms/index.js';
import { readBodyLimited } from './body.js';
import { errorResponse, json } from './respond.js';
import { sameToken } from './same-token.js';

/** Far above any real receipt (a Twilio status callback is under 1 KiB; Kannel's has no body). */
export const RECEIPT_MAX_BYTES = 8 * 1024;

export interface SmsReceiptDeps {
  /** The operator's RINGHOOK_SMS_DLR_URL: the route is its path; Twilio signs its origin and path. */
  publicUrl: string;
  /** ringhook's receipt token, which the URL handed to the gateway carries. */
  token: string;
  /** Twilio preset: the auth token its signatures are made with. */
  twilioAuthToken?: string;
  /** Passes a receipt to the SMS sender; false when it is not a receipt of the configured gateway. */
  handle(params: URLSearchParams): boolean;
}

const refused = () =>
  errorResponse(
    new ApiError(
      'unauthorized',
      "Not a delivery report of ringhook's SMS gateway: the receipt token or the gateway's signature is missing or wrong.",
    ),
  );

/** Twilio signs the URL it requested: the public one, with the query as it arrived here. */
export function twilioSignatureValid(
  authToken: string,
  publicUrl: string,
  search: string,
  form: URLSearchParams,
  given: string | null,
): boolean {
  if (!given) return false;
  const base = new URL(publicUrl);
  const requested = `${base.origin}${base.pathname}${search}`;
  return twilioSignedUrls(requested).some((url) => sameToken(given, twilioSignature(authToken, url, form)));
}

async function readForm(event: H3Event): Promise<URLSearchParams> {
  if (event.req.method !== 'POST') return new URLSearchParams();
  const body = await readBodyLimited(event.req, RECEIPT_MAX_BYTES, event.runtime?.node?.req);
  return new URLSearchParams(new TextDecoder().decode(body));
}

export function mountSmsReceipts(app: H3, deps: SmsReceiptDeps): void {
  app.all(new URL(deps.publicUrl).pathname, async (event) => {
    if (event.req.method !== 'GET' && event.req.method !== 'POST') {
      return errorResponse(
        new ApiError(
          'method_not_allowed',
          `Method ${event.req.method} is not allowed: delivery reports come as GET or POST.`,
          {},
          { allow: 'GET, POST' },
        ),
      );
    }
    const query = new URLSearchParams(event.url.search);
    // Checked before the body is read: a stranger's body is never read at all.
    if (!sameToken(query.get(RECEIPT_TOKEN_PARAM) ?? undefined, deps.token)) return refused();
    let form: URLSearchParams;
    try {
      form = await readForm(event);
    } catch (error) {
      if (error instanceof ApiError) return errorResponse(error);
      throw error;
    }
    if (
      deps.twilioAuthToken &&
      !twilioSignatureValid(
        deps.twilioAuthToken,
        deps.publicUrl,
        event.url.search,
        form,
        event.req.headers.get('x-twilio-signature'),
      )
    ) {
      return refused();
    }
    const params = new URLSearchParams([...query, ...form]);
    const known = deps.handle(params);
    return known
      ? json(200, { success: true })
      : errorResponse(new ApiError('bad_request', 'Not a delivery report of the configured gateway.'));
  });
}
