// The table of languages and voices: every language complete, the prompts its own, numbers said
// the language's way, and the rules for choosing a voice and an intro.
import { describe, expect, it } from 'vitest';
import {
  callSpeech,
  chooseVoice,
  defaultVoice,
  introFor,
  introSchema,
  LANGUAGES,
  languageSchema,
  VOICES,
  voiceSchema,
} from '../../src/core/speech/languages.js';
import { LANGUAGE_CODES, VOICE_IDS } from '../../src/core/speech/language-types.js';
import { speakable } from '../../src/core/speech/speakable.js';
import { cutAtWord, MAX_SPOKEN_CHARS, spokenAlerts } from '../../src/core/speech/spoken-alerts.js';

const codes = [...LANGUAGE_CODES];

describe('the language table', () => {
  it('offers the languages the issue asks for', () => {
    expect(codes).toEqual(
      expect.arrayContaining(['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'tr', 'ja', 'ko', 'zh', 'ru']),
    );
    expect(Object.keys(LANGUAGES).sort()).toEqual([...codes].sort());
  });

  it.each(codes)('%s has every prompt, non-empty, and every alert of a full call its own ordinal', (code) => {
    const { prompts } = LANGUAGES[code];
    for (const text of [
      prompts.intro,
      prompts.prompt,
      prompts.confirmed,
      prompts.testCall,
      prompts.alertCount(2),
      prompts.alertCount(10),
    ])
      expect(text.trim()).not.toBe('');
    const ordinals = Array.from({ length: 10 }, (_, i) => prompts.ordinal(i));
    expect(new Set(ordinals).size).toBe(10);
    expect(prompts.ordinal(10)).toMatch(/11|eleven/);
    expect(prompts.intro.length).toBeLessThanOrEqual(60);
  });

  it.each(codes.filter((c) => c !== 'en'))('%s prompts are written in the language, not the English ones', (code) => {
    const { prompts } = LANGUAGES[code];
    const en = LANGUAGES.en.prompts;
    expect(prompts.prompt).not.toBe(en.prompt);
    expect(prompts.confirmed).not.toBe(en.confirmed);
    expect(prompts.intro).not.toBe(en.intro);
    expect(prompts.testCall).not.toBe(en.testCall);
    expect(prompts.alertCount(3)).not.toBe(en.alertCount(3));
    expect(prompts.ordinal(0)).not.toBe(en.ordinal(0));
    // Both digits the caller may press are named in the prompt.
    expect(prompts.prompt).toMatch(/1/);
    expect(prompts.prompt).toMatch(/2/);
  });

  it.each(codes)('%s has every normalizer word', (code) => {
    const { words } = LANGUAGES[code];
    const all = [
      ...Object.values(words.symbols),
      ...Object.values(words.units).flatMap((u) => [u.one, u.many]),
      ...Object.values(words.currencies).flatMap((c) => [c.one, c.many]),
      words.futuresMonths['1'],
      words.futuresMonths['2'],
      words.crosses,
      words.on,
    ];
    for (const word of all) expect(word.trim()).not.toBe('');
  });

  it('offers the three English voices, flite slt first, and espeak-ng for every language', () => {
    expect(LANGUAGES.en.voices).toEqual(['slt', 'slt-hts', 'espeak-ng']);
    expect(defaultVoice('en')).toBe('slt');
    for (const code of codes) expect(LANGUAGES[code].voices).toContain('espeak-ng');
    expect(defaultVoice('de')).toBe('espeak-ng');
    expect(VOICES['slt-hts']).toMatchObject({ engine: 'festival', engineVoice: 'cmu_us_slt_arctic_hts' });
    for (const id of VOICE_IDS) expect(VOICES[id].id).toBe(id);
  });
});

describe('numbers and words per language', () => {
  it('a German alert: the decimal comma, German words for above and timeframes', () => {
    expect(speakable('DAX > 18250.5 on the 4H', LANGUAGES.de)).toBe('D A X über 18250,5 on the 4 Stunden');
    expect(speakable('AAPL broke 187.20', LANGUAGES.de)).toBe('A A P L broke 187,20');
  });

  it('a comma language reads a platform number with thousands separators as one number', () => {
    expect(speakable('BTC 1,234.56', LANGUAGES.fr)).toBe('B T C 1234,56');
    expect(speakable('ES1! < 5000', LANGUAGES.es)).toBe('E S, primer vencimiento por debajo de 5000');
  });

  it.each([
    ['de', '187,2'],
    ['fr', '187,2'],
    ['es', '187,2'],
    ['it', '187,2'],
    ['pt', '187,2'],
    ['nl', '187,2'],
    ['pl', '187,2'],
    ['tr', '187,2'],
    // Said in words where espeak-ng's own reading of the digits is wrong (issue 32, kind 8).
    ['ru', 'сто восемьдесят семь целых две десятых'],
    ['ja', 'ひゃくはちじゅうなな てん に'],
    ['ko', '187 점 2'],
    ['zh', '一百八十七 点 二'],
  ] as const)('%s says 187.2 as %s', (code, said) => {
    expect(speakable('187.2', LANGUAGES[code])).toBe(said);
  });

  it('English keeps its words', () => {
    expect(speakable('ES1! > 187.2 on the 4H', LANGUAGES.en)).toBe(
      'E S, front month above one hundred eighty-seven point two on the four hour',
    );
  });

  it('times, crossings and percentages in the language', () => {
    expect(speakable('RSI x MACD at 14:00 -2.5%', LANGUAGES.de)).toBe(
      'R S I kreuzt M A C D at 14 Uhr minus 2,5 Prozent',
    );
    expect(speakable('1D close', LANGUAGES.de)).toBe('Tageschart close');
    expect(speakable('2026-11-22T14:05:00Z', LANGUAGES.fr)).toBe('14 heures 5 U T C');
  });

  it('a merged call in German: the count and the ordinals in German', () => {
    expect(spokenAlerts(['DAX > 18000', 'SAP < 200.5'], LANGUAGES.de)).toBe(
      'Sie haben 2 Alarme. Erstens: D A X über 18000. Zweitens: S A P unter 200,5.',
    );
  });

  it('Polish and Russian counts agree with the number', () => {
    expect(LANGUAGES.pl.prompts.alertCount(3)).toBe('Masz 3 alerty.');
    expect(LANGUAGES.pl.prompts.alertCount(5)).toBe('Masz 5 alertów.');
    expect(LANGUAGES.ru.prompts.alertCount(2)).toBe('У вас 2 оповещения.');
    expect(LANGUAGES.ru.prompts.alertCount(7)).toBe('У вас 7 оповещений.');
    expect(speakable('4H 15m 1h', LANGUAGES.ru)).toBe('4 часа 15 минут 1 час');
    expect(speakable('2D 5D', LANGUAGES.pl)).toBe('2 dni 5 dni');
    expect(speakable('3m 12m', LANGUAGES.pl)).toBe('3 minuty 12 minut');
  });
});

describe('choosing the language, voice and intro', () => {
  it('refuses an unknown language or voice, naming the offered ones', () => {
    const lang = languageSchema.safeParse('xx');
    expect(lang.success).toBe(false);
    expect(lang.error?.issues[0]?.message).toContain('en, de, fr');
    const voice = voiceSchema.safeParse('kal');
    expect(voice.error?.issues[0]?.message).toContain('slt, slt-hts, espeak-ng');
  });

  it('a voice must speak the language; the voice follows a change of language when it cannot', () => {
    const en = { language: 'en', voice: 'slt-hts' } as const;
    expect(chooseVoice(en, { language: 'de', voice: 'slt' })).toEqual({
      ok: false,
      error: expect.stringContaining('offered for de: espeak-ng'),
    });
    expect(chooseVoice(en, { language: 'de' })).toEqual({ ok: true, language: 'de', voice: 'espeak-ng' });
    expect(chooseVoice({ language: 'en', voice: 'espeak-ng' }, { language: 'fr' })).toEqual({
      ok: true,
      language: 'fr',
      voice: 'espeak-ng',
    });
    expect(chooseVoice(en, { voice: 'espeak-ng' })).toEqual({ ok: true, language: 'en', voice: 'espeak-ng' });
    expect(chooseVoice({ language: 'de', voice: 'espeak-ng' }, { voice: 'slt' }).ok).toBe(false);
  });

  it('an intro of at most 60 characters without control characters; empty means the language default', () => {
    expect(introSchema.parse('  Trading desk alert.  ')).toBe('Trading desk alert.');
    expect(introSchema.parse('')).toBeNull();
    expect(introSchema.safeParse('x'.repeat(61)).success).toBe(false);
    expect(introSchema.safeParse('x'.repeat(60)).success).toBe(true);
    expect(introSchema.safeParse('bell\u0007').success).toBe(false);
    expect(introFor({ language: 'de', intro: null })).toBe('Alarm von ringhook.');
    expect(introFor({ language: 'de', intro: 'Hallo.' })).toBe('Hallo.');
  });
});

describe('how a call speaks', () => {
  it('English with the default voice is the server speech; other voices and languages name their engine', () => {
    expect(callSpeech({ language: 'en', voice: 'slt', intro: null })).toEqual({
      language: LANGUAGES.en,
      intro: 'Alert from ringhook.',
    });
    expect(callSpeech({ language: 'en', voice: 'slt-hts', intro: 'Desk.' }).synthesis).toEqual({
      engine: 'festival',
      voice: 'cmu_us_slt_arctic_hts',
    });
    expect(callSpeech({ language: 'en', voice: 'espeak-ng', intro: null }).synthesis).toEqual({
      engine: 'espeak-ng',
      voice: 'en-us',
    });
    expect(callSpeech({ language: 'de', voice: 'espeak-ng', intro: null })).toMatchObject({
      intro: 'Alarm von ringhook.',
      synthesis: { engine: 'espeak-ng', voice: 'de' },
    });
    expect(callSpeech({ language: 'zh', voice: 'espeak-ng', intro: null }).synthesis?.voice).toBe('cmn-latn-pinyin');
  });
});

describe('how long a call speaks', () => {
  const longFigures = Array.from({ length: 30 }, (_, i) => `${123456789012345 + i}`)
    .join(' ')
    .slice(0, 500);

  it('an alert of long figures read out in words is cut at a word, within the cap; a short one is untouched', () => {
    expect(spokenAlerts(['AAPL crossed 187.20'])).toBe(speakable('AAPL crossed 187.20'));
    const one = spokenAlerts([longFigures]);
    expect(one.length).toBeLessThanOrEqual(MAX_SPOKEN_CHARS);
    expect(one.length).toBeGreaterThan(MAX_SPOKEN_CHARS / 2);
    expect(one).not.toMatch(/\s$/);
  });

  it('ten merged alerts share the cap, each still said, in order', () => {
    const ten = spokenAlerts(Array.from({ length: 10 }, () => longFigures));
    expect(ten.length).toBeLessThanOrEqual(MAX_SPOKEN_CHARS + 400);
    for (const ordinal of ['First', 'Second', 'Tenth']) expect(ten).toContain(`${ordinal}:`);
  });

  it('never cuts a surrogate pair in half', () => {
    // 'a' then astral characters: the tenth UTF-16 unit is the first half of a pair.
    const text = `a${'𠀀'.repeat(20)}`;
    expect(cutAtWord(text, 10)).toBe(`a${'𠀀'.repeat(4)}`);
    expect(cutAtWord('one two three', 9)).toBe('one two');
    expect(cutAtWord('short', 9)).toBe('short');
  });
});
