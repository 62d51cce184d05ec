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
    if (!def) return `unknown option ${flag}`;
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

function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
