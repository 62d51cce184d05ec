// Turkish writes a case ending after a sign, a code or a number with an apostrophe: 100.000 $'ı
// aştı, 285,50 TL'yi kırdı, saat 14:30'da. Once the sign is said as its word ("dolar"), the ending
// belongs on that word, in its vowel harmony: "doları", "lirayı", "dolardan"; after digits (which
// espeak-ng reads itself) it stays on them, with no pause between.

const BACK = /[aıou]/;
const VOWELS = /[aeıioöuü]/g;

/** The last vowel of a word, for the harmony of the ending after it. */
const lastVowel = (word: string): string | undefined => word.toLocaleLowerCase('tr').match(VOWELS)?.pop();

/** An ending's vowels in the harmony of the word it follows: four-fold (ı i u ü) and two-fold (a e). */
export function harmonize(word: string, ending: string): string {
  const last = lastVowel(word);
  if (last === undefined) return ending;
  const back = BACK.test(last);
  const rounded = /[ouöü]/.test(last);
  const four = back ? (rounded ? 'u' : 'ı') : rounded ? 'ü' : 'i';
  return ending.replace(/[ıiuü]/g, four).replace(/[ae]/g, back ? 'a' : 'e');
}

/** "dolar 'ı" → "doları", "70 'in" → "70'in": the endings the normalizer's spacing left apart, joined again. */
export function joinTurkishEndings(text: string): string {
  return text
    .replace(/(\p{L}+) '(\p{Ll}{1,6})(?!\p{L})/gu, (_, word: string, ending: string) => word + harmonize(word, ending))
    .replace(/(\p{N}) '(\p{Ll}{1,6})(?!\p{L})/gu, "$1'$2");
}
