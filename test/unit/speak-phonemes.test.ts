// The spoken text checked on the engines' own phonemes, with the real espeak-ng and flite: every
// alert of the table (speak-alerts.table.ts) makes its engine say nothing for a symbol (the
// phonemes of the text are those of its words alone), and Russian, Japanese and Chinese decimals
// and large numbers are said as a native speaker says them, where espeak-ng's own reading of the
// digits is wrong.
import { beforeAll, describe, expect, it } from 'vitest';
import type { LanguageCode } from '../../src/core/speech/language-types.js';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import { speakable } from '../../src/core/speech/speakable.js';
import { espeakMany, espeakOne, fliteMany, fliteOne } from '../helpers/engine-phonemes.js';
import { ROWS } from './speak-alerts.table.js';

/** Every text each voice ('flite' or an espeak-ng voice) says below, asked for at once (wanted()). */
let wantedTexts: Map<string, string[]> | undefined;
const said = new Map<string, Map<string, string>>();

/** A voice's phonemes for a text: from the voice's one process for all its texts (a text not asked for: its own). */
function phonemesOf(text: string, voice: string): string {
  let texts = said.get(voice);
  if (!texts) {
    wantedTexts ??= wanted();
    const all = [...(wantedTexts.get(voice) ?? []), text];
    texts = voice === 'flite' ? fliteMany(all) : espeakMany(all, voice);
    said.set(voice, texts);
  }
  return texts.get(text) ?? (voice === 'flite' ? fliteOne(text) : espeakOne(text, voice));
}

// Every voice's one process before the tests (a few seconds of CPU in all, more wall time on a busy machine).
beforeAll(() => {
  wantedTexts ??= wanted();
  for (const [voice, texts] of wantedTexts)
    if (!said.has(voice)) said.set(voice, voice === 'flite' ? fliteMany(texts) : espeakMany(texts, voice));
}, 180_000);

/** espeak-ng's phonemes for a text, in a language's voice (-x: phoneme mnemonics). */
const espeak = (text: string, voice: string): string => phonemesOf(text, voice);

/** flite's phones for a text (its default voice: the phones, not the voice, matter here). */
const flite = (text: string): string => phonemesOf(text, 'flite');

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
  // Each voice says all its texts in one process (test/helpers/engine-phonemes.ts); checked once on every
  // text of this file against a process per text (espeak-ng: the same output; flite: the same sounds, its
  // file reading breaks utterances at ':' '{' '[' where -t does not). Here a sample, each time.
  it("a voice's one process says each text as a process of its own does", () => {
    const sample: Array<[text: string, voice: string]> = [
      ['日経平均 38000', 'ja'],
      ['2,35 %', 'ru'],
      ['2 点 35', 'cmn-latn-pinyin'],
      ['pa | pa', 'en-us'],
    ];
    for (const [text, voice] of sample) {
      expect(espeak(text, voice), `${voice}: ${text}`).toBe(espeakOne(text, voice));
      expect(said.get(voice)?.has(text), `${voice}: ${text} came from the batch`).toBe(true);
    }
    for (const text of ['Price: close Time: time', 'pa { pa', 'pa / pa']) {
      expect(sounds(flite(text), 'flite'), text).toBe(sounds(fliteOne(text), 'flite'));
      expect(said.get('flite')?.has(text), `${text} came from the batch`).toBe(true);
    }
  });

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
type NativeCase = [code: LanguageCode, alert: string, mustSay: string, mustNotSay: RegExp];

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
  // Numbers in the language's own marks (#57): one number, its decimals after one decimal word (German and
  // Portuguese: as espeak-ng reads the digits written plainly, 18420,75 achtzehntausend … Komma sieben fünf).
  ['de', 'DAX 18.420,75', '18420,75', /OmA.*OmA/],
  ['fr', 'CAC 64\u202F318,5', 'soixante-quatre mille trois cent dix-huit virgule cinq', /virgyl.*virgyl/],
  ['fr', 'EURUSD 1,0825', 'un virgule zéro huit deux cinq', /sA~ vE~t/],
  ['pt', 'Ibovespa 131.200', '131200', /v'irgul/],
  ['pl', 'WIG 64 318,5', 'sześćdziesiąt cztery tysiące trzysta osiemnaście przecinek pięć', /pSEts;'inEk.*pSEts;'inEk/],
  ['ru', 'Объём 2 345 678', 'два миллиона триста сорок пять тысяч шестьсот семьдесят восемь', /m;,IlI;'onof/],
  // Units: Turkish says the percent first (yüzde 2,5: yüzde iki virgül beş); Polish pkt is punktów, never spelled.
  ['tr', 'BIST %2,5', 'yüzde 2,5', /b'ES jYzd'E/],
  ['pl', 'WIG20 +50 pkt', 'plus pięćdziesiąt punktów', /p,Ek,at'E/],
  // Each language's own magnitudes with the currency after them said (espeak-ng spells Md, reads Mio. as "Mio", млрд as letters).
  ['fr', 'capitalisation 3,5 Md€', "milliards d'euros", /,Emd'e/],
  ['de', 'Volumen 2,3 Mio. €', 'Millionen Euro', /m'I;o:/],
  ['ru', 'объём 2,3 млрд руб.', 'миллиарда рублей', /,Em,El;,Erd'E/],
  // French elision, the hour word said once, French 14h30 a time.
  ['fr', "L'or atteint 2 350,10 $", "l'or atteint", /'El_:/],
  ['de', 'Start um 09:00 Uhr', 'um 9 Uhr', /'u:r _!'u:r/],
  ['fr', 'Ouverture à 14h30', '14 heures 30', /'aS/],
  // Korean hours in native numbers (네 시간, not 사 시간); a Chinese year digit by digit (二零二五年, not 两千零二十五).
  ['ko', '4시간봉 RSI', '네 시간봉', /s'a_! siq'an/],
  ['zh', 'TSLA250117P00200000', '二零二五年', /tS;h'iE55n/],
  // Turkish: a case ending after a sign joins the currency's word in its harmony (doları), no pause before it.
  ['tr', "Bitcoin 100.000 $'ı aştı", 'doları aştı', /_:_: '@/],
  // Russian: after на the accusative (на одну целую две десятых), not the nominative одна целая.
  ['ru', 'вырос на 1,2%', 'на одну целую две десятых процента', /Vdn'A ts'ElVja/],
];

/** espeak-ng's own readings of digits, checked last. */
const OWN_READINGS: Array<[text: string, voice: string]> = [
  ['2,35 %', 'ru'],
  ['2 てん 35', 'ja'],
  ['64250', 'ja'],
  ['2 点 35', 'cmn-latn-pinyin'],
  ['64250', 'cmn-latn-pinyin'],
];

/** The texts each voice says in this file, so that each voice is one process. */
function wanted(): Map<string, string[]> {
  const texts = new Map<string, string[]>();
  const add = (voice: string, text: string) => texts.set(voice, [...(texts.get(voice) ?? []), text]);
  const voices = new Set(['flite', 'en-us']);
  for (const [, code, alert] of ROWS) {
    const lang = LANGUAGES[code];
    const voice = code === 'en' ? 'flite' : lang.espeak;
    voices.add(voice);
    add(voice, speakable(alert, lang));
    if (code === 'ja') add('ja', speakable(alert, lang));
  }
  for (const voice of voices) for (const text of ['pa pa', ...SYMBOLS.map((s) => `pa ${s} pa`)]) add(voice, text);
  add('ja', '日経平均 38000');
  for (const [code, alert, mustSay] of NATIVE) {
    const lang = LANGUAGES[code];
    add(lang.espeak, speakable(alert, lang));
    add(lang.espeak, mustSay);
  }
  for (const [text, voice] of OWN_READINGS) add(voice, text);
  return texts;
}

describe('decimals and large numbers as a native speaker says them, on espeak-ng phonemes', () => {
  it.each(NATIVE)('%s: %s', (code, alert, mustSay, mustNotSay) => {
    const lang = LANGUAGES[code];
    const spoken = espeak(speakable(alert, lang), lang.espeak);
    expect(sounds(spoken, 'espeak')).toContain(sounds(espeak(mustSay, lang.espeak), 'espeak'));
    expect(spoken).not.toMatch(mustNotSay);
  });

  it("espeak-ng's own reading of the digits is what the normalizer must not leave to it", () => {
    const [ru, jaDecimal, jaLarge, zhDecimal, zhLarge] = OWN_READINGS.map(([text, voice]) => espeak(text, voice));
    // 2,35 in Russian: "два и три пять десятых" (two and three five tenths).
    expect(ru).toMatch(/_:'i_:.*d;Is;'AtYx/);
    // 2 てん 35: "san juu go", thirty-five after the point; 64250 without まん.
    expect(jaDecimal).toMatch(/d_z/);
    expect(jaLarge).not.toMatch(/maN/);
    // 2 点 35: "san shi wu"; 64250: 六十四千.
    expect(zhDecimal).toMatch(/s\.i\.35/);
    expect(zhLarge).toMatch(/l'iou51s\.i\.35/);
  });
});
