// The `ringhook` command on the PATH (`ringhook install-cli`): a small shell script that runs this
// checkout's CLI (or the single executable) by absolute paths, so that nothing is looked up in a
// package registry. It carries a mark: only a file with the mark is ever replaced. Pure.
import path from 'node:path';

export const LAUNCHER_NAME = 'ringhook';

/** The line that says a file is ringhook's own launcher (any other file of that name is left alone). */
export const LAUNCHER_MARK = '# ringhook launcher, written by `ringhook install-cli`';

/** A word for sh, in single quotes (a quote inside closes, escapes and reopens). */
function shellQuoted(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The script: `command` is what runs, with the command line's arguments after it (Node and the
 * checkout's bin/ringhook.js, or the executable alone). Node is named by its path: the checkout's
 * SQLite addon was built for that Node.
 */
export function launcherScript(command: readonly string[], file: string): string {
  return [
    '#!/bin/sh',
    LAUNCHER_MARK,
    `# It runs ${command.at(-1)}. To remove the command: rm ${shellQuoted(file)}`,
    `exec ${command.map(shellQuoted).join(' ')} "$@"`,
    '',
  ].join('\n');
}

export function isOurLauncher(text: string): boolean {
  return text.split('\n', 3)[1] === LAUNCHER_MARK;
}

/** Where the command goes by default: root's /usr/local/bin (on every PATH), a user's ~/.local/bin. */
export function defaultBinDir(uid: number, home: string): string {
  return uid === 0 ? '/usr/local/bin' : path.join(home, '.local', 'bin');
}

/** The folders of a PATH value, as the shell searches them. */
export function pathDirs(pathValue: string | undefined): string[] {
  return (pathValue ?? '').split(':').filter((dir) => dir !== '');
}
