// How a serve of v0.0.1, which holds its data dir by serve.pid alone, is told by its command line
// (app/instance-lock.ts): a ringhook command whose command is serve, however it was started.
import { describe, expect, it } from 'vitest';
import { isRinghookServe } from '../../src/app/instance-lock.js';

describe('isRinghookServe', () => {
  it('is a ringhook serve from a checkout, npm start, the executable or a supervisor', () => {
    expect(isRinghookServe(['node', '/opt/ringhook/bin/ringhook.js', 'serve', ''])).toBe(true);
    expect(isRinghookServe(['/usr/bin/node', '--enable-source-maps', 'bin/ringhook.js', 'serve'])).toBe(true);
    expect(isRinghookServe(['/usr/local/bin/ringhook', 'serve'])).toBe(true);
    expect(isRinghookServe(['ringhook', '--verbose', 'serve'])).toBe(true);
  });

  it('is not another ringhook command, nor another program that a dead serve left its pid to', () => {
    expect(isRinghookServe(['node', '/opt/ringhook/bin/ringhook.js', 'account', 'list'])).toBe(false);
    expect(isRinghookServe(['node', '/opt/ringhook/bin/ringhook.js', 'calls', 'serve'])).toBe(false);
    expect(isRinghookServe(['/usr/sbin/asterisk', '-f', 'serve'])).toBe(false);
    expect(isRinghookServe(['bash', '/opt/ringhook/bin/ringhook-supervise', 'node', 'x.js'])).toBe(false);
    expect(isRinghookServe(['vim', 'ringhook.js.orig', 'serve'])).toBe(false);
    expect(isRinghookServe([''])).toBe(false);
  });
});
