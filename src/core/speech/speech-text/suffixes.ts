// What a count may carry right after it: a quantity (+12bps, 30 pips, 50 pkt) or a magnitude (7.5M, $2B).
import type { Magnitude, Quantity } from './words.js';

/** Quantities after a count, attached or not: +12bps, 30 pips, 15pts. */
export const QUANTITIES: Readonly<Record<string, Quantity>> = {
  bps: 'basisPoint',
  bp: 'basisPoint',
  pips: 'pip',
  pip: 'pip',
  pts: 'point',
  pt: 'point',
  // Polish punkt(y), German Punkt(e), Russian пункт(ов): the language's own abbreviations.
  pkt: 'point',
  Pkt: 'point',
  Pkte: 'point',
  'п.': 'point',
  пп: 'point',
  points: 'point',
  point: 'point',
};

export const MAGNITUDE_SUFFIXES: Readonly<Record<string, Magnitude>> = {
  k: 'thousand',
  K: 'thousand',
  m: 'million',
  M: 'million',
  mm: 'million',
  MM: 'million',
  mln: 'million',
  B: 'billion',
  b: 'billion',
  bn: 'billion',
  Bn: 'billion',
  BN: 'billion',
  T: 'trillion',
  tn: 'trillion',
};
