// docs/configuration.md, rendered from the configuration's schema (the allowed values: its enums,
// ranges and rules' own words) and its catalogue (defaults and meanings). Pure: scripts/docs-config.mjs
// writes the page, and a unit test fails when the page on disk is not this.
import type { z } from 'zod';
import { CATALOGUE, type CatalogueEntry, SCRIPT_CATALOGUE } from './catalogue.js';
import { SMS_CATALOGUE } from './catalogue-sms.js';

type Schema = z.ZodType;
interface Rule {
  enums: string[][];
  range: { min: number; max: number } | null;
  messages: string[];
}

const ON_OFF_WORDS = ['on', 'off', 'true', 'false', '1', '0', 'yes', 'no'];

function messageOf(error: unknown): string | undefined {
  if (typeof error !== 'function') return undefined;
  const message: unknown = error({});
  if (typeof message === 'string') return message;
  if (message && typeof message === 'object' && 'message' in message && typeof message.message === 'string') {
    return message.message;
  }
  return undefined;
}

/** The enums, the number range and the error messages found down a field's wrappers and pipes. */
function ruleOf(schema: Schema, rule: Rule = { enums: [], range: null, messages: [] }): Rule {
  const def = schema._zod.def as {
    type: string;
    checks?: { _zod: { def: { error?: unknown } } }[];
    error?: unknown;
    innerType?: Schema;
    in?: Schema;
    out?: Schema;
    entries?: Record<string, string>;
  };
  for (const check of def.checks ?? []) {
    const message = messageOf(check._zod.def.error);
    if (message) rule.messages.push(message);
  }
  const own = messageOf(def.error);
  if (own) rule.messages.push(own);
  if ((def.type === 'optional' || def.type === 'default') && def.innerType) ruleOf(def.innerType, rule);
  if (def.type === 'pipe' && def.in && def.out) {
    ruleOf(def.in, rule);
    ruleOf(def.out, rule);
  }
  if (def.type === 'enum' && def.entries) rule.enums.push(Object.values(def.entries));
  if (def.type === 'number') {
    const number = schema as unknown as { minValue: number | null; maxValue: number | null };
    if (number.minValue !== null && number.maxValue !== null)
      rule.range = { min: number.minValue, max: number.maxValue };
  }
  return rule;
}

/** What a variable may be set to, in words, from its schema; undefined when the schema takes any text. */
export function allowedValues(name: string, schema: Schema): string | undefined {
  const rule = ruleOf(schema);
  const values = rule.enums[0];
  if (values) {
    if (values.length === ON_OFF_WORDS.length && ON_OFF_WORDS.every((w) => values.includes(w))) return '`on` or `off`';
    return values.map((v) => `\`${v}\``).join(', ');
  }
  if (rule.messages.some((m) => m.includes('must be a port number'))) {
    return rule.range?.min === 0 ? 'a port, 1–65535' : `a port, ${rule.range?.min ?? 1}–${rule.range?.max ?? 65535}`;
  }
  if (rule.range) return `a whole number, ${rule.range.min}–${rule.range.max}`;
  const message = rule.messages.find((m) => /e\.g\.|such as/.test(m)) ?? rule.messages[0];
  if (!message) return undefined;
  return message
    .replace(new RegExp(`^${name}:? `), '')
    .replace(/^must be /, '')
    .replace(/\|/g, '\\|');
}

function cell(text: string): string {
  return text.replace(/\n/g, ' ');
}

function row(entry: CatalogueEntry, shape: Record<string, Schema>): string {
  const allowed = entry.names.map((name) => {
    const schema = shape[name];
    return (schema && allowedValues(name, schema)) ?? entry.allowed ?? 'text';
  });
  const allSame = allowed.every((a) => a === allowed[0]);
  const allowedText = allSame
    ? (allowed[0] ?? 'text')
    : entry.names.map((name, i) => `\`${name}\`: ${allowed[i]}`).join('; ');
  const names = entry.names.map((n) => `\`${n}\``).join(', ');
  return `| ${names} | ${cell(entry.default)} | ${cell(allowedText)} | ${cell(entry.meaning)} |`;
}

function table(entries: readonly CatalogueEntry[], shape: Record<string, Schema>): string[] {
  return [
    '| variable | default | allowed values | meaning |',
    '|---|---|---|---|',
    ...entries.map((e) => row(e, shape)),
  ];
}

/** The variables the catalogue describes: each exactly once, in order. */
export function cataloguedVariables(): string[] {
  return [...CATALOGUE, ...SMS_CATALOGUE].flatMap((e) => e.names);
}

/** docs/configuration.md for this schema's fields. */
export function renderConfigurationDoc(shape: Record<string, Schema>): string {
  return [
    '# Configuration',
    '',
    '<!-- Generated from src/config (the schema and src/config/catalogue*.ts) by `npm run docs:config`: edit those, not this page. -->',
    '',
    'Everything is an environment variable, validated at start; a bad value stops ringhook with a message',
    'that names the variable, the value and the fix. Empty counts as unset. A `RINGHOOK_` variable that',
    "ringhook does not read (a misspelling such as `RINGHOOK_TRUNK_URL`) is named at `serve`'s start, as a",
    'warning with the variable it is closest to, and `ringhook doctor` fails on it.',
    '',
    '`on` or `off` also takes `true`/`false`, `yes`/`no`, `1`/`0`.',
    '',
    ...table(CATALOGUE, shape),
    '',
    '## SMS backup',
    '',
    'How the gateways, the receipts and the retries work together: [SMS backup](sms.md).',
    '',
    ...table(SMS_CATALOGUE, shape),
    '',
    '## Read by the provisioning scripts',
    '',
    ...table(SCRIPT_CATALOGUE, shape),
    '',
    '`deploy/ringhook.env.example` lists every variable with a comment.',
    '',
  ].join('\n');
}
