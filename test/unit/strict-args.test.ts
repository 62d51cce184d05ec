// The command line checked against a command's declared arguments (src/cli/strict-args.ts).
import { defineCommand } from 'citty';
import { describe, expect, it } from 'vitest';
import { argumentsProblem, commandNamed } from '../../src/cli/strict-args.js';

const args = {
  user_id: { type: 'positional', required: true },
  plan: { type: 'string' },
  json: { type: 'boolean' },
  limit: { type: 'string', alias: 'n' },
  'sms-backup': { type: 'string' },
} as const;

describe('argumentsProblem', () => {
  it.each([
    [['abc']],
    [['abc', '--plan', 'free', '--json']],
    [['--plan=free', 'abc']],
    [['abc', '--no-json']],
    [['abc', '-n', '5']],
    [['--', '-abc']],
    [['abc', '--plan', '-starts-with-a-dash']],
    [['abc', '--plan', '']],
    [['abc', '--smsBackup', 'on', '--sms-backup=off']],
  ])('takes %j', (rest) => {
    expect(argumentsProblem(args, rest)).toBeUndefined();
  });

  it.each([
    [['abc', '--plam', 'free'], 'unknown option --plam (did you mean --plan?)'],
    [['abc', '-x'], 'unknown option -x'],
    [['abc', 'def'], 'unexpected argument "def"'],
    [['abc', '--json', 'yes'], 'unexpected argument "yes" (--json takes no value)'],
    [['abc', '--json=yes'], '--json takes no value'],
    [['abc', '--plan', '--json'], '--plan needs a value (--plan=VALUE for one that starts with -)'],
    [['abc', '--plan'], '--plan needs a value (--plan=VALUE for one that starts with -)'],
    [['--no-plan', 'abc'], 'unknown option --no-plan'],
    [['abc', '--', 'def'], 'unexpected argument "def"'],
  ])('refuses %j: %s', (rest, problem) => {
    expect(argumentsProblem(args, rest)).toBe(problem);
  });
});

describe('commandNamed', () => {
  const leaf = defineCommand({ meta: { name: 'set' }, args: { json: { type: 'boolean' } } });
  const root = defineCommand({ subCommands: { account: defineCommand({ subCommands: { set: leaf } }) } });

  it('follows the subcommands and leaves the rest', () => {
    expect(commandNamed(root, ['account', 'set', 'abc', '--json'])).toEqual({
      command: leaf,
      names: ['account', 'set'],
      rest: ['abc', '--json'],
    });
  });

  it('stops at a name that is not a subcommand', () => {
    expect(commandNamed(root, ['account', 'frob']).names).toEqual(['account']);
  });
});
