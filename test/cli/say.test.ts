// ringhook say, run as the real CLI: the text a call would speak for an alert body (the webhook's
// parsing, the language, voice and intro, the normalizer, the call's prompts), and with --wav the
// audio made by the real engines (flite for English, espeak-ng for the other languages).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/core/speech/languages.js';
import { spokenAlerts } from '../../src/core/speech/spoken-alerts.js';
import { checkWav } from '../../src/core/speech/wav.js';
import { buildOnce, runCli } from '../helpers/cli.js';
import { makeDataDir } from '../helpers/service.js';

let env: Record<string, string>;
let dir: string;

beforeAll(() => {
  buildOnce();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-say-'));
  env = { RINGHOOK_DATA_DIR: makeDataDir(), RINGHOOK_PUBLIC_URL: 'https://alerts.example.com' };
});

/** Words an engine reads aloud for a symbol left in the text. */
const SYMBOL_LEFT = /[|/\\#=^{}*~_$%&@+<>]/;

describe('ringhook say', () => {
  it('has --help', () => {
    const res = runCli(['say', '--help'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/USAGE/);
    for (const option of ['--language', '--voice', '--intro', '--wav', '--json']) expect(res.stdout).toContain(option);
    expect(runCli(['--help'], env).stdout).toContain('say');
  });

  it('prints the intro, the keys, the message as a call says it, and the prompt, one a line', () => {
    const body = 'BINANCE:BTCUSDT.P | Vol 7.5M | R:R 1:2.5 | EMA 9/21 ⬆️ 64,250.5 #breakout {{plot_0}}';
    const res = runCli(['say', body], env);
    expect(res.code, res.stderr).toBe(0);
    const [intro, keys, message, prompt, ...rest] = res.stdout.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(intro).toBe('Alert from ringhook.');
    expect(keys).toBe(LANGUAGES.en.prompts.keys);
    expect(prompt).toBe('Press 1 to confirm, press 2 to hear it again.');
    expect(message).toBe(spokenAlerts([body], LANGUAGES.en));
    expect(message).toMatch(/seven point five million/);
    expect(message).toMatch(/risk reward one to two point five/);
    expect(message).toMatch(/nine and twenty-one/);
    expect(message).not.toMatch(SYMBOL_LEFT);
    expect(message).not.toMatch(/\d/);
  });

  it('shows numbers in the language’s marks, money, times, and a cut message said to be cut (#57)', () => {
    const de = runCli(['say', 'DAX 18.420,75 | Gewinn 300 zł | -3σ um 13:45:30Z', '--language', 'de'], env);
    expect(de.code, de.stderr).toBe(0);
    expect(de.stdout).toContain('D A X 18420,75, Gewinn 300 Złoty, minus 3 sigma um 13 Uhr 45 und 30 Sekunden U T C');
    const long = runCli(['say', `ETH ${'9 '.repeat(300)}`, '--language', 'fr'], env);
    expect(long.code, long.stderr).toBe(0);
    expect(long.stdout.trimEnd().split('\n')[2]).toMatch(/message raccourci$/);
    expect(long.stderr).toMatch(/cut to 500 characters/);
  });

  // A CLI process a language: 6 s at a load of 5, a deadline, not a measure (#53: over 30 s at a load of 20).
  it('shows each language’s own magnitudes, markets by city, endings and dates as the call says them (#57)', () => {
    const cases: Array<[string, string, string]> = [
      [
        'de',
        'Volumen 2,3 Mio. € | Toyota 7203.T | am 14.06. um 09:00 Uhr',
        'Volumen 2,3 Millionen Euro, Toyota 7 2 0 3 in Tokio, am 14. Juni um 9 Uhr',
      ],
      [
        'fr',
        "L'or 2 350 $/oz, capitalisation 3,5 Md€ à 14h30",
        "L'or 2350 dollars l'once, capitalisation 3,5 milliards d'euros à 14 heures 30",
      ],
      ['tr', "Bitcoin 100.000 $'ı aştı, USD/TRY 34,25", 'Bitcoin 100000 doları aştı, U S D, T R Y 34,25'],
      [
        'ru',
        'Сбербанк вырос на 1,2%, объём 2,3 млрд руб.',
        'Сбербанк вырос на одну целую две десятых процента, объём две целых три десятых миллиарда рублей',
      ],
      ['ko', 'BTCUSDT 4시간봉 RSI 70 초과', 'B T C, U S D T 네 시간봉 R S I 70 초과'],
      [
        'en',
        'SPY 0DTE 540C, CPI 3.4% vs 3.5% est',
        'S P Y zero D T E five hundred forty call, C P I three point four percent vs three point five percent estimate',
      ],
    ];
    for (const [language, body, said] of cases) {
      const res = runCli(['say', body, '--language', language], env);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout.split('\n')[2], `${language}: ${body}`).toBe(said);
    }
  }, 90_000);

  it('reads a JSON body as the webhook does (the message field), and a body from stdin with -', () => {
    const json = JSON.stringify({ message: 'CL=F above 80, ^GSPC at 6,021.25', ticker: 'CL=F', price: 80.1 });
    const res = runCli(['say', json, '--json'], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({
      language: 'en',
      voice: 'slt',
      engine: 'flite slt',
      message: 'C L futures above eighty, S and P five hundred at six thousand twenty-one point two five',
    });
    expect(res.json.as_sent).toBe('CL=F above 80, ^GSPC at 6,021.25');
    const piped = runCli(['say', '-'], env, 'OIL BREAKS OUT');
    expect(piped.stdout.split('\n')[2]).toBe('oil breaks out');
  });

  it('speaks the language with its own prompts and intro, and the intro given', () => {
    const ru = runCli(['say', 'BTC +2.35%', '--language', 'ru', '--json'], env);
    expect(ru.json).toMatchObject({
      voice: 'espeak-ng',
      engine: 'espeak-ng ru',
      intro: LANGUAGES.ru.prompts.intro,
      message: 'B T C плюс две целых тридцать пять сотых процента',
      keys: LANGUAGES.ru.prompts.keys,
      prompt: LANGUAGES.ru.prompts.prompt,
    });
    const own = runCli(['say', 'AAPL 187.2', '--intro', 'Desk alert.', '--voice', 'espeak-ng'], env);
    expect(own.stdout.split('\n')[0]).toBe('Desk alert.');
  });

  it('a Japanese call says every kanji word by its reading from the dictionary, the timeframe as Japanese says it', () => {
    // Each run loads the dictionary afresh: seconds of CPU (docs/speech.md), more on a loaded machine.
    // Half of the test's 120 s each: at runCli's usual 30 s the first was killed at load 20.
    const res = runCli(['say', '日経平均 38500 突破 1時間足', '--language', 'ja'], env, undefined, 55_000);
    expect(res.code, res.stderr).toBe(0);
    const message = res.stdout.split('\n')[2]!;
    expect(message).toBe('にっけいへいきん さんまん はっせんごひゃく とっぱ いちじかんあし');
    // A word of no market table: only the dictionary knows it.
    const rare = runCli(['say', '薔薇 上抜け 2.35%', '--language', 'ja'], env, undefined, 55_000);
    expect(rare.stdout.split('\n')[2]).toBe('ばら うわぬけ に てん さん ご パーセント');
    expect(rare.stderr).toMatch(/kanji are said by their readings/);
    expect(rare.stderr).not.toMatch(/Note:/);
  }, 120_000);

  it('writes the audio a call plays: telephone WAV, in the engine of the language', () => {
    for (const [language, file] of [
      ['en', path.join(dir, 'en.wav')],
      ['ru', path.join(dir, 'ru.wav')],
      ['zh', path.join(dir, 'zh.wav')],
    ] as const) {
      const res = runCli(['say', 'BTC 2.35% @ 64250.5', '--language', language, '--wav', file], env);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toMatch(/Wrote .* s\)/);
      const check = checkWav(fs.readFileSync(file));
      expect(check.ok && check.format).toEqual({ encoding: 1, channels: 1, sampleRate: 8000, bitsPerSample: 16 });
      // Intro, message and prompt: several seconds of speech.
      expect(check.ok && check.dataBytes / 16_000).toBeGreaterThan(3);
    }
    // Three CLI runs, each bounded by runCli's 30 s: the default 30 s for all three was exceeded on a
    // loaded machine (54.7 s, each run ~18 s) while every file was right.
  }, 100_000);

  it.each([
    [['say', 'x', '--language', 'xx'], /--language: the language must be one of en, de/],
    [['say', 'x', '--language', 'de', '--voice', 'slt'], /--voice: the voice slt does not speak German/],
    [['say', 'x', '--voice', 'kal'], /--voice: the voice must be one of/],
    [['say', 'x', '--intro', 'x'.repeat(61)], /--intro: the intro must be at most 60 characters/],
    [['say'], /Missing required positional argument/],
    [['say', 'x', '--loud'], /--loud/],
    [['say', 'x', 'y'], /argument/],
  ])('a usage error is one line and exit 2: %j', (args, message) => {
    const res = runCli(args, env);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stdout).toBe('');
  });

  it('a body the webhook would refuse, or a file it cannot write, is one line and exit 1', () => {
    const empty = runCli(['say', '   '], env);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/^ringhook: the webhook would refuse this body \(400 empty_body\)/);
    const unquoted = runCli(['say', '{"message": "{{ticker}} broke out", "price": {{close}}}'], env);
    expect(unquoted.code).toBe(0);
    expect(unquoted.stdout.split('\n')[2]).not.toMatch(/[{}]/);
    const noDir = runCli(['say', 'x', '--wav', path.join(dir, 'missing', 'a.wav')], env);
    expect(noDir.code).toBe(1);
    expect(noDir.stderr.trim()).toBe(
      `ringhook: --wav: the folder ${path.join(dir, 'missing')} does not exist: make it first, or write the file elsewhere`,
    );
  });
});

describe('ringhook account … --language ja', () => {
  it('says what a Japanese call speaks and how it reads kanji', () => {
    const created = runCli(['account', 'create', '--phone', '+14155550123', '--language', 'ja', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toMatch(/Japanese calls speak kana/);
    const set = runCli(['account', 'set', created.json.user_id, '--language', 'de'], env);
    expect(set.stderr).not.toMatch(/kana/);
    const back = runCli(['account', 'set', created.json.user_id, '--language', 'ja'], env);
    expect(back.stderr).toMatch(/kanji are said by their readings/);
  });
});
