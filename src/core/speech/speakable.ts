// Rewrites an alert's message into text a speech engine reads the way a trader would say it:
// tickers spelled, numbers written out, timeframes, dates, ratios, symbols and UTC times in words,
// no symbol left for an engine to read aloud. Applied only to what is spoken; the history and the
// SMS keep the message as sent. Pure and deterministic.
//
// A scanner walks the text; at each position the rules (speech-text/rules.ts) are tried in order,
// and the first that matches (and does not decline) replaces what it matched. Text no rule
// matches is kept, then cleaned of symbols (speech-text/cleanup.ts).
import { english } from './number-words.js';
import { beforeRules, tidy, withoutSymbols } from './speech-text/cleanup.js';
import { buildRulesSteps, type Rule, type RuleContext } from './speech-text/rules.js';
import { readKanji, type SpeechAids } from './speech-text/kanji.js';
import { otherScriptRuns } from './speech-text/scripts.js';
import { joinTurkishEndings } from './speech-text/turkish-suffixes.js';
import { russianAccusative } from './speech-text/russian-case.js';
import { type SpeechLanguage, type SpeechWords, wordsOf } from './speech-text/words.js';

export type { JapaneseReader, ReadingToken, SpeechAids } from './speech-text/kanji.js';

export { sayNumber } from './speech-text/numbers.js';
export { saySymbol } from './speech-text/tickers.js';
export { sayTime24 } from './speech-text/times.js';
export { CAPS_WORDS, EXCHANGES, INDICATORS, QUOTE_CURRENCIES } from './speech-text/vocabulary.js';
export { SYMBOLS, TIMEFRAMES } from './speech-text/rules.js';
export { ZERO_RUN } from './number-words.js';
export {
  type CurrencySymbol,
  ENGLISH_WORDS,
  type Forms,
  type Magnitude,
  type SpeechLanguage,
  type SpeechWords,
  type SymbolWord,
  same,
  type TimeUnit,
} from './speech-text/words.js';

const rulesByLanguage = new WeakMap<SpeechLanguage, Rule[]>();

function rulesFor(lang: SpeechLanguage): Rule[] {
  let rules = rulesByLanguage.get(lang);
  if (!rules) {
    rules = atOnce(buildRulesSteps(lang));
    rulesByLanguage.set(lang, rules);
  }
  return rules;
}

/** What the steps make, all taken in this turn. */
function atOnce<T>(steps: Generator<void, T, void>): T {
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/** Rules whose patterns have been run (compiled): a language's are compiled on its first text. */
const compiled = new WeakSet<Rule>();
const COMPILED_A_STEP = 8;

/**
 * The first text of a language in a process builds its rules (~20 ms of CPU) and compiles their
 * patterns as it meets them (~40 ms): a caller in the event loop that may let other work run
 * between steps (a held batch's call: #51) has it done here first, a yield before each group of
 * rules and after every few patterns. Nothing to do once done.
 */
export function* speakableReadySteps(lang: SpeechLanguage): Generator<void, void, void> {
  if (!rulesByLanguage.has(lang)) {
    // Built in steps of their own, the first not in the caller's turn; kept unless built meanwhile.
    const built = yield* buildRulesSteps(lang);
    if (!rulesByLanguage.has(lang)) rulesByLanguage.set(lang, built);
    yield;
  }
  const rules = rulesFor(lang);
  let done = 0;
  for (const rule of rules) {
    if (compiled.has(rule)) continue;
    // V8 interprets a pattern's first run and compiles it to machine code at the next.
    for (let run = 0; run < 2; run++) {
      rule.pattern.lastIndex = 0;
      rule.pattern.exec('a 1');
    }
    compiled.add(rule);
    if (++done % COMPILED_A_STEP === 0) yield;
  }
}

/** The sentences written all in capitals (two words or more, no small letter) and runs of three words in capitals: there, words in capitals are words. */
function capitalSentences(text: string): (index: number) => boolean {
  const spans: Array<[number, number]> = [];
  const sentence = /[^!?\n|]+?(?:\.(?=\s|$)|[!?\n|]|$)/gy;
  for (let m = sentence.exec(text); m && m[0] !== ''; m = sentence.exec(text)) {
    const words = m[0].match(/[A-Za-z]{2,}/g) ?? [];
    // Not where small letters, or letters of a script without capitals (kana, Han, Hangul), are written.
    if (words.length >= 2 && !/[\p{Ll}\p{Lo}]/u.test(m[0])) spans.push([m.index, m.index + m[0].length]);
  }
  // Three words in capitals in a row are a phrase in capitals, whatever is around it.
  for (const run of text.matchAll(/\b[A-Z]{2,}(?:[ ,]+[A-Z]{2,}\b){2,}/g))
    spans.push([run.index, run.index + run[0].length]);
  return (index) => spans.some(([start, end]) => index >= start && index < end);
}

const IN_WORD = /[\p{L}\p{N}_]/u;
/** Scripts written without spaces between words (Japanese, Chinese) or with particles on them (Korean): a rule may start at any character. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々]/u;
const WORD_REST = /(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々])[\p{L}\p{N}_])+/uy;

/** The message as it should be spoken. Never empty for a non-empty message. */
export function speakable(message: string, lang: SpeechLanguage = english, aids: SpeechAids = {}): string {
  return speakableNoted(message, lang, aids).text;
}

/** What is spoken, and what the call's history should note about it (words the voice could not read, and how they were said). */
export interface SpokenText {
  text: string;
  notes: string[];
}

export function speakableNoted(message: string, lang: SpeechLanguage = english, aids: SpeechAids = {}): SpokenText {
  const notes: string[] = [];
  const text = speakableText(message, lang, aids, notes);
  return { text, notes };
}

function speakableText(message: string, lang: SpeechLanguage, aids: SpeechAids, notes: string[]): string {
  const rules = rulesFor(lang);
  const text = beforeRules(message);
  const ctx: RuleContext = {
    text,
    index: 0,
    inCapitals: capitalSentences(text),
    say: (part) => speakableText(part, lang, aids, notes),
  };
  let out = '';
  let i = 0;
  scan: while (i < text.length) {
    // Inside a word no rule can start (each needs the start of a word, a digit run or a mark): copied at once.
    if (i > 0 && IN_WORD.test(text[i - 1]!) && !CJK.test(text[i - 1]!)) {
      WORD_REST.lastIndex = i;
      const rest = WORD_REST.exec(text);
      if (rest) {
        out += rest[0];
        i += rest[0].length;
        continue;
      }
    }
    ctx.index = i;
    for (const rule of rules) {
      rule.pattern.lastIndex = i;
      const match = rule.pattern.exec(text);
      if (!match || match[0] === '') continue;
      const said = rule.speak(match, ctx);
      if (said === undefined) continue;
      out += ` ${said} `;
      i += match[0].length;
      continue scan;
    }
    const char = String.fromCodePoint(text.codePointAt(i)!);
    out += char;
    i += char.length;
  }
  const w = wordsOf(lang);
  if (w.readsKanji) {
    const read = readKanji(out, aids.readJapanese);
    out = read.text;
    if (read.unread.length > 0) {
      const how = aids.readJapanese ? 'not in the dictionary' : 'the Japanese dictionary was not loaded';
      notes.push(`kanji said as "かんじ" (${how}): ${read.unread.join(' ')}`);
    }
  }
  const readable = (said: string) =>
    otherScripts(w.unreadable ? said.replace(w.unreadable.pattern, ' ') : said, w, notes);
  const tidied = tidy(readable(withoutSymbols(out, w.symbols)));
  const spoken =
    lang.code === 'tr' ? joinTurkishEndings(tidied) : lang.code === 'ru' ? russianAccusative(tidied) : tidied;
  if (spoken !== '') return spoken;
  // Nothing a word: the message as sent rather than silence (emoji only, a lone URL), but never what the engine cannot read.
  const asSent = message.trim() || message;
  return w.unreadable && tidy(readable(asSent)) !== asSent.trim()
    ? tidy(readable(asSent)) || w.unreadable.instead
    : asSent;
}

/** Letters of a script the voice cannot read: said as the language's words for it, and noted, never dropped unheard. */
function otherScripts(text: string, w: SpeechWords, notes: string[]): string {
  if (!w.scripts) return text;
  const { otherScript } = w.scripts;
  const runs = otherScriptRuns(w.scripts);
  const found: string[] = [];
  const said = text.replace(runs, (run) => {
    found.push(run);
    return ` ${otherScript} `;
  });
  if (found.length > 0) {
    const note = `text in a script the voice cannot read said as "${otherScript}": ${found.join(' ')}`;
    if (!notes.includes(note)) notes.push(note);
  }
  return said;
}
