// The spoken text checked on the engines' own phonemes, with the real espeak-ng and flite: every
// alert of the table (speak-alerts.table.ts) makes its engine say nothing for a symbol (the
// phonemes of the text are those of its words alone), and Russian, Japanese and Chinese decimals
// and large numbers are said as a native speaker says them, where espeak-ng's own reading of the
// digits is wrong.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/core/languages.js';
import { speakable } from '../../src/core/speakable.js';
import { ROWS } from './speak-alerts.table.js';

/** espeak-ng's phonemes for a text, in a language's voice (-x: phoneme mnemonics). */
function espeak(text: string, voice: string): string {
  const run = spawnSync('espeak-ng', ['-q', '-x', '-v', voice, '--stdin'], { input: text, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`espeak-ng failed: ${run.stderr}`);
  return run.stdout;
}

/** flite's phones for a text (its default voice: the phones, not the voice, matter here). */
function flite(text: string): string {
  const run = spawnSync('flite', ['-ps', '-o', '/dev/null', '-t', text], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`flite failed: ${run.stderr}`);
  return run.stdout;
}

/** The sounds alone: pauses, stress and intonation marks taken out. */
const sounds = (phonemes: string, engine: 'espeak' | 'flite') =>
  engine === 'flite'
    ? phonemes
        .replace(/\bpau\b/g, ' ')
        .replace(/\s+/g, ' ')
        .trim()
    : phonemes.replace(/\([a-z-]+\)/g, '').replace(/[\s_:!|',%=#-]/g, '');

const phonemes = (text: string, voice: string) =>
  voice === 'flite' ? sounds(flite(text), 'flite') : sounds(espeak(text, voice), 'espeak');

/** The symbols an engine may read aloud: "bar", "slash", "backslash", "hash", "equals", "caret", "asterisk", "tilde"… */
const SYMBOLS = ['|', '/', '\\', '#', '=', '^', '*', '~', '{', '}', '_', '<', '>', '[', ']'];

/** What the engine says for a symbol between two words: the sounds it adds (none for a pause). */
function symbolReading(symbol: string, voice: string): string {
  const plain = phonemes('pa pa', voice);
  const withSymbol = phonemes(`pa ${symbol} pa`, voice);
  let start = 0;
  while (start < plain.length && plain[start] === withSymbol[start]) start++;
  let end = 0;
  while (end < plain.length - start && plain[plain.length - 1 - end] === withSymbol[withSymbol.length - 1 - end]) end++;
  return withSymbol.slice(start, withSymbol.length - end).trim();
}

const readings = new Map<string, string[]>();
/** The readings of the symbols in a voice, those long enough to be a word (a pause or a click is not). */
function symbolReadings(voice: string): string[] {
  let found = readings.get(voice);
  if (!found) {
    found = SYMBOLS.map((s) => symbolReading(s, voice)).filter((r) => r.replace(/\s/g, '').length >= 3);
    readings.set(voice, found);
  }
  return found;
}

describe('no symbol reaches an engine as a word', () => {
  it('the engines read symbols aloud when given them (what the checks below look for)', () => {
    expect(symbolReadings('flite').join(' | ')).toMatch(/s l ae sh/);
    expect(symbolReadings('flite').join(' | ')).toMatch(/hh ae sh/);
    expect(symbolReadings('en-us').length).toBeGreaterThanOrEqual(3);
    expect(espeak('日経平均 38000', 'ja')).toMatch(/tS'aIni:z/);
  });

  it.each(ROWS.map((row) => [row[1], row[2]] as const))('%s: %s', (code, alert) => {
    const lang = LANGUAGES[code];
    const spoken = speakable(alert, lang);
    const voice = code === 'en' ? 'flite' : lang.espeak;
    const said = phonemes(spoken, voice);
    for (const reading of symbolReadings(voice)) expect(said).not.toContain(reading);
    // espeak-ng's Japanese voice says "Chinese letter" for a kanji.
    if (code === 'ja') expect(espeak(spoken, 'ja')).not.toMatch(/tS'aIni:z/);
  });
});

/** A native reading on espeak-ng's phonemes: what it must contain, in order, and what it must not. */
type NativeCase = [code: 'ru' | 'ja' | 'zh', alert: string, mustSay: string, mustNotSay: RegExp];

const NATIVE: NativeCase[] = [
  // Russian: the feminine whole part, "целых", the fraction's denominator and the genitive after it.
  ['ru', 'BTC +2.35%', 'две целых тридцать пять сотых процента', /_:'i_:|d;Is;'AtYx/],
  ['ru', 'EURUSD 1.0842', 'одна целая восемьсот сорок две десятитысячных', /_:'i_:|t'otS;ka/],
  ['ru', 'Нефть 21.1 $', 'двадцать одна целая одна десятая доллара', /_:'i_:|t'otS;ka/],
  ['ru', 'Газ 0.5%', 'ноль целых пять десятых процента', /_:'i_:|t'otS;ka/],
  ['ru', 'Цель 64250.5', 'шестьдесят четыре тысячи двести пятьдесят целых пять десятых', /_:'i_:|t'otS;ka/],
  // Japanese: the decimals one digit at a time after てん; ten thousands counted in まん.
  ['ja', 'BTC +2.35%', 'プラス に てん さん ご パーセント', /d_z/],
  ['ja', 'ドル えん 151.25', 'ひゃくごじゅういち てん に ご', /it_si_!C|d_z\\?'uu t'eN.*d_z/],
  ['ja', 'BTC 64250.5', 'ろくまん よんせんにひゃくごじゅう てん ご', /d_zu_!s'i_! sen/],
  ['ja', 'ボリューム 7.5M', 'ななひゃくごじゅうまん', /\(en\)/],
  // Chinese: 百分之 before the number, the decimals one digit at a time after 点; 万 for ten thousands.
  ['zh', 'BTC +2.35%', '正 百分之 二 点 三 五', /s\.'i\.35_\|w|\(en\)/],
  ['zh', 'BTC 64250.5', '六万四千二百五十 点 五', /l'iou51s\.i\.35/],
  ['zh', 'Volume 7.5M $2B', '七百五十万 二十亿 美元', /\(en\)/],
  ['zh', '价格 10005', '一万零五', /s\.'i\.35/],
];

describe('decimals and large numbers as a native speaker says them, on espeak-ng phonemes', () => {
  it.each(NATIVE)('%s: %s', (code, alert, mustSay, mustNotSay) => {
    const lang = LANGUAGES[code];
    const spoken = espeak(speakable(alert, lang), lang.espeak);
    expect(sounds(spoken, 'espeak')).toContain(sounds(espeak(mustSay, lang.espeak), 'espeak'));
    expect(spoken).not.toMatch(mustNotSay);
  });

  it("espeak-ng's own reading of the digits is what the normalizer must not leave to it", () => {
    // 2,35 in Russian: "два и три пять десятых" (two and three five tenths).
    expect(espeak('2,35 %', 'ru')).toMatch(/_:'i_:.*d;Is;'AtYx/);
    // 2 てん 35: "san juu go", thirty-five after the point; 64250 without まん.
    expect(espeak('2 てん 35', 'ja')).toMatch(/d_z/);
    expect(espeak('64250', 'ja')).not.toMatch(/maN/);
    // 2 点 35: "san shi wu"; 64250: 六十四千.
    expect(espeak('2 点 35', 'cmn-latn-pinyin')).toMatch(/s\.i\.35/);
    expect(espeak('64250', 'cmn-latn-pinyin')).toMatch(/l'iou51s\.i\.35/);
  });
});
