// Where the data dir is (lib/data-dir.ts): the same folder whatever folder a command is typed in.
import { describe, expect, it } from 'vitest';
import { type DataDirLookup, findDataDir } from '../../src/lib/data-dir.js';

function lookup(over: Partial<DataDirLookup> & { files?: string[] } = {}): DataDirLookup {
  const files = new Set(over.files ?? []);
  return {
    env: { HOME: '/home/alice' },
    cwd: '/home/alice/somewhere',
    uid: 1000,
    homedir: '/home/fallback',
    checkoutDir: '/home/alice/ringhook',
    exists: (file) => files.has(file),
    ...over,
  };
}

describe('findDataDir', () => {
  it('takes RINGHOOK_DATA_DIR first, relative to the current folder', () => {
    expect(findDataDir(lookup({ env: { RINGHOOK_DATA_DIR: '/srv/rh' } }))).toEqual({
      dir: '/srv/rh',
      origin: 'variable',
    });
    expect(
      findDataDir(lookup({ env: { RINGHOOK_DATA_DIR: 'state' }, files: ['/home/alice/somewhere/data/ringhook.db'] })),
    ).toEqual({ dir: '/home/alice/somewhere/state', origin: 'variable' });
  });

  it("does not depend on the current folder: a user's XDG data dir, root's /var/lib/ringhook", () => {
    expect(findDataDir(lookup())).toEqual({ dir: '/home/alice/.local/share/ringhook', origin: 'user' });
    expect(findDataDir(lookup({ cwd: '/tmp' }))).toEqual(findDataDir(lookup()));
    expect(findDataDir(lookup({ env: { HOME: '/home/alice', XDG_DATA_HOME: '/data/alice' } })).dir).toBe(
      '/data/alice/ringhook',
    );
    // A relative XDG_DATA_HOME is ignored, as the XDG specification says.
    expect(findDataDir(lookup({ env: { HOME: '/home/alice', XDG_DATA_HOME: 'rel' } })).dir).toBe(
      '/home/alice/.local/share/ringhook',
    );
    expect(findDataDir(lookup({ env: {} })).dir).toBe('/home/fallback/.local/share/ringhook');
    expect(findDataDir(lookup({ uid: 0 }))).toEqual({ dir: '/var/lib/ringhook', origin: 'system' });
  });

  it("finds the systemd unit's data dir for its user (whose home is /var/lib/ringhook)", () => {
    expect(findDataDir(lookup({ files: ['/var/lib/ringhook/ringhook.db'] }))).toEqual({
      dir: '/var/lib/ringhook',
      origin: 'system',
    });
  });

  it("keeps an earlier install's ./data: in the current folder, then beside the checkout", () => {
    const here = '/home/alice/somewhere/data/ringhook.db';
    const checkout = '/home/alice/ringhook/data/ringhook.db';
    expect(findDataDir(lookup({ files: [here, checkout] }))).toEqual({
      dir: '/home/alice/somewhere/data',
      origin: 'current-folder',
    });
    expect(findDataDir(lookup({ files: [checkout], uid: 0 }))).toEqual({
      dir: '/home/alice/ringhook/data',
      origin: 'checkout',
    });
    // A ./data folder without a database is nobody's data dir.
    expect(findDataDir(lookup({ files: ['/home/alice/somewhere/data'] })).origin).toBe('user');
    // The single executable has no checkout.
    expect(findDataDir(lookup({ files: [checkout], checkoutDir: null })).origin).toBe('user');
  });
});
