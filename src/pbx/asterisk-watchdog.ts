// Ties the managed Asterisk to serve's life. A small shell (the watchdog) is started beside each
// Asterisk with its stdin a pipe whose other end only serve holds: when serve dies however it dies
// (kill -9, the OOM killer, a crash), the kernel closes that end, the watchdog reads end-of-file and
// ends the calls with a BYE (`channel request hangup all`), then stops Asterisk (`core stop now`).
// A phone is not left holding a silent call. When serve stops Asterisk itself, it first dismisses
// the watchdog with a line on that pipe. The watchdog ignores SIGTERM, SIGINT and SIGHUP: a service
// manager's stop signals, sent to every process of the service after serve died, must not end it
// before its work is done.
//
// The same graceful stop serves a leftover Asterisk found at start (serve killed, the watchdog too).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { sleep } from '../lib/sleep.js';
import type { Logger } from '../lib/log.js';
import { type AsteriskRuntime, asteriskCliCommand } from './asterisk-runtime.js';

/** How long the BYEs get to go out before Asterisk is stopped, and how long it gets to stop. */
const HANGUP_GRACE_S = 1;
const STOP_GRACE_S = 5;

// Arguments: the Asterisk pid, then the `asterisk -rx` command line without its command.
const WATCHDOG_SCRIPT = `trap '' TERM INT HUP
pid=$1; shift
if read -r _; then exit 0; fi
alive() { [ -d "/proc/$pid" ]; }
alive || exit 0
"$@" 'channel request hangup all' >/dev/null 2>&1
i=0; while alive && [ $i -lt ${HANGUP_GRACE_S * 10} ]; do
  if "$@" 'core show channels count' 2>/dev/null | grep -q '^0 active channel'; then break; fi
  sleep 0.1; i=$((i + 1))
done
"$@" 'core stop now' >/dev/null 2>&1
i=0; while alive && [ $i -lt ${STOP_GRACE_S * 10} ]; do sleep 0.1; i=$((i + 1)); done
alive && kill -KILL "$pid" 2>/dev/null
exit 0`;

/** The `asterisk -rx` command line for `pid`, without the command itself. */
function cliPrefix(runtime: AsteriskRuntime, pid: number, configFile: string): string[] {
  const { file, args } = asteriskCliCommand(runtime, pid, configFile, '');
  return [file, ...args.slice(0, -1)];
}

export interface AsteriskWatchdog {
  /** Serve stops Asterisk itself: the watchdog leaves without doing anything. */
  dismiss(): void;
}

/** Starts the watchdog of the Asterisk `pid`. */
export function startWatchdog(
  runtime: AsteriskRuntime,
  pid: number,
  configFile: string,
  logger: Logger,
): AsteriskWatchdog {
  const child: ChildProcess = spawn(
    '/bin/sh',
    ['-c', WATCHDOG_SCRIPT, 'ringhook-asterisk-watchdog', String(pid), ...cliPrefix(runtime, pid, configFile)],
    {
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
  child.on('error', (error) => logger.warn('could not start the Asterisk watchdog', { error }));
  // The pipe must not keep serve's event loop alive, nor a write after the watchdog's end throw.
  child.stdin!.on('error', () => {});
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  return {
    dismiss() {
      if (child.stdin!.writable) child.stdin!.end('stop\n');
    },
  };
}

async function alive(pid: number): Promise<boolean> {
  try {
    await readFile(`/proc/${pid}/stat`);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (!(await alive(pid))) return true;
  return !(await alive(pid));
}

/**
 * Stops a leftover Asterisk the way the watchdog does: its calls are hung up (a BYE to each phone),
 * then it stops; SIGKILL only if it does not.
 */
export async function stopLeftover(
  runtime: AsteriskRuntime,
  pid: number,
  configFile: string,
): Promise<'graceful' | 'killed'> {
  const [file, ...args] = cliPrefix(runtime, pid, configFile);
  const cli = (command: string) =>
    new Promise<string>((resolve) =>
      execFile(file!, [...args, command], { encoding: 'utf8', timeout: 5_000 }, (_error, stdout) =>
        resolve(stdout ?? ''),
      ),
    );
  await cli('channel request hangup all');
  for (let i = 0; i < HANGUP_GRACE_S * 10; i++) {
    if (/^0 active channel/m.test(await cli('core show channels count'))) break;
    await sleep(100);
  }
  await cli('core stop now');
  if (await waitGone(pid, STOP_GRACE_S * 1000)) return 'graceful';
  process.kill(pid, 'SIGKILL');
  await waitGone(pid, 5_000);
  return 'killed';
}
