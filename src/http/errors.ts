// The catalogue of errors a client can see: one stable code, its HTTP status, and the default text.
// Every error body is JSON: { success: false, error, code, ...extra }.

/** Each HTTP status's error codes, each with its default text. */
const BY_STATUS = {
  400: {
    bad_request: 'The request is malformed.',
    empty_body: 'The request body is empty: send the alert message as plain text or as JSON with a "message" field.',
    invalid_encoding: 'The request body is not valid UTF-8 text.',
    invalid_json: 'The body is declared application/json but is not valid JSON.',
    not_an_object: 'The JSON body must be an object with a "message" field.',
    invalid_field: 'A field of the alert is invalid.',
    body_too_large: 'The request body is larger than 64 KiB.',
  },
  401: {
    unauthorized: 'Invalid webhook URL: the user_id or api_key is wrong, or the URL was regenerated.',
  },
  403: {
    account_suspended: 'The account is suspended.',
    source_not_allowed: 'Alerts are not accepted from this address.',
    monthly_limit_exceeded: 'Monthly call limit exceeded.',
    https_required: 'HTTPS is required.',
  },
  404: {
    not_found: 'Not found.',
  },
  405: {
    method_not_allowed: 'Method not allowed.',
  },
  408: {
    request_timeout: 'The request did not arrive in time.',
  },
  429: {
    rate_limited: 'Too many alerts: the per-minute call limit of the plan is exceeded.',
    too_many_failures: 'Too many requests with invalid credentials from this address.',
    too_many_pipelined:
      'Too many requests sent ahead on one connection without reading the answers: send one at a time.',
  },
  431: {
    headers_too_large: 'The request line or headers are larger than 16 KiB.',
  },
  500: {
    internal: 'Internal server error: nothing was recorded; the alert may be sent again.',
  },
  503: {
    unavailable: 'The service is starting or stopping: nothing was recorded; the alert may be sent again.',
  },
} as const satisfies Record<number, Record<string, string>>;

type ByStatus = typeof BY_STATUS;
export type ErrorCode = { [S in keyof ByStatus]: keyof ByStatus[S] }[keyof ByStatus];

export const ERROR_CATALOGUE = Object.fromEntries(
  Object.entries(BY_STATUS).flatMap(([status, codes]) =>
    Object.entries(codes).map(([code, message]) => [code, { status: Number(status), message }]),
  ),
) as Readonly<Record<ErrorCode, { status: number; message: string }>>;

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
