// Russian numbers said in words (decimals, millions) are written in the nominative; after на, за, в,
// через and про (a change by, a time within) the accusative is said, and of the words the normalizer
// writes only the feminine singular ones change: "на одна целая две десятых" → "на одну целую две
// десятых", "на ноль целых одна десятая" → "одну десятую". Other cases (до, от, выше: the genitive)
// are left as they are.

const NUMBER_WORD =
  /^(?:ноль|одна|один|два|две|три|четыре|пять|шесть|семь|восемь|девять|десять|одиннадцать|двенадцать|тринадцать|четырнадцать|пятнадцать|шестнадцать|семнадцать|восемнадцать|девятнадцать|двадцать|тридцать|сорок|пятьдесят|шестьдесят|семьдесят|восемьдесят|девяносто|сто|двести|триста|четыреста|пятьсот|шестьсот|семьсот|восемьсот|девятьсот|тысяча|тысячи|тысяч|миллион\p{L}*|миллиард\p{L}*|целая|целых|\p{L}*(?:десят|сот|тысячн|миллионн)(?:ая|ых))$/u;

const ACCUSATIVE: Readonly<Record<string, string>> = { одна: 'одну', целая: 'целую', тысяча: 'тысячу' };

/** The words of a number after a preposition that asks the accusative, in that case. */
export function russianAccusative(text: string): string {
  const words = text.split(' ');
  let governed = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (/^(?:на|за|в|во|через|про)$/i.test(word)) {
      governed = true;
      continue;
    }
    if (!governed) continue;
    if (!NUMBER_WORD.test(word)) {
      governed = false;
      continue;
    }
    words[i] = ACCUSATIVE[word] ?? word.replace(/(?<=(?:десят|сот|тысячн|миллионн))ая$/u, 'ую');
  }
  return words.join(' ');
}
