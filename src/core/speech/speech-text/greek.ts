// Greek letters traders write (-3σ, Δ OI, β 1.2, α): said as the letters' names in the call's
// language, where the voice would say "text in another script" or nothing.
import type { LanguageCode } from '../language-types.js';

type Letter = 'alpha' | 'beta' | 'gamma' | 'delta' | 'theta' | 'sigma' | 'mu' | 'pi' | 'rho';

export const GREEK: Readonly<Record<string, Letter>> = {
  α: 'alpha',
  β: 'beta',
  γ: 'gamma',
  Δ: 'delta',
  δ: 'delta',
  θ: 'theta',
  σ: 'sigma',
  Σ: 'sigma',
  μ: 'mu',
  π: 'pi',
  ρ: 'rho',
};

const LATIN = (alpha: string, gamma: string, theta: string): Record<Letter, string> => ({
  alpha,
  beta: 'beta',
  gamma,
  delta: 'delta',
  theta,
  sigma: 'sigma',
  mu: 'mu',
  pi: 'pi',
  rho: 'rho',
});

const NAMES: Readonly<Record<LanguageCode, Record<Letter, string>>> = {
  en: LATIN('alpha', 'gamma', 'theta'),
  de: LATIN('Alpha', 'Gamma', 'Theta'),
  fr: LATIN('alpha', 'gamma', 'thêta'),
  es: LATIN('alfa', 'gamma', 'theta'),
  it: LATIN('alfa', 'gamma', 'theta'),
  pt: LATIN('alfa', 'gama', 'teta'),
  nl: LATIN('alfa', 'gamma', 'theta'),
  pl: LATIN('alfa', 'gamma', 'theta'),
  tr: LATIN('alfa', 'gama', 'teta'),
  ru: {
    alpha: 'альфа',
    beta: 'бета',
    gamma: 'гамма',
    delta: 'дельта',
    theta: 'тета',
    sigma: 'сигма',
    mu: 'мю',
    pi: 'пи',
    rho: 'ро',
  },
  ja: {
    alpha: 'アルファ',
    beta: 'ベータ',
    gamma: 'ガンマ',
    delta: 'デルタ',
    theta: 'シータ',
    sigma: 'シグマ',
    mu: 'ミュー',
    pi: 'パイ',
    rho: 'ロー',
  },
  zh: {
    alpha: '阿尔法',
    beta: '贝塔',
    gamma: '伽马',
    delta: '德尔塔',
    theta: '西塔',
    sigma: '西格玛',
    mu: '缪',
    pi: '派',
    rho: '柔',
  },
  ko: {
    alpha: '알파',
    beta: '베타',
    gamma: '감마',
    delta: '델타',
    theta: '세타',
    sigma: '시그마',
    mu: '뮤',
    pi: '파이',
    rho: '로',
  },
};

export const GREEK_LETTERS = `[${Object.keys(GREEK).join('')}]`;

/** A Greek letter's name in a language (English where the language is not known). */
export const sayGreek = (letter: string, code: string | undefined): string =>
  (NAMES[code as LanguageCode] ?? NAMES.en)[GREEK[letter]!];
