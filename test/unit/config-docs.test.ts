// docs/configuration.md is generated from the configuration's schema and catalogue: every variable
// the schema reads is described once, and the page on disk is what the renderer makes of them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowedValues, cataloguedVariables, renderConfigurationDoc } from '../../src/config/docs.js';
import { CATALOGUE } from '../../src/config/catalogue.js';
import { SMS_CATALOGUE } from '../../src/config/catalogue-sms.js';
import { envSchema } from '../../src/config/index.js';

const PAGE = path.resolve(import.meta.dirname, '../../docs/configuration.md');

describe('the configuration reference', () => {
  it('describes every variable the schema reads, each once, and none it does not read', () => {
    const described = cataloguedVariables();
    const read = Object.keys(envSchema.shape);
    expect(
      described.filter((name, i) => described.indexOf(name) !== i),
      'described twice',
    ).toEqual([]);
    expect(
      read.filter((name) => !described.includes(name)),
      'add these to src/config/catalogue.ts (or catalogue-sms.ts)',
    ).toEqual([]);
    expect(
      described.filter((name) => !read.includes(name)),
      'the schema does not read these',
    ).toEqual([]);
  });

  it('is the page on disk: regenerate it with `npm run docs:config` after changing src/config', () => {
    const expected = renderConfigurationDoc(envSchema.shape);
    const actual = fs.readFileSync(PAGE, 'utf8');
    expect(
      actual === expected,
      'docs/configuration.md differs from src/config: run `npm run docs:config` and commit the page',
    ).toBe(true);
  });

  it('states each default the schema applies (a list described in words excepted)', () => {
    const describedInWords = new Set(['RINGHOOK_SIP_LOCAL_NET']);
    const wrong: string[] = [];
    for (const entry of [...CATALOGUE, ...SMS_CATALOGUE]) {
      for (const name of entry.names) {
        const def = envSchema.shape[name as keyof typeof envSchema.shape]?._zod.def as
          | { type: string; defaultValue?: unknown }
          | undefined;
        if (def?.type !== 'default' || describedInWords.has(name)) continue;
        const value =
          typeof def.defaultValue === 'boolean' ? (def.defaultValue ? 'on' : 'off') : String(def.defaultValue);
        if (!entry.default.includes(`\`${value}\``))
          wrong.push(`${name}: the schema's default is ${value}, the catalogue says ${entry.default}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("says a variable's allowed values from its rule: an enum, on/off, a range, the rule's own words", () => {
    const shape = envSchema.shape;
    expect(allowedValues('RINGHOOK_LOG_LEVEL', shape.RINGHOOK_LOG_LEVEL)).toBe('`debug`, `info`, `warn`, `error`');
    expect(allowedValues('RINGHOOK_AMD', shape.RINGHOOK_AMD)).toBe('`on` or `off`');
    expect(allowedValues('RINGHOOK_RING_TIMEOUT', shape.RINGHOOK_RING_TIMEOUT)).toBe('a whole number, 5–120');
    expect(allowedValues('RINGHOOK_SIP_PORT', shape.RINGHOOK_SIP_PORT)).toBe('a port, 1–65535');
    expect(allowedValues('RINGHOOK_DATA_DIR', shape.RINGHOOK_DATA_DIR)).toBe('a folder, e.g. /var/lib/ringhook');
    expect(allowedValues('RINGHOOK_TLS_CERT', shape.RINGHOOK_TLS_CERT)).toBeUndefined();
  });
});
