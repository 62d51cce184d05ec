// The user pages tell a reader what the product does; how it was tested is in docs/development.md.
// The softphone example gives the values ringhook's own Asterisk configuration really uses.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { renderAsteriskConfig } from '../../src/pbx/asterisk-config.js';
import { loadAsteriskTemplates } from '../../src/pbx/asterisk.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** Pages written for users and admins (the others are shared with work elsewhere, or are development.md). */
const USER_PAGES = [
  'binary',
  'callbacks',
  'cli',
  'cluster',
  'getting-started',
  'internet',
  'operations',
  'phones',
  'security',
  'sms',
  'telephony',
  'upgrading',
  'webhook',
].map((name) => `docs/${name}.md`);

describe('user pages', () => {
  it('name no test file, test helper or CI figure (those belong in docs/development.md)', () => {
    const found = [...USER_PAGES, 'README.md'].flatMap((page) =>
      read(page)
        .split('\n')
        .map((line, i) => ({ where: `${page}:${i + 1}`, line }))
        .filter(({ line }) => /\btest\/|\.test\.ts\b|\bvitest\b|\bCI machine\b|\.ci\/run\b/.test(line)),
    );
    expect(found).toEqual([]);
  });
});

describe("docs/phones.md's Linphone example", () => {
  const page = read('docs/phones.md');
  const example = page.slice(page.indexOf('### Step by step, with Linphone'), page.indexOf('## SIP trunks'));

  it('fills the fields with the default user and SIP port', () => {
    expect(example).toMatch(new RegExp(`\\*\\*Username\\*\\* \\| \`${DEFAULTS.softphoneUser}\``));
    expect(example).toContain(`:${DEFAULTS.sipPort}\``);
    expect(example).toContain(DEFAULTS.rtpPorts);
    expect(example).toMatch(/\*\*Transport\*\* \| \*\*UDP\*\*/);
  });

  it('says UDP because that is the only listener, and the softphone transport, without a trunk', async () => {
    const templates = await loadAsteriskTemplates(fileURLToPath(new URL('../../asterisk', import.meta.url)));
    const pjsip = renderAsteriskConfig(
      {
        runDir: '/var/lib/ringhook/asterisk',
        http: { port: 8088 },
        ari: { user: 'ringhook', password: 'correct-horse-battery' },
        sip: { port: DEFAULTS.sipPort },
        softphone: { username: DEFAULTS.softphoneUser, password: 'phone-pass-1' },
      },
      templates,
    )['pjsip.conf'];
    expect(pjsip.match(/^protocol = \w+$/gm)).toEqual(['protocol = udp']);
    expect(pjsip).toMatch(
      new RegExp(`\\[${DEFAULTS.softphoneUser}\\]\\ntype = endpoint\\n[^[]*transport = transport-udp`),
    );
  });
});
