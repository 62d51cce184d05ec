// Control characters from outside never reach a terminal (core/server/terminal-text.ts, #51). Pure.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { terminalSafe, terminalSafeLine } from '../../src/core/server/terminal-text.js';

/** What a terminal could obey: C0 but newline and tab, DEL, C1, the bidirectional controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('terminalSafe', () => {
  it.each([
    ['\u001b[2J\u001b[H', '\\u001b[2J\\u001b[H'],
    ['\u001b]0;pwned\u0007', '\\u001b]0;pwned\\u0007'],
    ['ok\rall checks passed', 'ok\\u000dall checks passed'],
    ['\u009b31m red', '\\u009b31m red'],
    ['abc\u202edcb', 'abc\\u202edcb'],
    ['back\bspace\u007f', 'back\\u0008space\\u007f'],
    ['two\nlines\tand a tab', 'two\nlines\tand a tab'],
    ['日本語 € ✓', '日本語 € ✓'],
  ])('%j → %j', (text, shown) => {
    expect(terminalSafe(text)).toBe(shown);
  });

  it('leaves no control character in any text, and text without one unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const safe = terminalSafe(text);
        expect(safe).not.toMatch(CONTROL);
        if (!CONTROL.test(text)) expect(safe).toBe(text);
      }),
    );
  });

  it('keeps JSON the same JSON (its escapes are JSON’s own)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
        const json = JSON.stringify({ value, text }, null, 2);
        expect(JSON.parse(terminalSafe(json))).toEqual(JSON.parse(json));
      }),
    );
  });
});

describe('terminalSafeLine', () => {
  it('escapes newline and tab too: a cell or a field stays on its line', () => {
    expect(terminalSafeLine('a\nb\tc\u001b')).toBe('a\\u000ab\\u0009c\\u001b');
  });
});

describe('printTable', () => {
  it('keeps each row on its line: a cell’s newline, tab and escape from outside are shown as escapes', async () => {
    const { printTable } = await import('../../src/cli/output.js');
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      printTable([{ id: 'a', message: 'BUY\nall checks passed\t\u001b[2J' }], ['id', 'message']);
    } finally {
      spy.mockRestore();
    }
    expect(written).toEqual(['ID  MESSAGE\n', 'a   BUY\\u000aall checks passed\\u0009\\u001b[2J\n']);
  });
});
