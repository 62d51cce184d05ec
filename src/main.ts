// The CLI entry: ringhook serve | account | calls | db | …. Errors are one clear line and a non-zero exit.
import { defineCommand, renderUsage, runCommand, runMain as runCitty, type CommandDef } from 'citty';
import { helpDataDirLine } from './cli/data-dir.js';
import { UsageError, UserError } from './lib/errors.js';
import { argumentsProblem, commandNamed } from './cli/strict-args.js';
import { accountCommand } from './cli/account.js';
import { callsCommand } from './cli/calls.js';
import { backupCommand } from './cli/backup.js';
import { dbCommand } from './cli/db-copy.js';
import { doctorCommand } from './cli/doctor.js';
import { provisionCommand } from './cli/provision.js';
import { sayCommand } from './cli/say.js';
import { serveCommand } from './cli/serve.js';
import { smsTestCommand } from './cli/sms-test.js';
import { callbacksCommand } from './cli/callbacks.js';
import { testCallCommand } from './cli/test-call.js';
import { VERSION } from './lib/version.js';

export const rootCommand = defineCommand({
  meta: {
    name: 'ringhook',
    version: VERSION,
    description: 'Turns trading alerts (webhooks) into phone calls, with SMS backup',
  },
  subCommands: {
    serve: serveCommand,
    account: accountCommand,
    calls: callsCommand,
    'test-call': testCallCommand,
    'sms-test': smsTestCommand,
    callbacks: callbacksCommand,
    doctor: doctorCommand,
    backup: backupCommand,
    db: dbCommand,
    provision: provisionCommand,
    say: sayCommand,
  },
});

const stripAnsi = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');

/** Colour only on a terminal, and never when NO_COLOR is set (no-color.org: any non-empty value). */
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
}

// biome-ignore lint/suspicious/noExplicitAny: citty's own signature for a command of any arguments
async function printUsage(cmd: CommandDef<any>, parent?: CommandDef<any>): Promise<void> {
  const usage = await renderUsage(cmd, parent);
  process.stdout.write(`${wantsColour(process.stdout) ? usage : stripAnsi(usage)}\n`);
}

function isCittyUsageError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && error.name === 'CLIError';
}

/** A command line its command cannot take is refused before anything runs (strict-args.ts). */
function checkArguments(argv: readonly string[]): void {
  const { command, rest } = commandNamed(rootCommand, argv);
  // A command with subcommands left: citty names the unknown one, or shows the usage.
  if (command.subCommands) return;
  const args = command.args;
  const problem =
    args && typeof args === 'object' && !(args instanceof Promise) ? argumentsProblem(args, rest) : undefined;
  if (problem) throw new UsageError(problem);
}

/** "account set " for `account set <id> …`: the command whose --help says what it takes. */
function commandPath(argv: readonly string[]): string {
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
  try {
    checkArguments(argv);
    await runCommand(rootCommand, { rawArgs: argv });
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`ringhook: ${error.message} (see ringhook ${commandPath(argv)}--help)\n`);
      process.exitCode = 2;
    } else if (error instanceof UserError) {
      process.stderr.write(`ringhook: ${error.message}\n`);
      process.exitCode = 1;
    } else if (isCittyUsageError(error)) {
      process.stderr.write(`ringhook: ${stripAnsi(error.message)} (see ringhook ${commandPath(argv)}--help)\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`ringhook: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
      if (process.env.RINGHOOK_DEBUG) process.stderr.write(`${(error as Error).stack ?? ''}\n`);
      process.exitCode = 1;
    }
  }
}
