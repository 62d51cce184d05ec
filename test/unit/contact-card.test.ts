import { describe, expect, it } from 'vitest';
import { callerIdNumber, contactCard } from '../../src/core/calls/contact-card.js';

describe('contactCard', () => {
  it('a vCard 3.0 named "ringhook alerts" with the caller id\'s number, CRLF line ends', () => {
    expect(contactCard('+14155550100')).toBe(
      'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:ringhook alerts\r\nN:ringhook alerts;;;;\r\nTEL;TYPE=VOICE:+14155550100\r\nNOTE:Calls from this number are your trading alerts.\r\nEND:VCARD\r\n',
    );
  });

  it('takes the number out of a caller id with a name', () => {
    expect(callerIdNumber('"Alerts" <+14155550100>')).toBe('+14155550100');
    expect(callerIdNumber('<+14155550100>')).toBe('+14155550100');
    expect(contactCard('"Alerts" <+14155550100>')).toContain('TEL;TYPE=VOICE:+14155550100\r\n');
  });

  it('escapes the name as RFC 6350 asks', () => {
    expect(contactCard('+1555', 'a,b;c\\d\ne')).toContain('FN:a\\,b\\;c\\\\d\\ne\r\n');
  });

  it('no dialable number, no card', () => {
    expect(contactCard('ringhook')).toBeUndefined();
    expect(contactCard('"Alerts" <alerts>')).toBeUndefined();
  });
});
