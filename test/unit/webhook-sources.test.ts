import { describe, expect, it } from 'vitest';
import {
  ANY_SOURCE,
  describeSources,
  parseSourceRule,
  refusingRule,
  sourceRefusal,
} from '../../src/core/webhook/webhook-sources.js';
import { TRADINGVIEW_WEBHOOK_ADDRESSES } from '../../src/core/webhook/tradingview-sources.js';

describe('parseSourceRule', () => {
  it('"any" and empty allow every address', () => {
    expect(parseSourceRule('any').allows('203.0.113.9')).toBe(true);
    expect(parseSourceRule('').any).toBe(true);
  });
  it('"tradingview" allows exactly the four published addresses', () => {
    const rule = parseSourceRule('TradingView');
    expect(TRADINGVIEW_WEBHOOK_ADDRESSES).toHaveLength(4);
    for (const address of TRADINGVIEW_WEBHOOK_ADDRESSES) expect(rule.allows(address)).toBe(true);
    expect(rule.allows(`::ffff:${TRADINGVIEW_WEBHOOK_ADDRESSES[0]}`)).toBe(true);
    expect(rule.allows('52.89.214.239')).toBe(false);
    expect(rule.allows('127.0.0.1')).toBe(false);
    expect(rule.allows(undefined)).toBe(false);
    expect(rule.text).toBe('tradingview');
  });
  it('matches IPv4 and IPv6 CIDR lists', () => {
    const rule = parseSourceRule('127.0.0.1/32, 2001:db8::/32');
    expect(rule.allows('127.0.0.1')).toBe(true);
    expect(rule.allows('127.0.0.2')).toBe(false);
    expect(rule.allows('2001:db8:1::5')).toBe(true);
    expect(rule.allows('2001:db9::1')).toBe(false);
    expect(rule.allows('::1')).toBe(false);
    expect(rule.text).toBe('127.0.0.1/32,2001:db8::/32');
  });
  it('refuses a bad entry, and tradingview mixed into a list, with one line', () => {
    expect(() => parseSourceRule('127.0.0.1/33')).toThrow(/prefix/);
    expect(() => parseSourceRule('not-an-ip')).toThrow(/not an IP/);
    expect(() => parseSourceRule('tradingview, 10.0.0.0/8')).toThrow(/stands alone/);
    expect(() => parseSourceRule('any, 1.2.3.4')).toThrow(
      '"any" stands alone (every address): use it, or a list of addresses, not both',
    );
  });
});

describe('refusingRule', () => {
  const local = parseSourceRule('127.0.0.1/32');
  it('passes when both rules allow', () => {
    expect(refusingRule('127.0.0.1', ANY_SOURCE, local)).toBeNull();
  });
  it('names the server rule first, then the account rule', () => {
    expect(refusingRule('127.0.0.2', local, ANY_SOURCE)?.setBy).toBe('server');
    const refusal = refusingRule('127.0.0.2', ANY_SOURCE, parseSourceRule('tradingview'));
    expect(refusal?.setBy).toBe('account');
    expect(sourceRefusal(refusal!)).toMatch(/TradingView's webhook addresses.*--sources/);
  });
});

describe('describeSources', () => {
  const tv = parseSourceRule('tradingview');
  const list = parseSourceRule('203.0.113.0/24');
  it('says anyone may send when neither rule restricts', () => {
    expect(describeSources(ANY_SOURCE, ANY_SOURCE)).toMatch(/^Any address may send alerts/);
  });
  it("names TradingView's four addresses, or the list, and the 403", () => {
    expect(describeSources(ANY_SOURCE, tv)).toBe("Only TradingView's four addresses may send alerts: others get 403.");
    expect(describeSources(ANY_SOURCE, list)).toBe(
      'Only the addresses 203.0.113.0/24 may send alerts: others get 403.',
    );
  });
  it("says the server's rule applies whatever the account sets, and both when both restrict", () => {
    expect(describeSources(tv, ANY_SOURCE)).toBe(
      "This server accepts alerts only from TradingView's four addresses (RINGHOOK_WEBHOOK_SOURCES): others get 403, whatever is set here.",
    );
    expect(describeSources(tv, list)).toMatch(
      /whatever is set here\. .*must also come from the addresses 203\.0\.113\.0\/24\.$/,
    );
  });
});
