// citty reads the options a command declares and drops the rest without a word: a misspelled option
// (--sms-bakup) or one the command does not have (account delete --dry-run) would be ignored and the
// command run as if it had not been given, and an argument too many (a second user_id, a password
// after --password) silently unused. The command line is checked against the command's declared
// arguments before it runs: anything else is a usage error, and nothing is done. Pure.
import type { ArgDef, ArgsDef, CommandDef } from 'citty';

type AnyCommand = CommandDef<ArgsDef>;

/** The command argv names (its subcommands followed, by `names`) and the arguments left for it. */
export function commandNamed(
  root: AnyCommand,
  argv: readonly string[],
): { command: AnyCommand; names: string[]; rest: string[] } {
  let command = root;
  let rest = [...argv];
  const names: string[] = [];
  for (;;) {
    const subCommands = command.subCommands;
    const at = rest.findIndex((token) => !token.startsWith('-'));
    const next =
      at >= 0 && subCommands && typeof subCommands === 'object'
        ? (subCommands as Record<string, unknown>)[rest[at]!]
        : undefined;
    // Commands given as functions or promises are not looked into (ringhook's are plain objects).
    if (!next || typeof next !== 'object' || next instanceof Promise) return { command, names, rest };
    names.push(rest[at]!);
    command = next as AnyCommand;
    rest = [...rest.slice(0, at), ...rest.slice(at + 1)];
  }
}

/** What is wrong with `rest` as the arguments of a command declaring `args`; undefined when nothing is. */
export function argumentsProblem(args: ArgsDef, rest: readonly string[]): string | undefined {
  const options = new Map<string, ArgDef>();
  let positionals = 0;
  for (const [name, def] of Object.entries(args)) {
    if (def.type === 'positional') {
      positionals++;
      continue;
    }
    // citty also takes the camelCase spelling of a kebab-case option (--sms-backup, --smsBackup).
    for (const alias of [name, camelCase(name), 'alias' in def ? (def.alias ?? []) : []].flat())
      options.set(alias, def);
  }
  /** An option token read once: its spelling as given, its value after `=`, and its definition (none: unknown). */
  const readOption = (token: string) => {
    const dashes = token.startsWith('--') ? '--' : '-';
    const [name = '', value] = splitOnce(token.slice(dashes.length), '=');
    const negated = dashes === '--' && name.startsWith('no-') ? options.get(name.slice(3)) : undefined;
    const def =
      dashes === '-' && name.length !== 1
        ? undefined
        : (options.get(name) ?? (negated?.type === 'boolean' ? negated : undefined));
    return { flag: `${dashes}${name}`, value, def };
  };
  const given: string[] = [];
  let lastFlag: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]!;
    if (token === '--') {
      const after = rest.slice(i + 1);
      if (given.length + after.length > positionals)
        return `unexpected argument "${after[positionals - given.length]}"`;
      break;
    }
    if (!token.startsWith('-') || token === '-') {
      given.push(token);
      if (given.length > positionals) {
        const after = lastFlag && rest[i - 1] === lastFlag ? ` (${lastFlag} takes no value)` : '';
        return `unexpected argument "${token}"${after}`;
      }
      continue;
    }
    const { flag, value, def } = readOption(token);
    if (!def) {
      const near = closest(flag.replace(/^-+/, ''), longOptions(args));
      return `unknown option ${flag}${near ? ` (did you mean --${near}?)` : ''}`;
    }
    lastFlag = undefined;
    if (def.type === 'boolean') {
      if (value !== undefined) return `${flag} takes no value`;
      lastFlag = flag;
    } else if (value === undefined) {
      // citty takes the next token as the value whatever it is (`--phone --plan free` would call
      // "--plan"), and gives '' to one with nothing after it (`--name` last would clear the name).
      const next = rest[i + 1];
      if (next === undefined || (next.startsWith('-') && readOption(next).def))
        return `${flag} needs a value (${flag}=VALUE for one that starts with -)`;
      i++;
    }
  }
  return undefined;
}

/** The options a command declares, as its --help spells them. */
function longOptions(args: ArgsDef): string[] {
  return Object.entries(args)
    .filter(([, def]) => def.type !== 'positional')
    .map(([name]) => name);
}

/** Edits (insert, delete, change, swap two neighbours) that make `a` into `b`. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const change = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + change);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  return d[a.length]![b.length]!;
}

/**
 * The one of `names` that `typed` most likely meant: a few edits away (a third of its length, at
 * least one), or the only name it begins; undefined when none is near or two are equally near.
 */
export function closest(typed: string, names: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  if (word.length === 0) return undefined;
  const begun = names.filter((name) => word.length >= 3 && name.startsWith(word));
  if (begun.length === 1) return begun[0];
  const limit = Math.max(1, Math.floor(word.length / 3));
  const near = names
    .map((name) => ({ name, distance: editDistance(word, name) }))
    .filter(({ distance }) => distance <= limit)
    .sort((x, y) => x.distance - y.distance);
  if (near.length === 0 || (near.length > 1 && near[1]!.distance === near[0]!.distance)) return undefined;
  return near[0]!.name;
}

function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
