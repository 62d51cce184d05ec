// What is done to a message before and after the rules: direction emoji said or dropped, other
// emoji and URLs dropped, full-width forms made plain; then any symbol an engine would read aloud
// ("bar", "slash", "hash", "equals", "caret") taken out, and the spacing tidied.

// Emoji, their modifiers, joiners, flags and keycaps; arrows like ↑ are not emoji and are said.
// biome-ignore lint/suspicious/noMisleadingCharacterClass: each code point is dropped on its own, joiners and modifiers included
const EMOJI = /[\p{Extended_Pictographic}\u{1F1E6}-\u{1F1FF}\u{1F3FB}-\u{1F3FF}\uFE0E\uFE0F\u200D\u20E3]/gu;
const URL = /\b(?:https?:\/\/|www\.)[^\s<>"']+/giu;

/** Direction emoji and the text arrow each is said as. */
const DIRECTION_EMOJI: Readonly<Record<string, string>> = {
  '⬆': '↑',
  '⬇': '↓',
  '➡': '→',
  '↗': '↑',
  '↘': '↓',
  '⤴': '↑',
  '⤵': '↓',
  '🔼': '↑',
  '🔽': '↓',
  '⏫': '↑',
  '⏬': '↓',
  '🔺': '↑',
  '🔻': '↓',
  '📈': '↑',
  '📉': '↓',
};
const DIRECTION = new RegExp(`(${Object.keys(DIRECTION_EMOJI).join('|')})\\uFE0F?`, 'gu');
/** A number just before or after: the arrow then carries meaning ("100 ➡️ 110", "📈 +5%"). */
const NUMBER_BEFORE = /[\p{N}%]\s*$/u;
const NUMBER_AFTER = /^\s*[+\-\u2212$€£¥]?\d/u;

/** A direction emoji next to a number is said like its text arrow; anywhere else it decorates and is dropped. */
function sayDirections(text: string): string {
  return text.replace(DIRECTION, (emoji, base: string, offset: number) => {
    const near =
      NUMBER_BEFORE.test(text.slice(Math.max(0, offset - 12), offset)) ||
      NUMBER_AFTER.test(text.slice(offset + emoji.length, offset + emoji.length + 12));
    return near ? ` ${DIRECTION_EMOJI[base]} ` : ' ';
  });
}

/** Full-width letters, digits and signs (Ｂ Ｔ Ｃ ２．３５％, as Japanese and Chinese keyboards type them) as plain ones. */
const plainWidth = (text: string) =>
  text.replace(/[\uFF01-\uFF5E]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replace(/\u3000/g, ' ');

export function beforeRules(message: string): string {
  return sayDirections(plainWidth(message)).replace(URL, ' ').replace(EMOJI, ' ');
}

/** Symbols that reach no engine as words: field separators become pauses, the rest is dropped. */
export function withoutSymbols(text: string, words: { and: string; at: string }): string {
  return text
    .replace(/[|¦│\\/]/g, ', ')
    .replace(/(^|\s)[-–](?=\s|$)/g, '$1, ')
    .replace(/&/g, ` ${words.and} `)
    .replace(/@/g, ` ${words.at} `)
    .replace(/[#=^*~_`{}<>"+$€£¥%\u2212]/g, ' ');
}

export function tidy(text: string): string {
  return (
    text
      .replace(/[\s\u00A0\u202F]+/g, ' ')
      // "ten -year", "D A X -Future": a hyphen left before a word once the word before it was said.
      .replace(/ -(?=\p{L})/gu, ' ')
      // "Nasdaq- 100": a hyphen left after a word once the number after it was said.
      .replace(/(?<=\p{L})- (?=[\p{L}\p{N}])/gu, ' ')
      // L'EUR/USD, dell'ETF: an elided article stays on the word the rules said after it ("L' E U R" reads "el").
      .replace(/(?<=(?:^|\s)\p{L}{1,5})['’] (?=\p{L})/gu, "'")
      .replace(/ ([,.;:!?)\]}])/g, '$1')
      .replace(/([([{]) /g, '$1')
      .replace(/[,:;](?:\s*[,:;])+/g, ',')
      .replace(/^[\s,:;]+|[\s,:;]+$/g, '')
  );
}
