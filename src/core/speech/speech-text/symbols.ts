// The symbols an alert writes that are said as words (>, @, ↑, ▲ …), in the call's language.
import type { SymbolWord } from './words.js';

/** Symbols said as words, longest first where one begins another. */
export const SYMBOLS: ReadonlyArray<readonly [string, SymbolWord]> = [
  ['>=', 'atOrAbove'],
  ['≥', 'atOrAbove'],
  ['<=', 'atOrBelow'],
  ['≤', 'atOrBelow'],
  ['->', 'to'],
  ['=>', 'to'],
  ['→', 'to'],
  ['>', 'above'],
  ['<', 'below'],
  ['@', 'at'],
  ['&', 'and'],
  ['↑', 'up'],
  ['↓', 'down'],
  ['▲', 'up'],
  ['▼', 'down'],
  ['△', 'up'],
  ['▽', 'down'],
  ['≈', 'about'],
  ['~', 'about'],
];
