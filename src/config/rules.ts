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
export const port = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, { error: `${name} must be a port number` })
    .transform(Number)
    .pipe(z.number().max(65535, { error: `${name} must be between 1 and 65535` }));

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
  const got = value === undefined ? '' : ` (got ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)})`;
  const text = issue.message.startsWith(name) || !name.startsWith('RINGHOOK_') ? issue.message : `${name}: ${issue.message}`;
  return text + got;
}
