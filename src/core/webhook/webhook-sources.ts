// Which addresses may send alerts: anyone (the seed's rule), only TradingView's published
// addresses, or a list of addresses and CIDR blocks. Per account, or for the whole server.
import { parseAddressList, type AddressMatcher } from '../connections/address-match.js';
import { TRADINGVIEW_WEBHOOK_ADDRESSES } from './tradingview-sources.js';

export interface SourceRule {
  /** As the owner wrote it, normalized: "any", "tradingview" or a comma-separated list. */
  readonly text: string;
  readonly any: boolean;
  allows(address: string | undefined): boolean;
  /** One line for an error or `doctor`. */
  describe(): string;
}

export const ANY_SOURCE: SourceRule = {
  text: 'any',
  any: true,
  allows: () => true,
  describe: () => 'any address',
};

/** Parses "any", "tradingview" or "203.0.113.7, 198.51.100.0/24, 2001:db8::/32"; throws an Error naming the bad entry. */
export function parseSourceRule(input: string): SourceRule {
  const text = input.trim().toLowerCase();
  if (text === '' || text === 'any') return ANY_SOURCE;
  if (text === 'tradingview') {
    const matcher = parseAddressList(TRADINGVIEW_WEBHOOK_ADDRESSES.join(','));
    return rule('tradingview', matcher, "TradingView's webhook addresses");
  }
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.includes('tradingview'))
    throw new Error('"tradingview" stands alone: use it, or a list of addresses, not both');
  if (entries.includes('any'))
    throw new Error('"any" stands alone (every address): use it, or a list of addresses, not both');
  const matcher = parseAddressList(input);
  if (matcher.empty) return ANY_SOURCE;
  const normalized = input
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .join(',');
  return rule(normalized, matcher, `the addresses ${normalized}`);
}

function rule(text: string, matcher: AddressMatcher, description: string): SourceRule {
  return { text, any: false, allows: (address) => matcher.matches(address), describe: () => description };
}

/**
 * Both rules must allow the address: the server's (RINGHOOK_WEBHOOK_SOURCES) and the account's.
 * Returns the first rule that refuses it, with where it was set, or null when the alert may pass.
 */
export function refusingRule(
  address: string | undefined,
  server: SourceRule,
  account: SourceRule,
): { rule: SourceRule; setBy: 'server' | 'account' } | null {
  if (!server.allows(address)) return { rule: server, setBy: 'server' };
  if (!account.allows(address)) return { rule: account, setBy: 'account' };
  return null;
}

/** The refusal's reason in the account's history (both stores, both paths). */
export function sourceRefusalReason(address: string | undefined, rule: SourceRule): string {
  return `from ${address ?? 'an unknown address'}: not in ${rule.text}`;
}

/** The 403's message: which rule refused the address, and where it is set. */
export function sourceRefusal(refusal: { rule: SourceRule; setBy: 'server' | 'account' }): string {
  const where = refusal.setBy === 'server' ? 'the server (RINGHOOK_WEBHOOK_SOURCES)' : "this account's --sources";
  return `Alerts are accepted only from ${refusal.rule.describe()}, as set for ${where}; this request came from another address.`;
}

function whoMay(rule: SourceRule): string {
  return rule.text === 'tradingview' ? "TradingView's four addresses" : rule.describe();
}

/**
 * Who may send the account's alerts, in plain words, with both rules as the webhook applies them
 * (refusingRule): the server's RINGHOOK_WEBHOOK_SOURCES first, then the account's own.
 */
export function describeSources(server: SourceRule, account: SourceRule): string {
  if (server.any && account.any) return 'Any address may send alerts: whoever has the URL can make your phone ring.';
  if (server.any) return `Only ${whoMay(account)} may send alerts: others get 403.`;
  const serverSays = `This server accepts alerts only from ${whoMay(server)} (RINGHOOK_WEBHOOK_SOURCES): others get 403, whatever is set here.`;
  if (account.any) return serverSays;
  return `${serverSays} Your setting narrows it further: an alert must also come from ${whoMay(account)}.`;
}
