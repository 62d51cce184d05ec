// Which RINGHOOK_JA_DICTIONARY folders may be loaded (core/speech/dictionary-folder.ts, #51): sshd's
// StrictModes for the folder, its files and every folder above it. Pure: stat's facts in.
import { describe, expect, it } from 'vitest';
import { DICTIONARY_FILES, dictionaryFolderProblem, type PathFacts } from '../../src/core/speech/dictionary-folder.js';

const SERVE = 1000;
const dir = (path: string, mode = 0o755, uid = 0): PathFacts => ({ path, kind: 'directory', uid, mode });
const above = [dir('/opt'), dir('/')];
const files = (change: (f: PathFacts) => PathFacts = (f) => f) =>
  DICTIONARY_FILES.map((name) => change({ path: `/opt/ipadic/${name}`, kind: 'file', uid: 0, mode: 0o644 }));
const problem = (folder: PathFacts, up = above, inside: (PathFacts | undefined)[] = files()) =>
  dictionaryFolderProblem(folder, up, inside, SERVE);

describe('a dictionary folder', () => {
  it('may be loaded when root or the serve user owns it, its files and the folders above, and no one else may write them', () => {
    expect(problem(dir('/opt/ipadic'))).toBeUndefined();
    expect(
      problem(
        dir('/opt/ipadic', 0o700, SERVE),
        above,
        files((f) => ({ ...f, uid: SERVE, mode: 0o600 })),
      ),
    ).toBeUndefined();
    // Under a sticky folder writable by all (/tmp): no one else can rename or remove it.
    expect(problem(dir('/opt/ipadic'), [dir('/opt', 0o1777), dir('/')])).toBeUndefined();
  });

  it.each([
    [dir('/opt/ipadic', 0o777), '/opt/ipadic is writable by its group and others (mode 0777): chmod go-w /opt/ipadic'],
    [dir('/opt/ipadic', 0o757), '/opt/ipadic is writable by others (mode 0757): chmod go-w /opt/ipadic'],
    [dir('/opt/ipadic', 0o775), '/opt/ipadic is writable by its group (mode 0775): chmod go-w /opt/ipadic'],
    [dir('/opt/ipadic', 0o1777), '/opt/ipadic is writable by its group and others (mode 1777)'],
    [
      dir('/opt/ipadic', 0o755, 65534),
      '/opt/ipadic is owned by uid 65534, neither root nor the user serve runs as (uid 1000): chown root /opt/ipadic',
    ],
    [{ ...dir('/opt/ipadic'), kind: 'file' as const }, '/opt/ipadic is not a folder'],
  ])('is refused: %j', (folder, why) => {
    expect(problem(folder)).toContain(why);
  });

  it('is refused when a folder above it may be changed by another', () => {
    expect(problem(dir('/opt/ipadic'), [dir('/opt', 0o777), dir('/')])).toContain(
      '/opt is writable by its group and others',
    );
    expect(problem(dir('/opt/ipadic'), [dir('/opt', 0o755, 1001), dir('/')])).toContain('/opt is owned by uid 1001');
  });

  it('is refused when one of its files may be changed by another, is a link, or is missing', () => {
    const base = (change: Partial<PathFacts>) =>
      files((f) => (f.path.endsWith('/base.dat.gz') ? { ...f, ...change } : f));
    expect(problem(dir('/opt/ipadic'), above, base({ mode: 0o666 }))).toContain(
      '/opt/ipadic/base.dat.gz is writable by its group and others (mode 0666)',
    );
    expect(problem(dir('/opt/ipadic'), above, base({ uid: 1001 }))).toContain(
      '/opt/ipadic/base.dat.gz is owned by uid 1001',
    );
    expect(problem(dir('/opt/ipadic'), above, base({ kind: 'symlink' }))).toContain(
      '/opt/ipadic/base.dat.gz is a symbolic link: copy the file itself into the folder',
    );
    expect(problem(dir('/opt/ipadic'), above, [undefined, ...files().slice(1)])).toBe(
      "/opt/ipadic has no base.dat.gz (kuromoji's dictionary files, as in node_modules/kuromoji/dict)",
    );
  });
});
