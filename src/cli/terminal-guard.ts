// The CLI's output, guarded: every string a command writes to stdout and stderr has its control
// characters but newline and tab shown as escapes (core/server/terminal-text.ts), so that text from outside
// (a callback receiver's answer, an SMS gateway's reply, a SIP reason, an alert's text, an account's
// name) never drives the terminal (fourth review, #51). One guard for every command, rather than one
// per place that prints something from outside and the one forgotten. JSON keeps its meaning:
// JSON.stringify escapes C0 itself, and the guard writes C1 and the bidirectional controls as JSON's
// own \u escapes. Bytes (a Buffer) pass as they are. Its own module: main.ts installs it for every
// command, serve's included, without loading the printing helpers of output.ts.
import { terminalSafe } from '../core/server/terminal-text.js';

export function guardTerminalOutput(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write(typeof chunk === 'string' ? terminalSafe(chunk) : chunk, ...rest)) as typeof stream.write;
  }
}
