// What the docs tell a reader matches what the code does: read from the code's own lists.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SMS_BACKUP_STATES } from '../../src/core/calls/call-state.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('docs/sms.md', () => {
  it('names every outcome that sends the SMS backup, in its opening paragraph', () => {
    const opening = read('docs/sms.md').split('\n\n')[1] ?? '';
    // sms_instead: quiet hours' own SMS, said where quiet hours are.
    for (const state of [...SMS_BACKUP_STATES].filter((s) => s !== 'sms_instead'))
      expect(opening, state).toContain(`\`${state}\``);
  });
});

describe('the commands the docs tell a reader to type', () => {
  it('never go through npx, which asks the npm registry for a package named ringhook', () => {
    const pages = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).map((f) => path.join('docs', f))].filter(
      (f) => f.endsWith('.md'),
    );
    const found = pages.flatMap((page) =>
      read(page)
        .split('\n')
        .map((line, i) => ({ where: `${page}:${i + 1}`, line }))
        .filter(({ line }) => /npx\s+(--\S+\s+)*ringhook/.test(line)),
    );
    expect(found).toEqual([]);
  });
});
