// scripts/provision-asterisk.sh builds Asterisk's root file system from the Debian archive the host's
// own apt uses: apt itself reads sources made here (through APT_CONFIG), both file formats.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

function mirrorFor(sources: { list?: string; deb822?: string }, env: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-apt-'));
  try {
    fs.mkdirSync(path.join(dir, 'sources.list.d'));
    fs.mkdirSync(path.join(dir, 'lists'));
    fs.writeFileSync(path.join(dir, 'sources.list'), sources.list ?? '');
    if (sources.deb822) fs.writeFileSync(path.join(dir, 'sources.list.d', 'debian.sources'), sources.deb822);
    fs.writeFileSync(
      path.join(dir, 'apt.conf'),
      `Dir::Etc::sourcelist "${dir}/sources.list";\nDir::Etc::sourceparts "${dir}/sources.list.d";\nDir::State::lists "${dir}/lists";\n`,
    );
    const run = spawnSync('bash', [path.join(REPO_ROOT, 'scripts/provision-asterisk.sh'), '--mirror'], {
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, APT_CONFIG: path.join(dir, 'apt.conf'), ...env },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    return run.stdout.trim();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

it("takes the host's mirror from a one-line sources.list, not the security archive", () => {
  const list =
    'deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://127.0.0.1:3142/security.debian.org/debian-security bookworm-security main\n' +
    'deb http://127.0.0.1:3142/deb.debian.org/debian/ bookworm main\n';
  expect(mirrorFor({ list })).toBe('http://127.0.0.1:3142/deb.debian.org/debian');
});

it("takes the host's mirror from deb822 .sources", () => {
  const deb822 =
    'Types: deb\nURIs: http://mirror.internal.test/debian\nSuites: bookworm bookworm-updates\nComponents: main\n';
  expect(mirrorFor({ deb822 })).toBe('http://mirror.internal.test/debian');
});

it('RINGHOOK_DEBIAN_MIRROR overrides the host, and without any source the default is used', () => {
  const list = 'deb http://mirror.internal.test/debian bookworm main\n';
  expect(mirrorFor({ list }, { RINGHOOK_DEBIAN_MIRROR: 'http://other.internal.test/debian' })).toBe(
    'http://other.internal.test/debian',
  );
  expect(mirrorFor({})).toBe('http://deb.debian.org/debian');
});
