// Errors for the operator (one clear line, no stack trace) and the system code of an error; the
// client's error catalogue is the HTTP layer's (http/errors.ts).

/** An error meant for the operator (config, CLI): one clear line, no stack trace. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

/** A command line the command cannot take (an option it does not have, an argument too many): exit 2, nothing done. */
export class UsageError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The system error code (ECONNREFUSED, ENOTFOUND…) of an error or of the errors that caused it. */
export function errorCode(error: unknown): string | undefined {
  let cur: unknown = error;
  for (let depth = 0; depth < 4 && cur && typeof cur === 'object'; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}
