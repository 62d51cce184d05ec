import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  parseSipUri,
  renderAsteriskConfig,
  renderTemplate,
  type AsteriskConfigInput,
  type AsteriskTemplates,
} from '../../src/pbx/asterisk-config.js';
import { loadAsteriskTemplates } from '../../src/pbx/asterisk.js';

let templates: AsteriskTemplates;
beforeAll(async () => {
  templates = await loadAsteriskTemplates(fileURLToPath(new URL('../../asterisk', import.meta.url)));
});

const base: AsteriskConfigInput = {
  runDir: '/var/lib/ringhook/asterisk',
  http: { port: 8088 },
  ari: { user: 'ringhook', password: 'correct-horse-battery' },
  sip: { port: 5060 },
  trunk: { uri: 'sip:127.0.0.1:5070' },
};

/** The settings of one [section] (the first with that name and, if given, that type). */
function section(text: string, name: string, type?: string): Record<string, string> {
  const blocks = text.split(/^\[/m).slice(1);
  for (const block of blocks) {
    const [head, ...lines] = block.split('\n');
    if (!head!.startsWith(`${name}]`)) continue;
    const kv: Record<string, string> = {};
    for (const line of lines) {
      // As Asterisk reads it: `;` starts a comment, `\;` is a semicolon.
      const m = /^\s*([\w-]+)\s*=>?\s*(.*?)\s*$/.exec(line.replace(/(?<!\\);.*$/, ''));
      if (m) kv[m[1]!] = m[2]!.replaceAll('\\;', ';');
    }
    if (type === undefined || kv.type === type) return kv;
  }
  throw new Error(`no [${name}] ${type ?? ''}`);
}

describe('renderAsteriskConfig', () => {
  it('puts every writable folder under the run dir', () => {
    const out = renderAsteriskConfig(base, templates);
    const dirs = section(out['asterisk.conf'], 'directories');
    expect(dirs.astetcdir).toBe('/var/lib/ringhook/asterisk/etc');
    for (const [key, value] of Object.entries(dirs)) {
      expect(value, key).toMatch(/^\/var\/lib\/ringhook\/asterisk\//);
    }
  });

  it('binds HTTP to loopback on the given port and writes the ARI user', () => {
    const out = renderAsteriskConfig(base, templates);
    expect(section(out['http.conf'], 'general')).toMatchObject({ bindaddr: '127.0.0.1', bindport: '8088' });
    expect(section(out['ari.conf'], 'ringhook')).toMatchObject({
      type: 'user',
      password: 'correct-horse-battery',
      password_format: 'plain',
    });
  });

  it('loads only listed modules', () => {
    const out = renderAsteriskConfig(base, templates);
    expect(out['modules.conf']).toMatch(/^autoload = no$/m);
    expect(out['modules.conf']).toMatch(/^load => res_ari_channels\.so$/m);
    // TIMEOUT(absolute), the bound on a call's length (RINGHOOK_MAX_CALL_SECONDS).
    expect(out['modules.conf']).toMatch(/^load => func_timeout\.so$/m);
  });

  it('builds the trunk from its URI without auth when none is given', () => {
    const out = renderAsteriskConfig(base, templates);
    const pjsip = out['pjsip.conf'];
    expect(section(pjsip, 'transport-udp')).toMatchObject({ bind: '127.0.0.1:5060', protocol: 'udp' });
    expect(section(pjsip, 'trunk', 'aor').contact).toBe('sip:127.0.0.1:5070');
    expect(section(pjsip, 'trunk', 'endpoint').outbound_auth).toBeUndefined();
    expect(section(pjsip, 'trunk-identify').match).toBe('127.0.0.1');
    expect(pjsip).not.toContain('type = registration');
    expect(pjsip).not.toContain('[softphone]');
    expect(pjsip).not.toMatch(/\{\{|\}\}/);
  });

  it('adds the backup trunk beside the first, with its own address and credentials', () => {
    const pjsip = renderAsteriskConfig(
      {
        ...base,
        trunk2: { uri: 'sip:bob@backup.example.org:5080', username: 'bob', password: 'b4ckup', register: true },
      },
      templates,
    )['pjsip.conf'];
    expect(section(pjsip, 'trunk', 'aor').contact).toBe('sip:127.0.0.1:5070');
    expect(section(pjsip, 'trunk', 'endpoint').outbound_auth).toBeUndefined();
    expect(section(pjsip, 'trunk2', 'aor').contact).toBe('sip:backup.example.org:5080');
    expect(section(pjsip, 'trunk2', 'endpoint')).toMatchObject({
      aors: 'trunk2',
      outbound_auth: 'trunk2-auth',
      from_user: 'bob',
    });
    expect(section(pjsip, 'trunk2-identify')).toMatchObject({ endpoint: 'trunk2', match: 'backup.example.org' });
    expect(section(pjsip, 'trunk2-auth')).toMatchObject({ username: 'bob', password: 'b4ckup' });
    expect(section(pjsip, 'trunk2-registration')).toMatchObject({
      outbound_auth: 'trunk2-auth',
      client_uri: 'sip:bob@backup.example.org:5080',
    });
    expect(pjsip).not.toMatch(/\{\{|\}\}/);
  });

  it('behind NAT: the public address for SIP and media, the local networks, and a registration renewed every minute', () => {
    const trunk = { uri: 'sip:u@sip.example.net', username: 'u', password: 'p', register: true };
    const nat = renderAsteriskConfig(
      {
        ...base,
        sip: {
          bindAddress: '0.0.0.0',
          port: 5060,
          externalAddress: '203.0.113.7',
          localNets: ['192.168.1.0/24', '127.0.0.0/8'],
        },
        trunk,
      },
      templates,
    )['pjsip.conf'];
    expect(section(nat, 'transport-udp')).toMatchObject({
      external_signaling_address: '203.0.113.7',
      external_media_address: '203.0.113.7',
    });
    expect(nat).toMatch(/^local_net = 192\.168\.1\.0\/24\nlocal_net = 127\.0\.0\.0\/8$/m);
    expect(section(nat, 'trunk-registration').expiration).toBe('60');
    // No OPTIONS qualify: a provider that does not answer it would have every call refused.
    expect(section(nat, 'trunk', 'aor').qualify_frequency).toBe('0');
    const plain = renderAsteriskConfig({ ...base, trunk }, templates)['pjsip.conf'];
    expect(plain).not.toMatch(/external_|local_net/);
    expect(section(plain, 'trunk-registration').expiration).toBe('3600');
  });

  it('TLS and SRTP toward the provider: a TLS transport that checks the certificate, the trunk on it, its keys in the SDP (sdes) or by DTLS', () => {
    const trunk = {
      uri: 'sips:u@sip.example.net',
      username: 'u',
      password: 'p',
      register: true,
      transport: 'tls',
      mediaEncryption: 'sdes',
    } as const;
    const out = renderAsteriskConfig(
      { ...base, sip: { port: 5060, tlsPort: 5071, externalAddress: '203.0.113.7' }, trunk },
      templates,
    );
    const pjsip = out['pjsip.conf'];
    expect(section(pjsip, 'transport-tls')).toMatchObject({
      protocol: 'tls',
      bind: '127.0.0.1:5071',
      method: 'tlsv1_2',
      verify_server: 'yes',
      ca_list_file: '/etc/ssl/certs/ca-certificates.crt',
      external_signaling_address: '203.0.113.7',
    });
    expect(section(pjsip, 'transport-udp').protocol).toBe('udp');
    expect(pjsip).not.toContain('[transport-tcp]');
    expect(section(pjsip, 'trunk', 'aor').contact).toBe('sip:sip.example.net;transport=tls');
    expect(section(pjsip, 'trunk', 'endpoint')).toMatchObject({
      transport: 'transport-tls',
      media_encryption: 'sdes',
      media_encryption_optimistic: 'no',
    });
    expect(section(pjsip, 'trunk-registration')).toMatchObject({
      transport: 'transport-tls',
      server_uri: 'sip:sip.example.net;transport=tls',
      client_uri: 'sip:u@sip.example.net',
    });
    expect(out['trunk-ca.pem']).toBeUndefined();
    // A dynamic-DNS name is resolved again as it changes; TCP and TLS connections kept open through the router.
    expect(section(out['dnsmgr.conf'], 'general')).toMatchObject({ enable: 'yes', refreshinterval: '120' });
    expect(section(pjsip, 'global').keep_alive_interval).toBe('30');
    expect(out['modules.conf']).toMatch(/^load => res_srtp\.so$/m);

    const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const own = renderAsteriskConfig(
      {
        ...base,
        sip: { port: 5060, caPem: ca },
        trunk: { uri: 'sip:sip.example.net:5061', transport: 'tls', mediaEncryption: 'dtls' },
      },
      templates,
    );
    expect(section(own['pjsip.conf'], 'transport-tls')).toMatchObject({
      bind: '127.0.0.1:5061',
      ca_list_file: '/var/lib/ringhook/asterisk/etc/trunk-ca.pem',
    });
    expect(own['trunk-ca.pem']).toBe(ca);
    expect(section(own['pjsip.conf'], 'trunk', 'endpoint')).toMatchObject({
      media_encryption: 'dtls',
      dtls_verify: 'fingerprint',
      dtls_auto_generate_cert: 'yes',
    });
    expect(section(own['pjsip.conf'], 'trunk', 'aor').contact).toBe('sip:sip.example.net:5061;transport=tls');
  });

  it('TCP: a TCP transport beside UDP, on the SIP port; a UDP trunk gets neither TCP nor TLS, and no SRTP', () => {
    const tcp = renderAsteriskConfig({ ...base, trunk: { uri: 'sip:sip.example.net', transport: 'tcp' } }, templates)[
      'pjsip.conf'
    ];
    expect(section(tcp, 'transport-tcp')).toMatchObject({ protocol: 'tcp', bind: '127.0.0.1:5060' });
    expect(section(tcp, 'trunk', 'endpoint').transport).toBe('transport-tcp');
    expect(section(tcp, 'trunk', 'aor').contact).toBe('sip:sip.example.net;transport=tcp');
    const udp = renderAsteriskConfig(base, templates)['pjsip.conf'];
    expect(udp).not.toMatch(/transport-tcp|transport-tls|media_encryption/);
    expect(section(udp, 'trunk', 'endpoint').transport).toBe('transport-udp');
  });

  it("renders a list block once per item, with the item's values over the others", () => {
    expect(
      renderTemplate('{{#xs}}[{{name}}{{#flag}}!{{/flag}} {{shared}}]\n{{/xs}}', {
        shared: 's',
        xs: [{ name: 'a', flag: true }, { name: 'b' }],
      }),
    ).toBe('[a! s]\n[b s]\n');
    expect(renderTemplate('{{#xs}}x{{/xs}}', { xs: [] })).toBe('');
  });

  it('adds auth, registration and the softphone when asked', () => {
    const out = renderAsteriskConfig(
      {
        ...base,
        sip: { bindAddress: '0.0.0.0', port: 5080 },
        trunk: { uri: 'sip:alice@sip.example.net', username: 'alice', password: 's3cret', register: true },
        softphone: { username: 'phone', password: 'phone-pass-1' },
      },
      templates,
    );
    const pjsip = out['pjsip.conf'];
    expect(section(pjsip, 'trunk', 'aor').contact).toBe('sip:sip.example.net');
    expect(section(pjsip, 'trunk', 'endpoint')).toMatchObject({ outbound_auth: 'trunk-auth', from_user: 'alice' });
    expect(section(pjsip, 'trunk-auth')).toMatchObject({ username: 'alice', password: 's3cret' });
    expect(section(pjsip, 'trunk-registration')).toMatchObject({
      server_uri: 'sip:sip.example.net',
      client_uri: 'sip:alice@sip.example.net',
    });
    // The endpoint and the AOR carry the username: Asterisk matches a REGISTER's From/To user to them.
    expect(section(pjsip, 'phone', 'endpoint')).toMatchObject({ auth: 'softphone-auth', aors: 'phone' });
    expect(section(pjsip, 'phone', 'aor').max_contacts).toBe('1');
    expect(section(pjsip, 'softphone-auth')).toMatchObject({ username: 'phone', password: 'phone-pass-1' });
    expect(section(pjsip, 'transport-udp').bind).toBe('0.0.0.0:5080');
  });

  it.each([
    ['a password that would start a comment', { ari: { user: 'ringhook', password: 'abcdefghijkl;x' } }],
    ['a password with a line break', { ari: { user: 'ringhook', password: 'abcdefghijkl\n[x]' } }],
    ['a short ARI password', { ari: { user: 'ringhook', password: 'short' } }],
    ['a relative run dir', { runDir: 'data/asterisk' }],
    ['a trunk that is not a SIP URI', { trunk: { uri: 'http://x' } }],
    ['a username without password', { trunk: { uri: 'sip:h', username: 'u' } }],
    ['registration without credentials', { trunk: { uri: 'sip:h', register: true } }],
    ['an unknown option', { bogus: 1 }],
    ['a softphone named like the trunk', { softphone: { username: 'trunk', password: 'phone-pass-1' } }],
    ['a softphone named like a transport', { softphone: { username: 'transport-tls', password: 'phone-pass-1' } }],
    ['an unknown trunk transport', { trunk: { uri: 'sip:h', transport: 'sctp' } }],
    ['certificate authorities that are not PEM', { sip: { port: 5060, caPem: 'not a certificate' } }],
  ])('refuses %s', (_name, patch) => {
    expect(() => renderAsteriskConfig({ ...base, ...patch } as AsteriskConfigInput, templates)).toThrow();
  });
});

describe('renderTemplate and parseSipUri', () => {
  it('keeps blocks only for truthy values and fails on a missing value', () => {
    expect(renderTemplate('a{{#x}}\nb={{y}}\n{{/x}}c', { x: true, y: 1 })).toBe('ab=1\nc');
    expect(renderTemplate('a{{#x}}\nb\n{{/x}}c', { x: false })).toBe('ac');
    expect(() => renderTemplate('{{nope}}', {})).toThrow(/nope/);
  });

  it('parses SIP URIs', () => {
    expect(parseSipUri('sip:127.0.0.1:5070')).toEqual({
      scheme: 'sip',
      user: undefined,
      host: '127.0.0.1',
      port: 5070,
    });
    expect(parseSipUri('sips:bob@[::1]:5061;transport=tls')).toEqual({
      scheme: 'sips',
      user: 'bob',
      host: '[::1]',
      port: 5061,
    });
  });
});
