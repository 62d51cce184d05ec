// The tables the normalizer reads tickers by: trading words written in capitals, indicator names,
// quote currencies, exchanges (TradingView's prefixes and Yahoo's suffixes) and index names.

const lowered = (list: string) => Object.fromEntries(list.split(/\s+/).map((w) => [w, w.toLowerCase()]));

/**
 * All-caps words that are words, not tickers, wherever they stand, and how they are said. Any
 * other all-caps token of 1 to 6 letters is taken for a ticker and spelled, except in a sentence
 * written all in capitals (see lexicon.ts).
 */
export const CAPS_WORDS: Readonly<Record<string, string>> = {
  ...lowered(`BUY SELL LONG SHORT ALERT ALERTS UP DOWN STOP BE ENTRY ENTER EXIT CLOSE CLOSED OPEN OPENED HIGH LOW NEW BULL BEAR
    CROSS ABOVE BELOW OVER UNDER HOLD NOW THE AND OR AT ON IN TO OF FOR IS IT NOT NO YES WITH BY FROM A AN AS IF THEN ARE WAS HAS
    ALL OUT GO BREAK BROKE TARGET PRICE SIGNAL HIT FILLED CALL CALLS PUT PUTS LIMIT MARKET ORDER URGENT TAKE PROFIT LOSS TREND
    RALLY DUMP PUMP MOON NEAR NEXT LAST DAY WEEK TODAY ZONE LEVEL BOUGHT SOLD SPIKE DROP SURGE FELL ROSE HALF FULL SIZE RISK WIN
    CHECK WATCH NOTE INFO TEST STRONG WEAK FAST SLOW FLAT RANGE VOLUME SPREAD GAP RETEST BOUNCE TRIM ADD SCALE DAILY WEEKLY HOURLY
    GOLD SILVER OIL CRUDE COPPER WHALE WHALES FLASH NEWS CRASH DIP TOTAL`),
  TP: 'take profit',
  SL: 'stop loss',
  I: 'I',
};

/** Indicator names: spelled like tickers unless said otherwise here; they can be crossed ("x"). */
export const INDICATORS: Readonly<Record<string, string | null>> = {
  ...Object.fromEntries(
    'RSI MACD EMA SMA WMA HMA DEMA TEMA MA VWAP VWMA ATR ADX DMI OBV CCI MFI ROC TSI SAR PSAR BB KC CMF'
      .split(' ')
      .map((name) => [name, null]),
  ),
  STOCH: 'stochastic',
  STOCHRSI: 'stochastic R S I',
};

/** Quote currencies that end a pair written in one piece (BTCUSDT), longest tried first. */
export const QUOTE_CURRENCIES: readonly string[] =
  'FDUSD USDT USDC BUSD TUSD USD EUR GBP JPY CHF CAD AUD NZD DAI BTC ETH BNB TRY RUB PLN BRL INR CNY CNH KRW MXN ZAR SEK NOK HKD SGD'.split(
    ' ',
  );

/** Exchange prefixes (NASDAQ:AAPL) said as words; any other exchange is spelled. */
export const EXCHANGES: Readonly<Record<string, string>> = {
  NASDAQ: 'Nasdaq',
  NYSE: 'N Y S E',
  NYSEARCA: 'N Y S E Arca',
  AMEX: 'Amex',
  ARCA: 'Arca',
  BATS: 'Bats',
  CME_MINI: 'C M E mini',
  CBOT_MINI: 'C B O T mini',
  COMEX: 'Comex',
  NYMEX: 'Nymex',
  EUREX: 'Eurex',
  XETR: 'Xetra',
  BINANCE: 'Binance',
  COINBASE: 'Coinbase',
  KRAKEN: 'Kraken',
  BITSTAMP: 'Bitstamp',
  BITFINEX: 'Bitfinex',
  BYBIT: 'Bybit',
  BITGET: 'Bitget',
  KUCOIN: 'KuCoin',
  GEMINI: 'Gemini',
  OANDA: 'Oanda',
  FOREXCOM: 'Forex dot com',
  PEPPERSTONE: 'Pepperstone',
  CAPITALCOM: 'Capital dot com',
  SAXO: 'Saxo',
};

/** Yahoo's exchange suffixes (SHOP.TO, VOD.L, 7203.T): the market, said after "on". */
export const EXCHANGE_SUFFIXES: Readonly<Record<string, string>> = {
  TO: 'Toronto',
  V: 'T S X Venture',
  L: 'London',
  IL: 'London',
  DE: 'Xetra',
  F: 'Frankfurt',
  PA: 'Paris',
  AS: 'Amsterdam',
  BR: 'Brussels',
  MI: 'Milan',
  MC: 'Madrid',
  LS: 'Lisbon',
  SW: 'S I X',
  VI: 'Vienna',
  ST: 'Stockholm',
  OL: 'Oslo',
  CO: 'Copenhagen',
  HE: 'Helsinki',
  IR: 'Dublin',
  HK: 'Hong Kong',
  T: 'Tokyo',
  AX: 'A S X',
  NZ: 'N Z X',
  NS: 'N S E',
  BO: 'B S E',
  SS: 'Shanghai',
  SZ: 'Shenzhen',
  KS: 'K R X',
  KQ: 'Kosdaq',
  SA: 'B three',
  MX: 'B M V',
  TW: 'Taiwan',
  SI: 'S G X',
  JK: 'Jakarta',
  BK: 'Bangkok',
  WA: 'Warsaw',
  IS: 'Istanbul',
  ME: 'Moscow',
};

/** Yahoo's index symbols (^GSPC) by the names traders say, written to be read by the normalizer itself. */
export const INDEX_NAMES: Readonly<Record<string, string>> = {
  GSPC: 'S&P 500',
  SPX: 'S&P 500',
  DJI: 'Dow Jones',
  IXIC: 'Nasdaq Composite',
  NDX: 'Nasdaq 100',
  RUT: 'Russell 2000',
  N225: 'Nikkei 225',
  GDAXI: 'DAX',
  FCHI: 'CAC 40',
  HSI: 'Hang Seng',
  STOXX50E: 'Euro Stoxx 50',
  FTSE: 'FTSE 100',
};

/** Words before a count with M that make it millions (volume 15M), not a timeframe. */
export const MAGNITUDE_BEFORE =
  /\b(?:vol(?:ume)?|m(?:ar)?k?t\s*cap|cap|oi|open\s+interest|liquidity|liq|tvl|float|supply|inflows?|outflows?|notional|revenue|sales|raised?|worth|valued?|whales?|bought|sold|moved|transferred|minted|burned|deposits?|withdrawals?)\b/i;

/** Words just after such a count that make it millions (5M USDT, 2M shares). */
export const MAGNITUDE_AFTER = /^\s*(?:usdt|usdc|usd|dollars?|tokens?|coins?|contracts?|shares?|units?|in\s+volume)\b/i;

/** Words near a count that make it a timeframe (the 15M chart). */
export const TIMEFRAME_CONTEXT = /\b(?:charts?|timeframes?|tf|candles?|bars?|intervals?|closes?)\b/i;
