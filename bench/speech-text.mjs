// The speech text's cost per alert (the normalizer a call's message goes through, in process), and
// the Japanese dictionary's: its first load (a fresh process each run: cold) and memory, and a
// Japanese alert's steady cost with it. Runs on a build (npm run build): `--dist DIR` times another
// build (main's, for before/after); `--json FILE` writes the figures.
//   node bench/speech-text.mjs [--dist dist] [--runs 5] [--json bench/results/speech-text.json]
//     [--fixtures test/fixtures/tradingview-alerts.jsonl]  (every fixture message in every language)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, ROOT } from './lib/common.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const dist = path.resolve(ROOT, opt('dist', 'dist'));
const runs = Number(opt('runs', '5'));
const load = (file) => import(pathToFileURL(path.join(dist, file)).href);

/** Real-looking alerts of each language (none of them in the tests). */
const ALERTS = {
  en: [
    'Volume spike on SOLUSDT 5m | vol 350K | RSI(14) 71.2',
    'TVC:US10Y +12bps to 4.31% — BB%B 1.05, sma(50) cross up',
    'BINANCE:BTCUSDT.P 4H close 64,250.5 > EMA(200); SL 62,900 TP1 66,000 R:R 1:2.5',
    'Trailing stop hit on GBPUSD 30m at 1.2710 (-35 pips), 2h30m in trade',
  ],
  de: ['DAX 4Std Ausbruch über 18.250,5 | RSI 72', 'EURUSD 1Tg -0,45% unter SMA(50)'],
  ru: ['BTCUSDT 4Ч пробой 64250.5, RSI 71', 'Сбербанк 1Д +2.35% объём 15M'],
  ja: [
    '日経平均 38500 突破 1時間足',
    'ドル円 150.25 上抜け 日足 RSI 70 超え',
    'トヨタ自動車 7203.T 決算発表 後 急騰 +5.2% 出来高 1200万株',
    '損切り 148.5 利確 152 4時間足',
  ],
  zh: ['比特币 4小时线 突破 64250.5', '沪深300 日线 跌破 3500'],
  ko: ['비트코인 4시간봉 돌파 64250.5', '삼성전자 일봉 +2.5%'],
};

if (args.includes('--cold')) {
  // One fresh process: the dictionary's first load and what it holds in memory.
  const { japaneseDictionary } = await load('speech/japanese-reader.js');
  const { spokenAlerts } = await load('core/speech/spoken-alerts.js');
  const { LANGUAGES } = await load('core/speech/languages.js');
  const setting = opt('setting', 'auto');
  const rss = process.memoryUsage().rss;
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const reader = await japaneseDictionary({ setting, logger: { info() {}, warn: console.error } }).load();
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  // The first Japanese alert after it: the language's rules are built, the tokenizer's first use.
  const firstAlertStarted = performance.now();
  spokenAlerts([ALERTS.ja[0]], LANGUAGES.ja, { readJapanese: reader });
  const firstAlertMs = performance.now() - firstAlertStarted;
  const rssMb = (process.memoryUsage().rss - rss) / 1048576;
  console.log(JSON.stringify({ loaded: !!reader, ms, cpuMs, firstAlertMs, rssMb }));
  process.exit(0);
}

const { spokenAlerts } = await load('core/speech/spoken-alerts.js');
const { LANGUAGES } = await load('core/speech/languages.js');
const reader = await import(pathToFileURL(path.join(dist, 'speech/japanese-reader.js')).href)
  .then((m) => m.japaneseDictionary({ setting: 'auto', logger: { info() {}, warn() {} } }).load())
  .catch(() => undefined);

const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** CPU microseconds an alert, the median of batches, after a warm-up (the rules are built once a language). */
function perAlert(code, aids) {
  const alerts = ALERTS[code];
  const say = () => {
    for (const a of alerts) spokenAlerts([a], LANGUAGES[code], aids);
  };
  for (let i = 0; i < 200; i++) say();
  const batches = [];
  for (let b = 0; b < 15; b++) {
    // CPU time, not wall time: on a machine shared with other work it is what the alert costs.
    const started = cpuMicros();
    for (let i = 0; i < 100; i++) say();
    batches.push((cpuMicros() - started) / (100 * alerts.length));
  }
  return Math.round(median(batches) * 10) / 10;
}

const steady = {};
for (const code of Object.keys(ALERTS)) steady[code] = perAlert(code, {});

/**
 * The shared fixtures (the webhook's real alert bodies: --fixtures FILE), each message said in every
 * language: CPU microseconds an alert by language, the same texts before and after a change.
 */
const fixturesFile = opt('fixtures');
const byLanguage = {};
if (fixturesFile) {
  const { parseAlertBody } = await load('core/webhook/payload.js');
  const messages = fs
    .readFileSync(path.resolve(ROOT, fixturesFile), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line).body)
    .map((body) => parseAlertBody(new TextEncoder().encode(body), undefined))
    .filter((parsed) => parsed.ok && parsed.alert.message !== '')
    .map((parsed) => parsed.alert.message);
  for (const code of Object.keys(LANGUAGES)) {
    const say = () => {
      for (const m of messages) spokenAlerts([m], LANGUAGES[code], {});
    };
    for (let i = 0; i < 20; i++) say();
    const batches = [];
    for (let b = 0; b < 9; b++) {
      const started = cpuMicros();
      for (let i = 0; i < 10; i++) say();
      batches.push((cpuMicros() - started) / (10 * messages.length));
    }
    byLanguage[code] = Math.round(median(batches) * 10) / 10;
  }
  byLanguage.alerts = messages.length;
}
if (reader) steady['ja+dictionary'] = perAlert('ja', { readJapanese: reader });

const cold = [];
if (reader) {
  for (let i = 0; i < runs; i++) {
    const child = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--cold', '--dist', dist], {
      encoding: 'utf8',
    });
    cold.push(JSON.parse(child.stdout.trim().split('\n').pop()));
  }
}
const dictDir = path.join(ROOT, 'node_modules/kuromoji/dict');
const dictBytes = fs.existsSync(dictDir)
  ? fs.readdirSync(dictDir).reduce((sum, f) => sum + fs.statSync(path.join(dictDir, f)).size, 0)
  : 0;
const r1 = (x) => Math.round(x * 10) / 10;
const result = {
  dist: path.relative(ROOT, dist) || '.',
  cpuMicrosecondsPerAlert: steady,
  ...(fixturesFile && { fixturesCpuMicrosecondsPerAlert: byLanguage }),
  loadAverage: (await import('node:os')).loadavg().map((x) => Math.round(x * 10) / 10),
  dictionary: reader
    ? {
        filesMb: r1(dictBytes / 1048576),
        coldLoadMs: {
          min: r1(Math.min(...cold.map((c) => c.ms))),
          median: r1(median(cold.map((c) => c.ms))),
          max: r1(Math.max(...cold.map((c) => c.ms))),
        },
        coldLoadCpuMs: r1(median(cold.map((c) => c.cpuMs))),
        firstAlertAfterLoadMs: r1(median(cold.map((c) => c.firstAlertMs))),
        rssMb: r1(median(cold.map((c) => c.rssMb))),
        runs: cold.length,
      }
    : 'none in this build',
};
console.log(JSON.stringify(result, null, 2));
const json = opt('json');
if (json) fs.writeFileSync(path.resolve(ROOT, json), `${JSON.stringify(result, null, 2)}\n`);
