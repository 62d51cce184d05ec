// Structured JSON logs, one object a line on stderr. Anything that may carry a webhook URL goes
// through redact() so an api_key never reaches a log line.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

const WEBHOOK_KEY = /(\/webhook\/[^/?#\s]+\/)[^/?#\s"]+/g;

/** Replaces the api_key segment of any webhook path in the text. */
export function redact(text: string): string {
  return text.replace(WEBHOOK_KEY, '$1[redacted]');
}

const SECRET_KEY = /^(api_?key|password|secret|token)$/i;

/** A copy that is safe to serialize: secrets hidden, cycles cut, and never a throw. */
function redactValue(value: unknown, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === 'string') return redact(value);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (value instanceof Error) return { name: value.name, message: redact(value.message) };
  if (value && typeof value === 'object') {
    if (seen.has(value)) return '[circular]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((v) => redactValue(v, seen));
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[redacted]' : redactValue(v, seen)]),
    );
  }
  return value;
}

export function createLogger(
  options: { level?: LogLevel; write?: (line: string) => void; base?: LogFields } = {},
): Logger {
  const threshold = LEVEL_RANK[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const base = options.base ?? {};
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (LEVEL_RANK[level] < threshold) return;
    const record = { time: new Date().toISOString(), level, msg, ...base, ...fields };
    write(JSON.stringify(redactValue(record)));
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createLogger({ ...options, base: { ...base, ...fields } }),
  };
}

/** A logger that drops everything: for CLI commands and tests that assert on output elsewhere. */
export const silentLogger: Logger = createLogger({ write: () => {} });
