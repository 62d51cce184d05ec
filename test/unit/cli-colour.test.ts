// `--help` is coloured only on a terminal, and never with NO_COLOR (no-color.org): a pipe, a file or
// a log gets plain text (#38).
import { describe, expect, it } from 'vitest';
import { wantsColour } from '../../src/main.js';

describe('colour in the CLI help', () => {
  it('on a terminal only, unless NO_COLOR is set to anything or the terminal is dumb', () => {
    expect(wantsColour({ isTTY: true }, {})).toBe(true);
    expect(wantsColour({ isTTY: false }, {})).toBe(false);
    expect(wantsColour({}, {})).toBe(false);
    expect(wantsColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour({ isTTY: true }, { NO_COLOR: 'yes' })).toBe(false);
    expect(wantsColour({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    // An empty NO_COLOR is not set (no-color.org).
    expect(wantsColour({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
  });
});
