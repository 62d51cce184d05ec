// The folder named in RINGHOOK_JA_DICTIONARY, checked at serve's start (a UserError stops it there)
// and again before each load: its real path (`..` and links resolved, and that path reported), then
// what core/speech/dictionary-folder.ts asks of it and of every folder above it.
import fs from 'node:fs';
import path from 'node:path';
import { DICTIONARY_FILES, dictionaryFolderProblem, type PathFacts } from '../core/speech/dictionary-folder.js';
import { errorCode, UserError } from '../lib/errors.js';

function facts(file: string): PathFacts | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  const kind = st.isDirectory() ? 'directory' : st.isFile() ? 'file' : st.isSymbolicLink() ? 'symlink' : 'other';
  return { path: file, kind, uid: st.uid, mode: st.mode };
}

/** The folder's real path, or a UserError saying why serve must not load it, and the fix. */
export function checkDictionaryFolder(setting: string, ownUid = process.getuid?.() ?? 0): string {
  const named = `RINGHOOK_JA_DICTIONARY (${setting})`;
  let real: string;
  try {
    real = fs.realpathSync(setting);
  } catch (error) {
    const code = errorCode(error);
    throw new UserError(
      code === 'ENOENT'
        ? `${named}: no such folder: set it to a folder of kuromoji's dictionary files (base.dat.gz …), or to auto or off`
        : `${named} cannot be read: ${code ?? (error as Error).message}`,
    );
  }
  const above: PathFacts[] = [];
  for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
    above.push(facts(dir)!);
    if (dir === path.dirname(dir)) break;
  }
  let problem: string | undefined;
  try {
    problem = dictionaryFolderProblem(
      facts(real) ?? { path: real, kind: 'other', uid: -1, mode: 0 },
      above,
      DICTIONARY_FILES.map((name) => facts(path.join(real, name))),
      ownUid,
    );
  } catch (error) {
    problem = `cannot be read: ${errorCode(error) ?? (error as Error).message}`;
  }
  if (problem) throw new UserError(`${real === setting ? named : `${named}, really ${real}`}: ${problem}`);
  return real;
}
