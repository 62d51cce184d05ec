// The catalogue of errors a client can see: one stable code, its HTTP status, and the default text.
// Every error body is JSON: { success: false, error, code, ...extra }.

export const ERROR_CATALOGUE = {
  bad_request: { status: 400, message: 'The request is malformed.' },
  empty_body: {
    status: 400,
    message: 'The request body is empty: send the alert message as plain text or as JSON with a "message" field.',
  },
  invalid_encoding: { status: 400, message: 'The request body is not valid UTF-8 text.' },
  invalid_json: { status: 400, message: 'The body is declared application/json but is not valid JSON.' },
  not_an_object: { status: 400, message: 'The JSON body must be an object with a "message" field.' },
  invalid_field: { status: 400, message: 'A field of the alert is invalid.' },
  body_too_large: { status: 400, message: 'The request body is larger than 64 KiB.' },
  unauthorized: {
    status: 401,
    message: 'Invalid webhook URL: the user_id or api_key is wrong, or the URL was regenerated.',
  },
  account_suspended: { status: 403, message: 'The account is suspended.' },
  source_not_allowed: { status: 403, message: 'Alerts are not accepted from this address.' },
  monthly_limit_exceeded: { status: 403, message: 'Monthly call limit exceeded.' },
  https_required: { status: 403, message: 'HTTPS is required.' },
  not_found: { status: 404, message: 'Not found.' },
  method_not_allowed: { status: 405, message: 'Method not allowed.' },
  request_timeout: { status: 408, message: 'The request did not arrive in time.' },
  rate_limited: { status: 429, message: 'Too many alerts: the per-minute call limit of the plan is exceeded.' },
  too_many_failures: { status: 429, message: 'Too many requests with invalid credentials from this address.' },
  too_many_pipelined: {
    status: 429,
    message: 'Too many requests sent ahead on one connection without reading the answers: send one at a time.',
  },
  headers_too_large: { status: 431, message: 'The request line or headers are larger than 16 KiB.' },
  internal: { status: 500, message: 'Internal server error: nothing was recorded; the alert may be sent again.' },
  unavailable: {
    status: 503,
    message: 'The service is starting or stopping: nothing was recorded; the alert may be sent again.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * An error meant for the client: status, stable code and a precise message. It carries no stack:
 * it is an answer, not a fault, and a flood of refusals should not pay for capturing one each.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  constructor(
    code: ErrorCode,
    message: string = ERROR_CATALOGUE[code].message,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    const traceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = traceLimit;
    this.name = 'ApiError';
    this.code = code;
    this.extra = extra;
    this.headers = headers;
    this.status = ERROR_CATALOGUE[code].status;
  }

  toBody(): Record<string, unknown> {
    return { success: false, error: this.message, code: this.code, ...this.extra };
  }
}
