// Whether a folder named in RINGHOOK_JA_DICTIONARY may be loaded: the files in it become code-like
// input to serve (kuromoji parses them, each expands into memory), so the folder must be as safe as
// sshd's StrictModes asks of ~/.ssh: the folder, its files and every folder above it owned by root or
// by the user serve runs as, and writable by no one else (not group, not others). A folder above may
// be writable by others when it is sticky (/tmp): there no one but its owner can rename or remove our
// folder. A symbolic link among the files is refused (its target's folders are not checked). The
// fourth review (#51) loaded a gzip bomb from a world-writable folder. Pure: what stat said in, the
// reason out.

export interface PathFacts {
  path: string;
  kind: 'directory' | 'file' | 'symlink' | 'other';
  uid: number;
  mode: number;
}

/** kuromoji's IPADIC files, all read at load. */
export const DICTIONARY_FILES = [
  'base.dat.gz',
  'cc.dat.gz',
  'check.dat.gz',
  'tid.dat.gz',
  'tid_map.dat.gz',
  'tid_pos.dat.gz',
  'unk.dat.gz',
  'unk_char.dat.gz',
  'unk_compat.dat.gz',
  'unk_invoke.dat.gz',
  'unk_map.dat.gz',
  'unk_pos.dat.gz',
] as const;

const STICKY = 0o1000;
const WRITABLE_BY_OTHERS = 0o022;

function ownerProblem(facts: PathFacts, ownUid: number): string | undefined {
  if (facts.uid === 0 || facts.uid === ownUid) return undefined;
  return `${facts.path} is owned by uid ${facts.uid}, neither root nor the user serve runs as (uid ${ownUid}): chown root ${facts.path}`;
}

function modeProblem(facts: PathFacts, stickyAllowed: boolean): string | undefined {
  const writable = facts.mode & WRITABLE_BY_OTHERS;
  if (writable === 0 || (stickyAllowed && (facts.mode & STICKY) !== 0)) return undefined;
  const who = writable === WRITABLE_BY_OTHERS ? 'its group and others' : writable & 0o002 ? 'others' : 'its group';
  return `${facts.path} is writable by ${who} (mode ${(facts.mode & 0o7777).toString(8).padStart(4, '0')}): chmod go-w ${facts.path}`;
}

/**
 * Why the folder must not be loaded, in one line with its fix; undefined when it may.
 * `above`: every folder from the folder's parent up to /; `files`: each of DICTIONARY_FILES (undefined: missing).
 */
export function dictionaryFolderProblem(
  folder: PathFacts,
  above: PathFacts[],
  files: (PathFacts | undefined)[],
  ownUid: number,
): string | undefined {
  if (folder.kind !== 'directory') return `${folder.path} is not a folder`;
  const missing = DICTIONARY_FILES.filter((_, i) => files[i] === undefined);
  if (missing.length > 0)
    return `${folder.path} has no ${missing.join(', ')} (kuromoji's dictionary files, as in node_modules/kuromoji/dict)`;
  for (const file of files as PathFacts[]) {
    if (file.kind === 'symlink') return `${file.path} is a symbolic link: copy the file itself into the folder`;
    if (file.kind !== 'file') return `${file.path} is not a file`;
  }
  for (const facts of [folder, ...(files as PathFacts[])]) {
    const problem = ownerProblem(facts, ownUid) ?? modeProblem(facts, false);
    if (problem) return problem;
  }
  for (const facts of above) {
    const problem = ownerProblem(facts, ownUid) ?? modeProblem(facts, true);
    if (problem) return problem;
  }
  return undefined;
}
