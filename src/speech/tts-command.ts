// Runs the operator's own speech engine (RINGHOOK_TTS_COMMAND): the text on its stdin, a WAV
// expected on its stdout, within a time and a size bound.
//
// The command line goes through /bin/sh -c. It is the operator's configuration, as trusted as the
// rest of the environment file, and engines often need a pipe or a redirect to produce a WAV on
// stdout (piper --output-raw | sox ...). The alert's text never reaches the shell: it is read
// from stdin. The command runs in a process group of its own so that at the bound the whole
// pipeline is killed, not only the shell.
//
// stdin and stdout are files, not Node's pipes: those are sockets, which engines told to use
// /dev/stdin or /dev/stdout (espeak-ng -w /dev/stdout, piper --output_file /dev/stdout) cannot
// open, and a file lets an engine seek back to finish its WAV header.
import { spawn, type ChildProcess } from 'node:child_process';
import { type FSWatcher, watch } from 'node:fs';
import { open, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export class SpeechCommandError extends Error {
  override readonly name = 'SpeechCommandError';
}

export interface SpeechCommandLimits {
  timeoutMs: number;
  maxBytes: number;
}

const STDERR_KEPT = 500;
// Not a file size limit (ulimit -f): engines make large shared-memory files (espeak-ng's audio
// library asks for 64 MB) and die of it. A runaway writer is stopped when the file's change is
// noticed (inotify; a timer where that is missing): on a fast disk some tens of megabytes past
// the bound, deleted with the temp dir. Files are worth it: engines may seek in them.
const SIZE_CHECK_MS = 50;

/** Runs the command with its stdin and stdout kept in `workDir`; returns what it wrote on stdout. */
export async function runSpeechCommand(
  command: string,
  text: string,
  workDir: string,
  limits: SpeechCommandLimits,
): Promise<Buffer> {
  const inPath = join(workDir, 'command-stdin.txt');
  const outPath = join(workDir, 'command-stdout');
  await writeFile(inPath, text, 'utf8');
  const input = await open(inPath, 'r');
  const output = await open(outPath, 'w', 0o600);
  let outcome: Promise<string | undefined>;
  try {
    const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: [input.fd, output.fd, 'pipe'] });
    // Watched at once: a quick command may be done before the descriptors are closed.
    outcome = watchCommand(child, outPath, limits);
  } finally {
    await input.close();
    await output.close();
  }
  const problem = await outcome;
  if (problem !== undefined) throw new SpeechCommandError(problem);
  const { size } = await stat(outPath);
  if (size > limits.maxBytes) throw new SpeechCommandError(`it wrote more than ${limits.maxBytes} bytes`);
  return readFile(outPath);
}

/** What went wrong, or undefined once the command exited 0 within the bounds; kills its process group otherwise. */
function watchCommand(
  running: ChildProcess,
  outPath: string,
  limits: SpeechCommandLimits,
): Promise<string | undefined> {
  return new Promise<string | undefined>((resolve) => {
    let stderr = '';
    let settled = false;
    let writes: FSWatcher | undefined;
    const finish = (problem: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(sizeCheck);
      writes?.close();
      if (problem !== undefined) {
        try {
          if (running.pid !== undefined) process.kill(-running.pid, 'SIGKILL');
        } catch {
          // already gone
        }
        running.stderr?.destroy();
      }
      resolve(problem);
    };
    const tooLarge = `it wrote more than ${limits.maxBytes} bytes`;
    const timer = setTimeout(() => finish(`it did not finish within ${limits.timeoutMs} ms`), limits.timeoutMs);
    const checkSize = () => {
      stat(outPath).then(
        ({ size }) => size > limits.maxBytes && finish(tooLarge),
        () => {},
      );
    };
    const sizeCheck = setInterval(checkSize, SIZE_CHECK_MS);
    try {
      writes = watch(outPath, checkSize);
      writes.on('error', () => {});
    } catch {
      // No inotify watch left on this host (its limit reached): the timer checks the size alone.
    }
    running.on('error', (error) => finish(`it could not be started: ${error.message}`));
    running.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    running.on('close', (code, signal) => {
      if (code === 0) finish(undefined);
      else finish(`it exited with ${code ?? signal}${stderr.trim() ? `: ${stderr.trim()}` : ''}`);
    });
  });
}
