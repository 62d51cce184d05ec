// Kanji read aloud for espeak-ng's Japanese voice, which reads kana only (it says "Chinese letter"
// for a kanji). A dictionary (kuromoji's IPADIC, loaded by speech/japanese-reader.ts and handed in:
// core does no I/O) gives each word its reading in context; without it, the market words of a
// small built-in table are read and any other kanji is said as "かんじ", and noted.

/** A word of the text and its reading in katakana (undefined or "*" when the dictionary has none). */
export interface ReadingToken {
  surface: string;
  reading?: string | undefined;
}

/** Splits Japanese text into words with their readings: kuromoji's tokenizer, handed in. */
export type JapaneseReader = (text: string) => readonly ReadingToken[];

/** What the normalizer may be handed by the I/O side; each is optional and has a fallback. */
export interface SpeechAids {
  readJapanese?: JapaneseReader | undefined;
}

/** The kanji of a message: the run that espeak-ng cannot read. */
export const KANJI_RUN = /[\p{Script=Han}々〆ヶ]+/gu;
const HAS_KANJI = /[\p{Script=Han}々〆ヶ]/u;
const KANA_ONLY = /^[\u3041-\u309F\u30A0-\u30FFー]+$/u;

/** Katakana as hiragana (espeak-ng's ja voice reads both; hiragana keeps a reading apart from loanwords). */
export const toHiragana = (text: string): string =>
  text.replace(/[\u30A1-\u30F6]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x60));

/** What a kanji run is said as when neither the dictionary nor the table reads it. */
export const UNREAD_KANJI = 'かんじ';

/**
 * Market words written in kanji, read without the dictionary (a single executable or an image
 * without its files): the words of a Japanese alert a trader would miss most.
 */
export const KANJI_WORDS: Readonly<Record<string, string>> = {
  日経平均: 'にっけいへいきん',
  日経: 'にっけい',
  平均: 'へいきん',
  株価: 'かぶか',
  指数: 'しすう',
  先物: 'さきもの',
  為替: 'かわせ',
  円安: 'えんやす',
  円高: 'えんだか',
  ドル円: 'どるえん',
  円: 'えん',
  突破: 'とっぱ',
  超え: 'こえ',
  割れ: 'われ',
  上回る: 'うわまわる',
  下回る: 'したまわる',
  上抜け: 'うわぬけ',
  下抜け: 'したぬけ',
  上昇: 'じょうしょう',
  下落: 'げらく',
  急騰: 'きゅうとう',
  急落: 'きゅうらく',
  反発: 'はんぱつ',
  反落: 'はんらく',
  高値: 'たかね',
  安値: 'やすね',
  始値: 'はじめね',
  終値: 'おわりね',
  更新: 'こうしん',
  新高値: 'しんたかね',
  新安値: 'しんやすね',
  買い: 'かい',
  売り: 'うり',
  買: 'かい',
  売: 'うり',
  利確: 'りかく',
  利益確定: 'りえきかくてい',
  損切り: 'そんぎり',
  損切: 'そんぎり',
  逆指値: 'ぎゃくさしね',
  指値: 'さしね',
  成行: 'なりゆき',
  出来高: 'できだか',
  急増: 'きゅうぞう',
  価格: 'かかく',
  現在値: 'げんざいね',
  目標: 'もくひょう',
  到達: 'とうたつ',
  警告: 'けいこく',
  注意: 'ちゅうい',
  移動平均線: 'いどうへいきんせん',
  移動平均: 'いどうへいきん',
  支持線: 'しじせん',
  抵抗線: 'ていこうせん',
  時間足: 'じかんあし',
  分足: 'ふんあし',
  日足: 'ひあし',
  週足: 'しゅうあし',
  月足: 'つきあし',
  上: 'うえ',
  下: 'した',
};
const kanjiIn = (word: string) => word.match(KANJI_RUN)?.join('').length ?? 0;
/** A word of one kanji is read only where it stands alone (上 but not the 上 of 上場, which is said かんじ). */
const TABLE_WORDS = new RegExp(
  Object.keys(KANJI_WORDS)
    .sort((a, b) => b.length - a.length)
    .map((word) => (kanjiIn(word) === 1 ? `(?<![\\p{Script=Han}々])${word}(?![\\p{Script=Han}々])` : word))
    .join('|'),
  'gu',
);

/** The table's words of two letters or more, standing alone: inside a longer word (買い手) the dictionary reads it. */
const MARKET_PHRASES = new RegExp(
  `(?<![\\p{Script=Han}々])(?:${Object.keys(KANJI_WORDS)
    .filter((word) => word.length >= 2)
    .sort((a, b) => b.length - a.length)
    .join('|')})(?![\\p{Script=Han}々])`,
  'gu',
);

export interface KanjiRead {
  text: string;
  /** The kanji said as "かんじ": neither the dictionary nor the table had them. */
  unread: string[];
}

/** The text with every kanji word said by its reading in hiragana. */
export function readKanji(text: string, reader: JapaneseReader | undefined): KanjiRead {
  if (!HAS_KANJI.test(text)) return { text, unread: [] };
  const unread: string[] = [];
  if (!reader) return { text: byTable(text, unread), unread };
  // The market words of two letters or more are read as traders say them (上抜け うわぬけ, 利確 りかく),
  // where the dictionary would read each kanji alone; the rest goes to the dictionary, in context.
  let said = '';
  for (const token of reader(text.replace(MARKET_PHRASES, (word) => KANJI_WORDS[word]!))) {
    if (!HAS_KANJI.test(token.surface)) said += token.surface;
    else if (token.reading && KANA_ONLY.test(token.reading)) said += toHiragana(token.reading);
    else said += byTable(token.surface, unread);
  }
  return { text: said, unread };
}

/** Kanji read by the table, longest word first (with its kana ending: 損切り); any other run is said "かんじ" and noted. */
function byTable(text: string, unread: string[]): string {
  return text
    .replace(TABLE_WORDS, (word) => ` ${KANJI_WORDS[word]} `)
    .replace(KANJI_RUN, (run) => {
      unread.push(run);
      return ` ${UNREAD_KANJI} `;
    });
}
