// `ringhook serve` as a real child process, started from the built CLI and waited for until it says
// it is listening; its stdout and stderr are kept together, as journald or `docker logs` show them.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './cli.js';

export interface ServeChild {
  child: ChildProcess;
  output: () => string;
  /** Waits until the output holds `text`; fails at once if serve exits. */
  waitFor: (text: string | RegExp, timeoutMs: number) => Promise<void>;
  /** SIGTERM, then waits for the exit (nothing if it has exited already). */
  stop: () => Promise<void>;
}

export interface ServeChildOptions {
  /** Added to PATH and HOME, which are all serve gets of the test's environment. */
  env: Record<string, string>;
  cwd?: string;
  /** A command serve runs under (e.g. `['prlimit', '--nofile=1024:1024']`). */
  under?: string[];
  startTimeoutMs?: number;
}

export async function startServeChild(options: ServeChildOptions): Promise<ServeChild> {
  const node = [process.execPath, path.join(REPO_ROOT, 'bin', 'ringhook.js'), 'serve'];
  const [command, ...args] = [...(options.under ?? []), ...node];
  let output = '';
  const child = spawn(command!, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const waitFor = async (text: string | RegExp, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!(typeof text === 'string' ? output.includes(text) : text.test(output))) {
      if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`no "${text}" within ${timeoutMs} ms:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  await waitFor('ringhook is listening', options.startTimeoutMs ?? 60_000);
  return { child, output: () => output, waitFor, stop };
}
