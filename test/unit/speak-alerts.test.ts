// Alerts as traders write them in TradingView messages, in every offered language, each kind of
// issue 32 (magnitudes, Yahoo tickers, separators, ratios, dates and placeholders, capitals,
// direction emoji, native decimals). Judged on properties of the spoken text rather than exact
// strings: no symbol an engine reads aloud is left, no number is half said, English and the
// languages spoken in words keep no digit, kanji never reach the Japanese voice, and each case
// says what it must (the regular expressions of its row).
import { describe, expect, it } from 'vitest';
import { type LanguageCode, LANGUAGES } from '../../src/core/languages.js';
import { speakable } from '../../src/core/speakable.js';

type Row = [kind: string, lang: LanguageCode, alert: string, ...said: RegExp[]];

const ROWS: Row[] = [
  // 1. Magnitudes: millions and billions, not months; a decimal before the suffix said whole.
  ['magnitude', 'en', 'Volume spike 7.5M on BTCUSDT', /seven point five million/],
  ['magnitude', 'en', 'Raised $2B in the round', /two billion dollars/],
  ['magnitude', 'en', 'BTC ETF inflows +$1.1B today', /plus one point one billion dollars/],
  ['magnitude', 'en', 'NVDA mkt cap $3.4T', /three point four trillion dollars/],
  ['magnitude', 'en', 'Vol 15M on the breakout', /fifteen million/],
  ['magnitude', 'en', 'OI 250M, funding positive', /two hundred fifty million/],
  ['magnitude', 'en', 'Whale moved 1,200 BTC ($84.5M)', /one thousand two hundred/, /eighty-four point five million dollars/],
  ['magnitude', 'en', '5M USDT bought on Binance', /five million U S D T/],
  ['magnitude', 'en', '1.2M shares traded', /one point two million shares/],
  ['magnitude', 'en', 'Short interest 2.5bn', /two point five billion/],
  ['magnitude', 'en', 'BTC 64k-65k range', /sixty-four thousand to sixty-five thousand/],
  ['magnitude', 'en', 'ETH 15M chart breakout', /fifteen minute chart/],
  ['magnitude', 'en', 'SPX 1M close above 5000', /^S P X monthly close above five thousand$/],
  ['magnitude', 'en', 'SOL/USDT 3M', /three month/],
  ['magnitude', 'de', 'Volumen 7.5M, $2B Zufluss', /7,5 Millionen/, /2 Milliarden Dollar/],
  ['magnitude', 'fr', 'Volume 7.5M, $2B entrées', /7,5 millions/, /2 milliards de dollars/],
  ['magnitude', 'es', 'Volumen 7.5M $2B', /7,5 millones/, /2 mil millones de dólares/],
  ['magnitude', 'it', 'Volume 7.5M $2B', /7,5 milioni/, /2 miliardi di dollari/],
  ['magnitude', 'pt', 'Volume 7.5M $2B', /7,5 milhões/, /2 mil milhões de dólares/],
  ['magnitude', 'nl', 'Volume 7.5M $2B', /7,5 miljoen/, /2 miljard dollar/],
  ['magnitude', 'pl', 'Wolumen 7.5M, $2B', /7,5 miliona/, /2 miliardy dolarów/],
  ['magnitude', 'tr', 'Hacim 7.5M $2B', /7,5 milyon/, /2 milyar dolar/],
  ['magnitude', 'ru', 'Объём 7.5M, $2B', /семь целых пять десятых миллиона/, /2 миллиарда долларов/],
  ['magnitude', 'ja', 'Volume 7.5M $2B', /ななひゃくごじゅうまん/, /にじゅうおく ドル/],
  ['magnitude', 'ko', 'Volume 7.5M $2B', /7500000/, /2000000000 달러/],
  ['magnitude', 'zh', 'Volume 7.5M $2B', /七百五十万/, /二十亿 美元/],

  // 2. Yahoo tickers: futures, indices, share classes, markets.
  ['yahoo', 'en', 'CL=F above 80', /^C L futures above eighty$/],
  ['yahoo', 'en', 'GC=F new high 2,450', /^G C futures new high/],
  ['yahoo', 'en', '^GSPC closes at record', /^S and P five hundred closes/],
  ['yahoo', 'en', '^VIX spikes 20%', /^V I X spikes twenty percent/],
  ['yahoo', 'en', '^N225 gap down', /^Nikkei two hundred twenty-five gap down/],
  ['yahoo', 'en', 'BRK.B breaks 450', /^B R K class B breaks four hundred fifty/],
  ['yahoo', 'en', 'BRK-B dip buy', /^B R K class B dip buy/],
  ['yahoo', 'en', 'SHOP.TO breaks out', /^S H O P on Toronto breaks out/],
  ['yahoo', 'en', 'VOD.L down 3%', /^V O D on London down three percent/],
  ['yahoo', 'en', '7203.T gap up', /^seven two zero three on Tokyo gap up/],
  ['yahoo', 'en', 'EURUSD=X 1.0842', /^E U R, U S D one point zero eight four two/],
  ['yahoo', 'en', 'BTC-USD 1D RSI(14) = 72.5', /B T C, U S D daily R S I fourteen, seventy-two point five/],
  ['yahoo', 'de', 'CL=F über 80, ^GDAXI 18.000', /C L Future über 80/, /D A X/],
  ['yahoo', 'fr', 'BRK.B casse 450', /B R K classe B/],
  ['yahoo', 'es', 'ES=F por encima de 5000', /E S futuros/],
  ['yahoo', 'ru', 'CL=F выше 80', /C L фьючерс выше 80/],
  ['yahoo', 'ja', 'CL=F 80 うわまわり', /C L さきもの はちじゅう/],
  ['yahoo', 'zh', '^GSPC 新高', /S 和 P 五百/],
  ['yahoo', 'ko', 'BRK.B 상승', /B R K 클래스 B/],

  // 3. Separators between fields.
  ['separator', 'en', 'Entry: 64,250 | SL: 63,900 | TP1: 66,000', /sixty-four thousand two hundred fifty, stop loss/, /take profit one: sixty-six thousand/],
  ['separator', 'en', 'Long @ 64250 / SL 63800 / TP 66000', /^Long at sixty-four thousand/],
  ['separator', 'en', 'buy / sell zone reached', /buy, sell zone/],
  ['separator', 'en', 'TP/SL updated', /take profit, stop loss updated/],
  ['separator', 'en', '#BTC #breakout alert #1', /^B T C breakout alert number one$/],
  ['separator', 'en', 'Target = 3400', /Target, three thousand four hundred/],
  ['separator', 'en', 'TP1:3400 TP2:3550', /take profit one: three thousand four hundred take profit two: three thousand five hundred fifty/],
  ['separator', 'en', 'Alert: NQ1! crossed VWAP - 15 min', /N Q, front month crossed V W A P, fifteen min/],
  ['separator', 'en', '**BUY** ETH ~ 3,450', /buy E T H about three thousand four hundred fifty/],
  ['separator', 'de', 'Einstieg: 18.250 | SL: 18.100 | Ziel: 18.600', /Einstieg: 18,250, stop loss: 18,100, Ziel: 18,600/],
  ['separator', 'fr', '#CAC40 | achat | 7 500', /achat/],
  ['separator', 'es', 'Compra / venta | #IBEX', /Compra, venta, I B E X/],
  ['separator', 'it', 'Entrata: 34.500 | Stop: 34.200 | #FTSEMIB', /Entrata: 34,500, Stop: 34,200/],
  ['separator', 'pt', 'Compra | alvo 130 | #PETR4', /Compra, alvo 130/],
  ['separator', 'nl', 'Koop | doel 900 | #ASML', /Koop, doel 900, A S M L/],
  ['separator', 'pl', 'Kupno | cel 120 | #KGH', /Kupno, cel 120/],
  ['separator', 'tr', 'Alış | hedef 300 | #THYAO', /Alış, hedef 300/],
  ['separator', 'ru', 'Покупка | цель 300 | #SBER', /Покупка, цель 300, S B E R/],
  ['separator', 'ja', 'かい | もくひょう 3000 | #トヨタ', /かい, もくひょう さんぜん, トヨタ/],
  ['separator', 'ko', '매수 | 목표 80000 | #삼성전자', /매수, 목표 80000, 삼성전자/],
  ['separator', 'zh', '买入 | 目标 1800 | #茅台', /买入, 目标 一千八百, 茅台/],

  // 4. Ratios and pairs of numbers.
  ['ratio', 'en', 'R:R 1:2.5', /^risk reward one to two point five$/],
  ['ratio', 'en', 'RR 1:3 setup', /risk reward one to three setup/],
  ['ratio', 'en', 'Risk/Reward: 1:2', /risk reward one to two/],
  ['ratio', 'en', 'RR 1 : 3', /risk reward one to three/],
  ['ratio', 'en', 'Ratio 3:1 long', /three to one/],
  ['ratio', 'en', 'EMA 9/21 cross up', /E M A nine and twenty-one cross up/],
  ['ratio', 'en', '9/21 EMA cross', /nine and twenty-one E M A/],
  ['ratio', 'en', 'EMA(20) x EMA(50)', /E M A twenty crosses E M A fifty/],
  ['ratio', 'en', 'SMA 50/200 golden cross', /S M A fifty and two hundred/],
  ['ratio', 'en', 'close 1/2 position', /close one half position/],
  ['ratio', 'de', 'CRV 1:2.5, EMA 9/21', /1 zu 2,5/, /E M A 9 und 21/],
  ['ratio', 'fr', 'R:R 1:3', /ratio risque rendement 1 pour 3/],
  ['ratio', 'es', 'R:R 1:2', /riesgo beneficio 1 a 2/],
  ['ratio', 'it', 'R:R 1:2.5', /rischio rendimento 1 a 2,5/],
  ['ratio', 'pt', 'EMA 9/21', /E M A 9 e 21/],
  ['ratio', 'nl', 'R:R 1:3', /risico rendement 1 op 3/],
  ['ratio', 'pl', 'R:R 1:2', /ryzyko do zysku 1 do 2/],
  ['ratio', 'tr', 'EMA 9/21 kesişim', /E M A 9 ve 21/],
  ['ratio', 'ru', 'R:R 1:2.5', /риск к прибыли 1 к две целых пять десятых/],
  ['ratio', 'ja', 'R:R 1:2.5', /リスク リワード いち たい に てん ご/],
  ['ratio', 'ko', 'R:R 1:3', /손익비 1 대 3/],
  ['ratio', 'zh', 'R:R 1:2.5 EMA 9/21', /盈亏比 一 比 二 点 五/, /九 和 二十一/],

  // 5. Dates and unexpanded placeholders.
  ['date', 'en', 'June expiry 6/14', /June fourteenth/],
  ['date', 'en', 'On 2026-06-14 at 14:00', /On June fourteenth at fourteen hundred/],
  ['date', 'en', 'Earnings 12/3 after close', /December third/],
  ['date', 'en', '14.06.2026 close', /June fourteenth close/],
  ['date', 'en', '$TSLA 250C 6/21 exp', /June twenty-first/],
  ['date', 'en', '{{ticker}} crossed {{close}}', /^ticker crossed close$/],
  ['date', 'en', '{{strategy.order.action}} {{strategy.order.contracts}} @ {{close}}', /strategy order action strategy order contracts at close/],
  ['date', 'en', 'Price: {{close}} Time: {{time}}', /Price: close Time: time/],
  ['date', 'de', 'Verfall 6/14, {{ticker}}', /14\. Juni/, /ticker/],
  ['date', 'fr', 'Échéance 2026-06-01', /premier juin/],
  ['date', 'es', 'Vence 2026-06-14', /14 de junio/],
  ['date', 'it', 'Scadenza 6/14', /14 giugno/],
  ['date', 'pt', 'Vencimento 14/06/2026', /14 de junho/],
  ['date', 'nl', 'Expiratie 2026-06-14', /14 juni/],
  ['date', 'pl', 'Wygasa 2026-06-14', /14 czerwca/],
  ['date', 'tr', 'Vade 2026-06-14', /14 Haziran/],
  ['date', 'ru', 'Экспирация 2026-06-14 {{close}}', /четырнадцатое июня/, /close/],
  ['date', 'ja', 'まんき 2026-06-14', /ろくがつ じゅうよっか/],
  ['date', 'ko', '만기 2026-06-14', /6월 14일/],
  ['date', 'zh', '到期 2026-06-14', /六月十四日/],

  // 6. Words in capitals.
  ['capitals', 'en', 'OIL BREAKS OUT', /^oil breaks out$/],
  ['capitals', 'en', 'AAPL BREAKS OUT ABOVE 190', /^A A P L breaks out above one hundred ninety$/],
  ['capitals', 'en', 'FED CUTS RATES, US STOCKS RALLY', /^fed cuts rates, U S stocks rally$/],
  ['capitals', 'en', 'GOLD SPIKES 2% AFTER CPI', /^gold spikes two percent after C P I$/],
  ['capitals', 'en', 'BITCOIN HITS NEW ATH', /^bitcoin hits new A T H$/],
  ['capitals', 'en', 'SPY PUTS PRINTING, TAKE PROFITS NOW', /^S P Y puts printing, take profits now$/],
  ['capitals', 'en', 'NVDA RSI OVERBOUGHT', /^N V D A R S I overbought$/],
  ['capitals', 'de', 'OIL BREAKS OUT über 80', /oil breaks out über 80/],
  ['capitals', 'ru', 'TSLA BREAKS DOWN', /T S L A breaks down/],

  // 7. Arrows and direction emoji.
  ['arrows', 'en', '100 ➡️ 110', /^one hundred to one hundred ten$/],
  ['arrows', 'en', 'BTC 📈 +5%', /B T C up plus five percent/],
  ['arrows', 'en', '🚀📈 BTC breakout 📈', /^B T C breakout$/],
  ['arrows', 'en', 'Price ⬇️ 2.5%', /Price down two point five percent/],
  ['arrows', 'en', 'DXY 104.25 ⬇️', /D X Y one hundred four point two five down/],
  ['arrows', 'en', '⚠️ BTC dump 📉 -8% in 1h', /^B T C dump down minus eight percent in one hour$/],
  ['arrows', 'en', 'ETH ⬆️ breakout confirmed ✅', /^E T H breakout confirmed$/],
  ['arrows', 'de', 'DAX ⬆️ 1,2% 📈', /hoch 1,2 Prozent/],
  ['arrows', 'fr', 'CAC 📉 -0.8%', /en baisse moins 0,8 pour cent/],
  ['arrows', 'es', 'IBEX 11000 ➡️ 11200', /11000 a 11200/],
  ['arrows', 'ru', 'MOEX ⬇️ 2.5%', /вниз две целых пять десятых процента/],
  ['arrows', 'ja', 'にっけい ⬆️ 2.5%', /あげ に てん ご パーセント/],
  ['arrows', 'ko', '코스피 📈 1.5%', /상승 1 점 5 퍼센트/],
  ['arrows', 'zh', '恒指 📉 2.5%', /下跌 百分之 二 点 五/],

  // 8. Decimals as a native speaker says them.
  ['decimals', 'ru', 'BTC +2.35%', /плюс две целых тридцать пять сотых процента/],
  ['decimals', 'ru', 'EURUSD 1.0842', /одна целая восемьсот сорок две десятитысячных/],
  ['decimals', 'ru', 'Газ 0.5%', /ноль целых пять десятых процента/],
  ['decimals', 'ru', 'Нефть 21.1 $', /двадцать одна целая одна десятая доллара/],
  ['decimals', 'ru', 'Рост 2% и 21% и 5%', /2 процента/, /21 процент/, /5 процентов/],
  ['decimals', 'ru', 'SHIB 0.00001234', /0 запятая 0 0 0 0 1 2 3 4/],
  ['decimals', 'ja', 'BTC +2.35%', /プラス に てん さん ご パーセント/],
  ['decimals', 'ja', 'ドル えん 151.25', /ひゃくごじゅういち てん に ご/],
  ['decimals', 'ja', 'BTC 64250.5', /ろくまん よんせんにひゃくごじゅう てん ご/],
  ['decimals', 'ja', '日経平均 38000 を 上抜け', /さんまん はっせん/],
  ['decimals', 'ja', 'ＢＴＣ ２．３５％', /B T C に てん さん ご パーセント/],
  ['decimals', 'zh', 'BTC +2.35%', /正 百分之 二 点 三 五/],
  ['decimals', 'zh', '黄金 2395.5', /两千三百九十五 点 五/],
  ['decimals', 'zh', 'BTC 64250.5', /六万四千二百五十 点 五/],
  ['decimals', 'zh', '价格 10005', /一万零五/],
  ['decimals', 'ko', 'BTC 2.35%', /2 점 3 5 퍼센트/],
  ['decimals', 'de', 'DAX 18250.5 +0.35%', /18250,5 plus 0,35 Prozent/],
  ['decimals', 'pl', 'WIG20 2350.25 -1.5%', /2350,25 minus 1,5 procent/],
  ['decimals', 'tr', 'BIST 9850.75', /9850,75/],
  ['decimals', 'en', 'EURUSD 1.0842 ↑', /one point zero eight four two up/],
  ['decimals', 'en', 'TP2 hit ✅ +3.4R', /plus three point four R/],
];

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
    expect(new Set(ROWS.map((r) => r[0])).size).toBe(8);
    expect(new Set(ROWS.map((r) => r[1]))).toEqual(new Set(Object.keys(LANGUAGES)));
    for (const lang of ['ru', 'ja', 'zh'] as const) expect(ROWS.some(([kind, l]) => kind === 'decimals' && l === lang)).toBe(true);
  });

  it.each(ROWS.map((row) => [`${row[0]} ${row[1]}`, row[2], row] as const))('%s: %s', (_, alert, [, lang, , ...said]) => {
    const spoken = speakable(alert, LANGUAGES[lang]);
    for (const pattern of said) expect(spoken).toMatch(pattern);
    expect(spoken).not.toMatch(SYMBOL);
    expect(spoken).not.toMatch(/\p{Extended_Pictographic}/u);
    expect(spoken).not.toMatch(HALF_SAID);
    for (const word of spoken.match(SYMBOL_WORDS) ?? []) expect(alert.toLowerCase()).toContain(word.toLowerCase());
    if (WORDS_ONLY.includes(lang)) expect(spoken).not.toMatch(/\d/);
    if (lang === 'ja') expect(spoken).not.toMatch(/\p{Script=Han}/u);
  });
});
