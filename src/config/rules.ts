// How every variable is read: one rule for blank values, one on/off parser, numbers whose message
// gives their range and default, URLs, and one way to word a problem.
import { z } from 'zod';

export type Env = Record<string, string | undefined>;

/** The RINGHOOK_* variables that are set: blank counts as unset, and surrounding blanks are ignored. */
export function presentVariables(env: Env): Record<string, string> {
  const present: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('RINGHOOK_') && value !== undefined && value.trim() !== '') present[name] = value.trim();
  }
  return present;
}

const ON = ['on', 'true', '1', 'yes'];
const OFF = ['off', 'false', '0', 'no'];

export const onOff = (name: string) =>
  z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum([...ON, ...OFF] as [string, ...string[]], { error: `${name} must be on or off` }))
    .transform((v) => ON.includes(v));

/** A port: digits only, up to 65535; 0 asks the system for a free one (used by tests). */
/** A port number; `anyFree`: 0 too, for any free port (what the tests ask for). */
export const port = (name: string, { anyFree = false }: { anyFree?: boolean } = {}) =>
  z
    .string()
    .regex(/^\d+$/, { error: `${name} must be a port number` })
    .transform(Number)
    .pipe(
      z
        .number()
        .min(anyFree ? 0 : 1, { error: `${name} must be between 1 and 65535` })
        .max(65535, { error: `${name} must be between 1 and 65535${anyFree ? ' (0: any free port)' : ''}` }),
    );

// Read by ringhook's own scripts (provisioning, the single executable's build, the CLI's debug
// output), and by its benchmarks and long tests, not by serve.
const SCRIPT_VARIABLES = new Set([
  'RINGHOOK_ASTERISK_MODE',
  'RINGHOOK_ASTERISK_OWNER',
  'RINGHOOK_DEBIAN_MIRROR',
  'RINGHOOK_SEA_NODE',
  'RINGHOOK_DEBUG',
  'RINGHOOK_ROOT',
  'RINGHOOK_BINARY',
  'RINGHOOK_CRASH_ACCOUNTS',
  'RINGHOOK_SOAK',
  'RINGHOOK_SOAK_SEED',
  'RINGHOOK_SOAK_FLOOD',
  'RINGHOOK_SOAK_FUZZ',
]);

/**
 * The RINGHOOK_* variables set that nothing reads: a misspelled one (RINGHOOK_TRUNK_URL) would
 * otherwise be ignored without a word, and calls go where the default sends them. Each with the
 * known name it is closest to, when one is close. RINGHOOK_TEST_* are the test suite's.
 */
export function unknownVariables(present: Record<string, string>, known: ReadonlySet<string>): string[] {
  return Object.keys(present)
    .filter((name) => !known.has(name) && !SCRIPT_VARIABLES.has(name) && !name.startsWith('RINGHOOK_TEST_'))
    .map((name) => {
      const closest = [...known].map((k) => [k, editDistance(name, k)] as const).sort((a, b) => a[1] - b[1])[0];
      return closest && closest[1] <= 3 ? `${name} (did you mean ${closest[0]}?)` : name;
    });
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * A whole number within a range. The message says the range, what the number is for and its
 * default, e.g. "RINGHOOK_RING_TIMEOUT must be a whole number from 5 to 120: seconds of ringing (default 30)".
 */
export const wholeNumber = (name: string, range: { min: number; max: number }, what: string, defaultValue?: number) => {
  const hint = `${name} must be a whole number from ${range.min} to ${range.max}: ${what}${defaultValue === undefined ? '' : ` (default ${defaultValue})`}`;
  return z
    .string()
    .regex(/^\d+$/, { error: hint })
    .transform(Number)
    .pipe(z.number().min(range.min, { error: hint }).max(range.max, { error: hint }));
};

export type DefaultedWholeNumber = z.ZodDefault<ReturnType<typeof wholeNumber>>;

/** A whole-number variable's row in a table: its range, its default, and what the number is for. */
export type WholeNumberRow = readonly [min: number, max: number, defaultValue: number, what: string];

/** Whole-number variables from a table (name: its row), each checked by wholeNumber with its default applied once. */
export function wholeNumbers<const T extends Record<string, WholeNumberRow>>(table: T) {
  return Object.fromEntries(
    Object.entries(table).map(([name, [min, max, value, what]]) => [
      name,
      wholeNumber(name, { min, max }, what, value).default(value),
    ]),
  ) as { [K in keyof T]: DefaultedWholeNumber };
}

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

export const httpUrl = (name: string, example: string) =>
  z.string().refine(isHttpUrl, { error: `${name} must be an http:// or https:// URL, e.g. ${example}` });

/**
 * Variables whose value must never be echoed in an error: passwords, tokens and keys, and the ones
 * that may carry credentials (an SMPP or gateway URL with a password, HTTP headers).
 */
export function isSecretVariable(name: string): boolean {
  return /PASSWORD|TOKEN|SECRET|_KEY$|_HEADERS$|SMPP_URL$|HTTP_URL$|DATABASE_URL$/.test(name);
}

/** One line per problem: the message (naming its variable) and the value given, unless secret. */
export function describeIssue(issue: z.core.$ZodIssue, env: Env): string {
  const name = String(issue.path[0] ?? 'configuration');
  const value = isSecretVariable(name) ? undefined : env[name];
  const got =
    value === undefined ? '' : ` (got ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)})`;
  const text =
    issue.message.startsWith(name) || !name.startsWith('RINGHOOK_') ? issue.message : `${name}: ${issue.message}`;
  return text + got;
}

/** A key as an operator writes it: 64 hex characters, or base64 / base64url of 32 bytes. */
export function decodeSecretKey(text: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) return Buffer.from(text, 'base64');
  return null;
}
