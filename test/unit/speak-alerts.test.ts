// Alerts as traders write them in TradingView messages, in every offered language, each kind of
// issue 32 (magnitudes, Yahoo tickers, separators, ratios, dates and placeholders, capitals,
// direction emoji, native decimals; and #57: numbers in the language's own marks, money, times, units, instruments). Judged on properties of the spoken text rather than exact
// strings: no symbol an engine reads aloud is left, no number is half said, English and the
// languages spoken in words keep no digit, kanji never reach the Japanese voice, and each case
// says what it must (the regular expressions of its row).
import { describe, expect, it } from 'vitest';
import type { LanguageCode } from '../../src/core/speech/language-types.js';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import { speakable } from '../../src/core/speech/speakable.js';
import { ROWS } from './speak-alerts.table.js';

/** Symbols an engine reads aloud ("bar", "slash", "hash", "equals", "caret", "asterisk", "tilde", "dollar", "percent", "and", "at", "plus"). */
const SYMBOL = /[|/\\#=^{}*~_$€£¥%&@+<>]/;
const SYMBOL_WORDS = /\b(?:bar|slash|hash|hashtag|equals|caret|asterisk|tilde|brace)\b/i;
/** A number half said: "one.2M". */
const HALF_SAID = /\p{L}[.,]\d|\d[.,]\p{L}/u;
/** The languages whose numbers are said in words. */
const WORDS_ONLY: readonly LanguageCode[] = ['en', 'ja', 'zh'];

describe('the alerts traders write, in every offered language', () => {
  it('has at least 120 cases, across every kind and language', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(120);
    expect(new Set(ROWS.map((r) => r[0])).size).toBe(13);
    expect(new Set(ROWS.map((r) => r[1]))).toEqual(new Set(Object.keys(LANGUAGES)));
    for (const lang of ['ru', 'ja', 'zh'] as const)
      expect(ROWS.some(([kind, l]) => kind === 'decimals' && l === lang)).toBe(true);
  });

  it.each(ROWS.map((row) => [`${row[0]} ${row[1]}`, row[2], row] as const))(
    '%s: %s',
    (_, alert, [, lang, , ...said]) => {
      const spoken = speakable(alert, LANGUAGES[lang]);
      for (const pattern of said) expect(spoken).toMatch(pattern);
      expect(spoken).not.toMatch(SYMBOL);
      expect(spoken).not.toMatch(/\p{Extended_Pictographic}/u);
      expect(spoken).not.toMatch(HALF_SAID);
      for (const word of spoken.match(SYMBOL_WORDS) ?? []) expect(alert.toLowerCase()).toContain(word.toLowerCase());
      if (WORDS_ONLY.includes(lang)) expect(spoken).not.toMatch(/\d/);
      if (lang === 'ja') expect(spoken).not.toMatch(/\p{Script=Han}/u);
    },
  );
});
