// What a count may carry right after it: a quantity (+12bps, 30 pips, 50 pkt) or a magnitude (7.5M, $2B).
import type { LanguageCode } from '../language-types.js';
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

const t = 'thousand' as const;
const m = 'million' as const;
const b = 'billion' as const;
const tr = 'trillion' as const;

/**
 * The magnitudes each language writes in its own letters after a count, spaced or not (2,3 Mio. €,
 * 1,5 mld zł, 12,5 млн, 3 mil, 2 Milliarden $): said in the language's word, with a currency after them
 * still said. Only in their language: "mil" is a thousand in Spanish and Portuguese, "bin" in Turkish.
 */
export const LOCAL_MAGNITUDES: Readonly<Partial<Record<LanguageCode, Readonly<Record<string, Magnitude>>>>> = {
  en: { mln: m, bln: b, million: m, millions: m, billion: b, billions: b, trillion: tr },
  de: {
    'Tsd.': t,
    Tsd: t,
    'Mio.': m,
    Mio: m,
    Million: m,
    Millionen: m,
    'Mrd.': b,
    Mrd: b,
    Milliarde: b,
    Milliarden: b,
    'Bio.': tr,
    Billion: tr,
    Billionen: tr,
  },
  fr: { M: m, Md: b, Mds: b, Mrd: b, 'Mrd.': b, million: m, millions: m, milliard: b, milliards: b },
  es: { mil: t, M: m, MM: m, millón: m, millones: m, 'mil millones': b, mM: b, billón: tr, billones: tr },
  it: { mila: t, mln: m, 'mln.': m, milione: m, milioni: m, mld: b, 'mld.': b, mrd: b, miliardo: b, miliardi: b },
  pt: { mil: t, mi: m, milhão: m, milhões: m, 'mil milhões': b, bi: b, bilhão: b, bilhões: b, tri: tr },
  nl: { mln: m, miljoen: m, mld: b, mrd: b, miljard: b, miljarden: b },
  pl: {
    'tys.': t,
    tys: t,
    mln: m,
    'mln.': m,
    milion: m,
    miliony: m,
    milionów: m,
    mld: b,
    'mld.': b,
    miliard: b,
    miliardy: b,
    miliardów: b,
    bln: tr,
  },
  tr: { bin: t, mn: m, milyon: m, mlr: b, milyar: b, trilyon: tr },
  ru: {
    'тыс.': t,
    тыс: t,
    'млн.': m,
    млн: m,
    миллион: m,
    миллиона: m,
    миллионов: m,
    'млрд.': b,
    млрд: b,
    миллиард: b,
    миллиарда: b,
    миллиардов: b,
    трлн: tr,
  },
};

/** The magnitudes a language writes after a count: its own and the platforms' (M, bn). */
export const localMagnitude = (code: LanguageCode | undefined, written: string): Magnitude | undefined =>
  MAGNITUDE_SUFFIXES[written] ?? (code === undefined ? undefined : LOCAL_MAGNITUDES[code]?.[written]);
