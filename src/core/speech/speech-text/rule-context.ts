// What a rule of the normalizer is (speech-text/rules.ts) and what it can see of the message
// around its match.

export interface RuleContext {
  text: string;
  index: number;
  /** Is the position in a sentence written all in capitals? */
  inCapitals(index: number): boolean;
  /** The normalizer itself, for names that are read like a message (an index's, a placeholder's). */
  say(text: string): string;
}

export interface Rule {
  name: string;
  /** The languages the rule is for (built into theirs only); every language when absent. */
  languages?: readonly string[];
  pattern: RegExp;
  /** What to say instead of the match ('' to drop it), or undefined to let the next rules try. */
  speak(match: RegExpExecArray, ctx: RuleContext): string | undefined;
}

export const NOT_AFTER_WORD = '(?<![\\p{L}\\p{N}_])';
export const NOT_BEFORE_WORD = '(?![\\p{L}\\p{N}_])';

export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
export const byLengthDesc = (a: string, b: string) => b.length - a.length;

/** The words of the same sentence before a position (a magnitude's or an indicator's context). */
export function before(ctx: RuleContext, chars: number): string {
  const start = Math.max(0, ctx.index - chars);
  return ctx.text
    .slice(start, ctx.index)
    .split(/[.!?|\n]\s/)
    .pop()!;
}
export const after = (ctx: RuleContext, end: number, chars: number) =>
  ctx.text.slice(end, end + chars).split(/[.!?|\n]/)[0]!;
