// The addresses TradingView sends webhooks from: the one place ringhook knows them.
// Source: TradingView's help page "How to configure webhook alerts"
// (https://www.tradingview.com/support/solutions/43000529348-about-webhooks/), as read on 2026-11-28.
// When TradingView changes them, change this list (and the CHANGELOG) and nothing else.
export const TRADINGVIEW_WEBHOOK_ADDRESSES: readonly string[] = [
  '52.89.214.238',
  '34.212.75.30',
  '54.218.53.128',
  '52.32.178.7',
];
export const TRADINGVIEW_ADDRESSES_SOURCE = {
  url: 'https://www.tradingview.com/support/solutions/43000529348-about-webhooks/',
  checked: '2026-11-28',
} as const;
