import { expect, it } from 'vitest';
import { plainText } from '../../src/pbx/ari-error.js';

it("an HTML error page from Asterisk's HTTP server becomes its words: the history shows no markup", () => {
  const page =
    '<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\r\n<html><head>\r\n<title>503 Service Unavailable</title>\r\n</head><body>\r\n<h1>Service Unavailable</h1>\r\n<p>Shutdown in progress</p>\r\n<hr />\r\n<address>ringhook</address>\r\n</body></html>';
  expect(plainText(page)).toBe('Service Unavailable Shutdown in progress');
  expect(plainText('Allocation failed')).toBe('Allocation failed');
  expect(plainText('')).toBe('');
});
