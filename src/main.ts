// The CLI entry: ringhook serve | account | calls | db | …. Errors are one clear line and a non-zero exit.
import { defineCommand, renderUsage, runCommand, runMain as runCitty, type CommandDef } from 'citty';
import { helpDataDirLine } from './cli/data-dir.js';
import { UsageError, UserError } from './lib/errors.js';
import { argumentsProblem, closest, commandNamed } from './cli/strict-args.js';
import { COMMAND_DESCRIPTIONS, type CommandName } from './cli/commands.js';
import { VERSION } from './lib/version.js';
import { guardTerminalOutput } from './cli/terminal-guard.js';

// biome-ignore lint/suspicious/noExplicitAny: citty's own type for a command of any arguments
type AnyCommand = CommandDef<any>;

/**
 * Each command's module, imported only when the command line names it: serve's pulls the whole
 * service (HTTPS, the PBX client, the speech) and costs most of a second of CPU, which `--help`,
 * `account list` or `calls` have no use for.
 */
const COMMAND_MODULES: Record<CommandName, () => Promise<AnyCommand>> = {
  serve: async () => (await import('./cli/serve.js')).serveCommand,
  account: async () => (await import('./cli/account.js')).accountCommand,
  calls: async () => (await import('./cli/calls.js')).callsCommand,
  'test-call': async () => (await import('./cli/test-call.js')).testCallCommand,
  'sms-test': async () => (await import('./cli/sms-test.js')).smsTestCommand,
  callbacks: async () => (await import('./cli/callbacks.js')).callbacksCommand,
  doctor: async () => (await import('./cli/doctor.js')).doctorCommand,
  backup: async () => (await import('./cli/backup.js')).backupCommand,
  db: async () => (await import('./cli/db-copy.js')).dbCommand,
  provision: async () => (await import('./cli/provision.js')).provisionCommand,
  say: async () => (await import('./cli/say.js')).sayCommand,
  'install-cli': async () => (await import('./cli/install-cli.js')).installCliCommand,
};

const ROOT_META = {
  name: 'ringhook',
  version: VERSION,
  description: 'Turns trading alerts (webhooks) into phone calls, with SMS backup',
};

/**
 * The root command for this command line: the command it names is loaded, every other one is its
 * name and description only (all that the root's --help and an unknown command's error list).
 * citty's own lazy subcommands would not do: its usage and its search for an unknown name load
 * every one of them.
 */
export async function rootCommandFor(argv: readonly string[]): Promise<AnyCommand> {
  const listed = Object.fromEntries(
    Object.entries(COMMAND_DESCRIPTIONS).map(([name, description]) => [
      name,
      defineCommand({ meta: { name, description } }),
    ]),
  );
  const named = commandNamed(defineCommand({ subCommands: listed }), argv).names[0] as CommandName | undefined;
  if (named) {
    if (named !== 'serve') await import('./cli/zod-once.js');
    listed[named] = await COMMAND_MODULES[named]();
  }
  return defineCommand({ meta: ROOT_META, subCommands: listed });
}

const stripAnsi = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');

/** Colour only on a terminal, and never when NO_COLOR is set (no-color.org: any non-empty value). */
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
}

async function printUsage(cmd: AnyCommand, parent?: AnyCommand): Promise<void> {
  const usage = await renderUsage(cmd, parent);
  process.stdout.write(`${wantsColour(process.stdout) ? usage : stripAnsi(usage)}\n`);
}

function isCittyUsageError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && error.name === 'CLIError';
}

/** A command line its command cannot take is refused before anything runs (strict-args.ts). */
function checkArguments(rootCommand: AnyCommand, argv: readonly string[]): void {
  const { command, rest } = commandNamed(rootCommand, argv);
  if (command.subCommands) {
    // A word left where a command is expected is not one of them (commandNamed followed every
    // known one): named with the nearest, if one is. None left: citty shows the usage.
    const unknown = rest.find((token) => !token.startsWith('-'));
    if (unknown === undefined) return;
    const near = closest(unknown, Object.keys(command.subCommands as Record<string, unknown>));
    throw new UsageError(`Unknown command ${unknown}${near ? ` (did you mean ${near}?)` : ''}`);
  }
  const args = command.args;
  const problem =
    args && typeof args === 'object' && !(args instanceof Promise) ? argumentsProblem(args, rest) : undefined;
  if (problem) throw new UsageError(problem);
}

/** "account set " for `account set <id> …`: the command whose --help says what it takes. */
function commandPath(rootCommand: AnyCommand, argv: readonly string[]): string {
  const { names } = commandNamed(rootCommand, argv);
  return names.length > 0 ? `${names.join(' ')} ` : '';
}

export async function runMain(argv: string[]): Promise<void> {
  // `ringhook calls | head`: the reader went away; that is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const wantsHelp = argv.includes('--help') || argv.includes('-h') || argv.length === 0;
  const wantsVersion = argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v');
  const rootCommand = await rootCommandFor(argv);
  if (wantsHelp || wantsVersion) {
    // citty prints the usage of the (sub)command named in argv, or the version, and exits 0.
    await runCitty(rootCommand, {
      rawArgs: argv.length === 0 ? ['--help'] : argv,
      // The usage (coloured only on a terminal), then which data dir the command would open (and why that one).
      showUsage: async (command, parent) => {
        await printUsage(command, parent);
        const line = helpDataDirLine(commandNamed(rootCommand, argv).names);
        if (line) process.stdout.write(line);
      },
    });
    return;
  }
  // After the usage (whose colours are ours): from here on, text from outside may be printed.
  guardTerminalOutput();
  try {
    checkArguments(rootCommand, argv);
    await runCommand(rootCommand, { rawArgs: argv });
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`ringhook: ${error.message} (see ringhook ${commandPath(rootCommand, argv)}--help)\n`);
      process.exitCode = 2;
    } else if (error instanceof UserError) {
      process.stderr.write(`ringhook: ${error.message}\n`);
      process.exitCode = 1;
    } else if (isCittyUsageError(error)) {
      process.stderr.write(
        `ringhook: ${stripAnsi(error.message)} (see ringhook ${commandPath(rootCommand, argv)}--help)\n`,
      );
      process.exitCode = 2;
    } else {
      process.stderr.write(`ringhook: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
      if (process.env.RINGHOOK_DEBUG) process.stderr.write(`${(error as Error).stack ?? ''}\n`);
      process.exitCode = 1;
    }
  }
}
