// loadConfig (environment variables, validated once) and parseAddressList (trusted proxies).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { UserError } from '../../src/lib/errors.js';
import { parseAddressList } from '../../src/core/connections/address-match.js';

const CWD = path.resolve('/srv/ringhook');

function refusal(env: Record<string, string | undefined>): UserError {
  try {
    loadConfig(env, CWD);
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return error as UserError;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

/** The config without its matcher (a closure, which toEqual cannot compare). */
const comparable = (config: Config) => {
  const { trustProxy, callbackAllow, ...rest } = config;
  return { ...rest, trustProxyEmpty: trustProxy.empty, callbackAllowEmpty: callbackAllow.empty };
};

describe('loadConfig defaults', () => {
  it('needs no variable at all', () => {
    const config = loadConfig({ HOME: '/home/alice' }, CWD);
    // Not the current folder's ./data (lib/data-dir.ts, test/unit/data-dir.test.ts).
    const dataDir = process.getuid?.() === 0 ? '/var/lib/ringhook' : '/home/alice/.local/share/ringhook';
    expect(comparable(config)).toMatchObject({
      dataDir,
      dbFile: path.join(dataDir, 'ringhook.db'),
      host: '0.0.0.0',
      port: 8443,
      tls: null,
      httpPort: null,
      trustProxyText: '',
      trustProxyEmpty: true,
      publicUrl: 'https://localhost:8443',
      publicUrlConfigured: false,
      ari: null,
      logLevel: 'info',
      dbSync: 'full',
    });
    expect(config.trustProxy.matches('127.0.0.1')).toBe(false);
  });

  it('resolves the data dir against the given cwd, not the process cwd', () => {
    expect(loadConfig({ RINGHOOK_DATA_DIR: 'data' }, '/other/place').dataDir).toBe(
      path.resolve('/other/place', 'data'),
    );
    expect(loadConfig({ RINGHOOK_DATA_DIR: 'state/rh' }, CWD).dataDir).toBe(path.join(CWD, 'state', 'rh'));
    expect(loadConfig({ RINGHOOK_DATA_DIR: '/var/lib/ringhook' }, CWD)).toMatchObject({
      dataDir: '/var/lib/ringhook',
      dbFile: '/var/lib/ringhook/ringhook.db',
    });
  });

  it('ignores variables that are not its own', () => {
    expect(comparable(loadConfig({ PORT: '1', HOST: 'x y', LOG_LEVEL: 'nonsense' }, CWD))).toEqual(
      comparable(loadConfig({}, CWD)),
    );
  });

  it('names the RINGHOOK_ variables it does not read, with the one meant when it is close', () => {
    const config = loadConfig(
      {
        RINGHOOK_TRUNK_URL: 'sip:x',
        RINGHOOK_FROBNICATE: '1',
        RINGHOOK_ASTERISK_MODE: 'host',
        RINGHOOK_TEST_LOG: '1',
        RINGHOOK_PORT: '8443',
      },
      CWD,
    );
    expect(config.unknownVariables).toEqual([
      'RINGHOOK_TRUNK_URL (did you mean RINGHOOK_TRUNK_URI?)',
      'RINGHOOK_FROBNICATE',
    ]);
    expect(loadConfig({}, CWD).unknownVariables).toEqual([]);
  });

  it('treats an empty string as unset', () => {
    const empty = {
      RINGHOOK_DATA_DIR: '',
      RINGHOOK_HOST: '',
      RINGHOOK_PORT: '',
      RINGHOOK_TLS_CERT: '',
      RINGHOOK_TLS_KEY: '',
      RINGHOOK_HTTP_PORT: '',
      RINGHOOK_TRUST_PROXY: '',
      RINGHOOK_PUBLIC_URL: '',
      RINGHOOK_ARI_URL: '',
      RINGHOOK_ARI_USER: '',
      RINGHOOK_ARI_PASSWORD: '',
      RINGHOOK_LOG_LEVEL: '',
      RINGHOOK_DB_SYNC: '',
      RINGHOOK_SELF_SIGNED: '',
    };
    expect(comparable(loadConfig(empty, CWD))).toEqual(comparable(loadConfig({}, CWD)));
    // An empty partner does not satisfy the "set both" rules.
    expect(refusal({ RINGHOOK_TLS_CERT: 'cert.pem', RINGHOOK_TLS_KEY: '' }).message).toMatch(/RINGHOOK_TLS_KEY/);
  });
});

describe('loadConfig parses every variable', () => {
  it('RINGHOOK_HOST and RINGHOOK_PORT, and the public URL derived from them', () => {
    expect(loadConfig({ RINGHOOK_HOST: '127.0.0.1', RINGHOOK_PORT: '9443' }, CWD)).toMatchObject({
      host: '127.0.0.1',
      port: 9443,
      publicUrl: 'https://127.0.0.1:9443',
    });
    expect(loadConfig({ RINGHOOK_HOST: 'alerts.local' }, CWD)).toMatchObject({
      host: 'alerts.local',
      publicUrl: 'https://alerts.local:8443',
    });
    expect(loadConfig({ RINGHOOK_HOST: '::' }, CWD)).toMatchObject({ host: '::', publicUrl: 'https://localhost:8443' });
    expect(loadConfig({ RINGHOOK_HOST: '::1' }, CWD)).toMatchObject({ host: '::1', publicUrl: 'https://[::1]:8443' });
    expect(loadConfig({ RINGHOOK_PORT: '443' }, CWD).port).toBe(443);
    expect(loadConfig({ RINGHOOK_PORT: '65535' }, CWD).port).toBe(65535);
  });

  it('RINGHOOK_MAX_CALL_SECONDS: the bound on a call Asterisk enforces, 10 to 86,400, default 1000', () => {
    expect(loadConfig({}, CWD).telephony.maxCallSec).toBe(1_000);
    expect(loadConfig({ RINGHOOK_MAX_CALL_SECONDS: '600' }, CWD).telephony.maxCallSec).toBe(600);
    for (const bad of ['9', '86401', '1.5', 'ten']) {
      expect(refusal({ RINGHOOK_MAX_CALL_SECONDS: bad }).message).toContain(
        'RINGHOOK_MAX_CALL_SECONDS must be a whole number from 10 to 86400',
      );
    }
    expect(refusal({ RINGHOOK_MAX_CALL_SECONDS: '30' }).message).toContain(
      'RINGHOOK_MAX_CALL_SECONDS (30) must be longer than RINGHOOK_RING_TIMEOUT (30): it bounds the whole call, ring included',
    );
    expect(loadConfig({ RINGHOOK_MAX_CALL_SECONDS: '30', RINGHOOK_RING_TIMEOUT: '20' }, CWD).telephony.maxCallSec).toBe(
      30,
    );
  });

  it('RINGHOOK_TLS_CERT and RINGHOOK_TLS_KEY, resolved against cwd', () => {
    expect(
      loadConfig({ RINGHOOK_TLS_CERT: 'tls/cert.pem', RINGHOOK_TLS_KEY: '/etc/ringhook/key.pem' }, CWD).tls,
    ).toEqual({
      cert: path.join(CWD, 'tls', 'cert.pem'),
      key: '/etc/ringhook/key.pem',
    });
  });

  it('RINGHOOK_HTTP_PORT', () => {
    expect(loadConfig({ RINGHOOK_HTTP_PORT: '8080' }, CWD).httpPort).toBe(8080);
  });

  it('RINGHOOK_TRUST_PROXY, a list of addresses and CIDR blocks', () => {
    const config = loadConfig({ RINGHOOK_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1' }, CWD);
    expect(config.trustProxyText).toBe('127.0.0.1, 10.0.0.0/8,::1');
    expect(config.trustProxy.empty).toBe(false);
    expect(config.trustProxy.matches('127.0.0.1')).toBe(true);
    expect(config.trustProxy.matches('10.20.30.40')).toBe(true);
    expect(config.trustProxy.matches('::1')).toBe(true);
    expect(config.trustProxy.matches('192.168.1.1')).toBe(false);
  });

  it('RINGHOOK_PUBLIC_URL, without its trailing slashes', () => {
    expect(loadConfig({ RINGHOOK_PUBLIC_URL: 'https://alerts.example.com/' }, CWD)).toMatchObject({
      publicUrl: 'https://alerts.example.com',
      publicUrlConfigured: true,
    });
    expect(loadConfig({ RINGHOOK_PUBLIC_URL: 'https://example.com/ringhook//' }, CWD).publicUrl).toBe(
      'https://example.com/ringhook',
    );
    expect(loadConfig({ RINGHOOK_PUBLIC_URL: 'http://192.168.1.10:8443' }, CWD).publicUrl).toBe(
      'http://192.168.1.10:8443',
    );
  });

  it('RINGHOOK_ARI_URL with RINGHOOK_ARI_USER and RINGHOOK_ARI_PASSWORD', () => {
    expect(
      loadConfig(
        { RINGHOOK_ARI_URL: 'http://127.0.0.1:8088/', RINGHOOK_ARI_USER: 'ringhook', RINGHOOK_ARI_PASSWORD: 's3cret' },
        CWD,
      ).ari,
    ).toEqual({
      url: 'http://127.0.0.1:8088',
      user: 'ringhook',
      password: 's3cret',
    });
    // User and password alone (managed Asterisk) are harmless.
    expect(loadConfig({ RINGHOOK_ARI_USER: 'u', RINGHOOK_ARI_PASSWORD: 'p' }, CWD).ari).toBeNull();
  });

  it.each(['debug', 'info', 'warn', 'error'] as const)('RINGHOOK_LOG_LEVEL=%s', (level) => {
    expect(loadConfig({ RINGHOOK_LOG_LEVEL: level }, CWD).logLevel).toBe(level);
  });

  it.each(['normal', 'full'] as const)('RINGHOOK_DB_SYNC=%s', (sync) => {
    expect(loadConfig({ RINGHOOK_DB_SYNC: sync }, CWD).dbSync).toBe(sync);
  });

  it.each(['on', 'off', 'true', 'false', '1', '0', 'yes', 'no', 'ON', ' Off '])(
    'RINGHOOK_SELF_SIGNED=%j is accepted',
    (value) => {
      expect(() => loadConfig({ RINGHOOK_SELF_SIGNED: value }, CWD)).not.toThrow();
    },
  );

  // The variable is validated, so an operator will expect it to do something; the config must carry it.
  it('RINGHOOK_SELF_SIGNED reaches the config (off differs from on)', () => {
    expect(comparable(loadConfig({ RINGHOOK_SELF_SIGNED: 'off' }, CWD))).not.toEqual(
      comparable(loadConfig({ RINGHOOK_SELF_SIGNED: 'on' }, CWD)),
    );
  });
});

describe('loadConfig refuses bad values, naming the variable and the value', () => {
  it.each([
    ['RINGHOOK_PORT', 'eighty'],
    ['RINGHOOK_PORT', '70000'],
    ['RINGHOOK_PORT', '65536'],
    ['RINGHOOK_PORT', '-1'],
    ['RINGHOOK_PORT', '84.5'],
    ['RINGHOOK_HTTP_PORT', 'http'],
    ['RINGHOOK_HTTP_PORT', '99999'],
    ['RINGHOOK_HOST', 'bad host'],
    ['RINGHOOK_HOST', 'http://example.com'],
    ['RINGHOOK_PUBLIC_URL', 'alerts.example.com'],
    ['RINGHOOK_PUBLIC_URL', 'ftp://alerts.example.com'],
    ['RINGHOOK_PUBLIC_URL', 'https://'],
    ['RINGHOOK_ARI_URL', 'not a url'],
    ['RINGHOOK_ARI_URL', 'ws://127.0.0.1:8088'],
    ['RINGHOOK_LOG_LEVEL', 'verbose'],
    ['RINGHOOK_LOG_LEVEL', 'INFO '],
    ['RINGHOOK_DB_SYNC', 'off'],
    ['RINGHOOK_SELF_SIGNED', 'maybe'],
  ])('%s=%j', (name, value) => {
    const env: Record<string, string> = { [name]: value };
    if (name === 'RINGHOOK_ARI_URL') Object.assign(env, { RINGHOOK_ARI_USER: 'u', RINGHOOK_ARI_PASSWORD: 'p' });
    const error = refusal(env);
    expect(error.message).toContain(name);
    expect(error.message).toContain(JSON.stringify(value));
    expect(error.message).toMatch(/^invalid configuration:/);
  });

  it('says what a port must be', () => {
    expect(refusal({ RINGHOOK_PORT: 'eighty' }).message).toMatch(
      /RINGHOOK_PORT must be a port number \(got "eighty"\)/,
    );
    expect(refusal({ RINGHOOK_PORT: '70000' }).message).toMatch(
      /RINGHOOK_PORT must be between 1 and 65535 \(0: any free port\) \(got "70000"\)/,
    );
  });

  // 0 means "any free port" to a listener: a webhook port the tests ask for, never Asterisk's, whose ports the peers are told.
  it.each(['RINGHOOK_SIP_PORT', 'RINGHOOK_SIP_TLS_PORT', 'RINGHOOK_ARI_PORT'])('%s=0 is refused', (name) => {
    expect(refusal({ [name]: '0' }).message).toContain(`${name} must be between 1 and 65535 (got "0")`);
  });

  // A blank value is neither a port nor "unset": it must not silently become port 0 (a random port).
  it.each(['  ', '\t'])('RINGHOOK_PORT=%j is not taken as port 0', (value) => {
    let port: number | undefined;
    try {
      port = loadConfig({ RINGHOOK_PORT: value }, CWD).port;
    } catch (error) {
      expect(error).toBeInstanceOf(UserError);
      expect((error as Error).message).toContain('RINGHOOK_PORT');
      return;
    }
    expect(port).toBe(DEFAULTS.port);
  });

  it('RINGHOOK_TLS_CERT without RINGHOOK_TLS_KEY, and the other way round', () => {
    const certOnly = refusal({ RINGHOOK_TLS_CERT: 'cert.pem' }).message;
    expect(certOnly).toContain('RINGHOOK_TLS_CERT');
    expect(certOnly).toContain('RINGHOOK_TLS_KEY');
    expect(certOnly).toContain('"cert.pem"');
    const keyOnly = refusal({ RINGHOOK_TLS_KEY: 'key.pem' }).message;
    expect(keyOnly).toContain('RINGHOOK_TLS_CERT');
    expect(keyOnly).toContain('RINGHOOK_TLS_KEY');
  });

  it('RINGHOOK_ARI_URL without user or password', () => {
    for (const env of [
      { RINGHOOK_ARI_URL: 'http://10.0.0.5:8088' },
      { RINGHOOK_ARI_URL: 'http://10.0.0.5:8088', RINGHOOK_ARI_USER: 'u' },
      { RINGHOOK_ARI_URL: 'http://10.0.0.5:8088', RINGHOOK_ARI_PASSWORD: 'p' },
    ]) {
      const message = refusal(env).message;
      expect(message).toContain('RINGHOOK_ARI_URL');
      expect(message).toContain('RINGHOOK_ARI_USER');
      expect(message).toContain('RINGHOOK_ARI_PASSWORD');
    }
  });

  it('RINGHOOK_HTTP_PORT equal to RINGHOOK_PORT', () => {
    const message = refusal({ RINGHOOK_PORT: '8443', RINGHOOK_HTTP_PORT: '8443' }).message;
    expect(message).toContain('RINGHOOK_HTTP_PORT must differ from RINGHOOK_PORT');
    expect(refusal({ RINGHOOK_HTTP_PORT: '8443' }).message).toContain('"8443"');
  });

  it.each([
    ['a host name', 'proxy.local', 'proxy.local'],
    ['a prefix too long for IPv4', '10.0.0.0/33', '10.0.0.0/33'],
    ['a prefix too long for IPv6', '::1/129', '::1/129'],
    ['a prefix that is not a number', '10.0.0.0/eight', '10.0.0.0/eight'],
    ['an empty prefix', '10.0.0.0/', '10.0.0.0/'],
    ['a bad entry among good ones', '127.0.0.1, 300.1.1.1, ::1', '300.1.1.1'],
  ])('RINGHOOK_TRUST_PROXY with %s', (_label, value, entry) => {
    const message = refusal({ RINGHOOK_TRUST_PROXY: value }).message;
    expect(message).toContain('RINGHOOK_TRUST_PROXY');
    expect(message).toContain(`"${entry}"`);
  });

  it('RINGHOOK_TRUST_PROXY with two prefixes ("10.0.0.0/8/9")', () => {
    expect(refusal({ RINGHOOK_TRUST_PROXY: '10.0.0.0/8/9' }).message).toContain('10.0.0.0/8/9');
  });

  // The public URL is the base of every webhook URL shown to owners: `${publicUrl}/webhook/...`.
  // A query or a fragment would make those URLs point somewhere else.
  it.each(['https://alerts.example.com/?x=1', 'https://alerts.example.com/#top'])(
    'RINGHOOK_PUBLIC_URL=%j (query or fragment)',
    (value) => {
      const error = refusal({ RINGHOOK_PUBLIC_URL: value });
      expect(error.message).toContain('RINGHOOK_PUBLIC_URL');
    },
  );

  it('lists every bad variable at once', () => {
    const message = refusal({
      RINGHOOK_PORT: 'eighty',
      RINGHOOK_LOG_LEVEL: 'loud',
      RINGHOOK_DB_SYNC: 'sometimes',
    }).message;
    expect(message.split('\n').filter((l) => l.startsWith('  - '))).toHaveLength(3);
    for (const part of ['RINGHOOK_PORT', '"eighty"', 'RINGHOOK_LOG_LEVEL', '"loud"', 'RINGHOOK_DB_SYNC', '"sometimes"'])
      expect(message).toContain(part);
  });

  it('shortens a very long bad value', () => {
    const message = refusal({ RINGHOOK_LOG_LEVEL: 'x'.repeat(500) }).message;
    expect(message).toContain('RINGHOOK_LOG_LEVEL');
    expect(message.length).toBeLessThan(300);
  });
});

describe('parseAddressList', () => {
  it('is empty for an empty text and matches nothing', () => {
    for (const text of ['', ' ', ',, ,']) {
      const m = parseAddressList(text);
      expect(m.empty).toBe(true);
      expect(m.matches('127.0.0.1')).toBe(false);
    }
  });

  it('matches single IPv4 and IPv6 addresses exactly', () => {
    const m = parseAddressList('192.0.2.10, 2001:db8::1');
    expect(m.empty).toBe(false);
    expect(m.matches('192.0.2.10')).toBe(true);
    expect(m.matches('192.0.2.11')).toBe(false);
    expect(m.matches('2001:db8::1')).toBe(true);
    expect(m.matches('2001:0db8:0000:0000:0000:0000:0000:0001')).toBe(true);
    expect(m.matches('2001:db8::2')).toBe(false);
  });

  it('matches CIDR blocks', () => {
    const m = parseAddressList('10.0.0.0/8,172.16.0.0/12,fd00::/8');
    expect(m.matches('10.255.255.255')).toBe(true);
    expect(m.matches('11.0.0.0')).toBe(false);
    expect(m.matches('172.31.0.1')).toBe(true);
    expect(m.matches('172.32.0.1')).toBe(false);
    expect(m.matches('fd12:3456::1')).toBe(true);
    expect(m.matches('fe80::1')).toBe(false);
    expect(parseAddressList('0.0.0.0/0').matches('203.0.113.9')).toBe(true);
    expect(parseAddressList('::/0').matches('2001:db8::9')).toBe(true);
    expect(parseAddressList('192.0.2.1/32').matches('192.0.2.1')).toBe(true);
  });

  it('matches IPv4-mapped IPv6 client addresses against IPv4 entries', () => {
    const m = parseAddressList('127.0.0.1, 10.0.0.0/8');
    expect(m.matches('::ffff:127.0.0.1')).toBe(true);
    expect(m.matches('::ffff:10.1.2.3')).toBe(true);
    expect(m.matches('::ffff:192.168.0.1')).toBe(false);
  });

  it('takes an IPv4-mapped entry as the IPv4 address', () => {
    const m = parseAddressList('::ffff:192.0.2.7');
    expect(m.matches('192.0.2.7')).toBe(true);
    expect(m.matches('::ffff:192.0.2.7')).toBe(true);
  });

  it('does not match garbage or missing addresses', () => {
    const m = parseAddressList('0.0.0.0/0');
    expect(m.matches(undefined)).toBe(false);
    expect(m.matches('')).toBe(false);
    expect(m.matches('not an ip')).toBe(false);
  });

  it.each([
    'localhost',
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/-1',
    '10.0.0.0/1.5',
    '10.0.0.0/',
    '/8',
    '1.2.3',
    '::ffff:10.0.0.0/104',
    '10.0.0.0/8/9',
  ])('throws on %j, naming the entry', (entry) => {
    expect(() => parseAddressList(`127.0.0.1, ${entry}`)).toThrow(entry);
  });
});

describe('the SIP trunk and the voice', () => {
  it('RINGHOOK_TRUNK_URI with credentials, registration, caller id and voice reach the config', () => {
    const config = loadConfig(
      {
        RINGHOOK_TRUNK_URI: 'sip:sip.provider.example:5060',
        RINGHOOK_TRUNK_USERNAME: 'acct-1234',
        RINGHOOK_TRUNK_PASSWORD: 's3cret!',
        RINGHOOK_TRUNK_REGISTER: 'on',
        RINGHOOK_CALLER_ID: '"Alerts" <+14155550100>',
        RINGHOOK_TTS_ENGINE: 'espeak-ng',
        RINGHOOK_VOICE: 'en-us+f3',
      },
      CWD,
    );
    expect(config.telephony.trunk).toEqual({
      uri: 'sip:sip.provider.example:5060',
      username: 'acct-1234',
      password: 's3cret!',
      register: true,
      transport: 'udp',
      mediaEncryption: 'none',
    });
    expect(config.telephony.callerId).toBe('"Alerts" <+14155550100>');
    expect(config.telephony.tts).toEqual({
      engine: 'espeak-ng',
      voice: 'en-us+f3',
      burstVoice: 'kal',
      japaneseDictionary: 'auto',
    });
  });

  it('a trunk without credentials does not register; no trunk means the local softphone', () => {
    expect(loadConfig({ RINGHOOK_TRUNK_URI: 'sip:127.0.0.1:5070' }, CWD).telephony.trunk).toEqual({
      uri: 'sip:127.0.0.1:5070',
      register: false,
      transport: 'udp',
      mediaEncryption: 'none',
    });
    expect(loadConfig({}, CWD).telephony.trunk).toBeFalsy();
  });

  it('RINGHOOK_TRUNK2_URI with its own credentials is the backup trunk; it needs the first', () => {
    const env = {
      RINGHOOK_TRUNK_URI: 'sip:127.0.0.1:5070',
      RINGHOOK_TRUNK2_URI: 'sip:backup.example.org',
      RINGHOOK_TRUNK2_USERNAME: 'bob',
      RINGHOOK_TRUNK2_PASSWORD: 'b4ckup',
    };
    expect(loadConfig(env, CWD).telephony.trunk2).toEqual({
      uri: 'sip:backup.example.org',
      username: 'bob',
      password: 'b4ckup',
      register: false,
      transport: 'udp',
      mediaEncryption: 'none',
    });
    expect(loadConfig({ RINGHOOK_TRUNK_URI: 'sip:127.0.0.1:5070' }, CWD).telephony.trunk2).toBeNull();
    expect(refusal({ RINGHOOK_TRUNK2_URI: 'sip:backup.example.org' }).message).toMatch(
      /RINGHOOK_TRUNK2_URI is the backup of RINGHOOK_TRUNK_URI/,
    );
    expect(refusal({ ...env, RINGHOOK_TRUNK2_PASSWORD: undefined }).message).toMatch(
      /RINGHOOK_TRUNK2_USERNAME and RINGHOOK_TRUNK2_PASSWORD go together/,
    );
  });

  it('behind NAT: RINGHOOK_SIP_EXTERNAL_ADDRESS (an address or a name) with the local networks, the private ranges by default', () => {
    const sip = loadConfig({ RINGHOOK_SIP_EXTERNAL_ADDRESS: 'home.example.net' }, CWD).telephony.sip;
    expect(sip).toMatchObject({
      externalAddress: 'home.example.net',
      localNets: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '127.0.0.0/8'],
    });
    const own = loadConfig(
      { RINGHOOK_SIP_EXTERNAL_ADDRESS: '203.0.113.7', RINGHOOK_SIP_LOCAL_NET: '192.168.1.77/24, 10.1.0.0/16' },
      CWD,
    ).telephony.sip;
    expect(own).toMatchObject({ externalAddress: '203.0.113.7', localNets: ['192.168.1.0/24', '10.1.0.0/16'] });
    expect(loadConfig({}, CWD).telephony.sip.externalAddress).toBeUndefined();
    expect(loadConfig({ RINGHOOK_STUN_SERVER: 'stun.example.net' }, CWD).telephony.sip.stunServer).toEqual({
      host: 'stun.example.net',
      port: 3478,
    });
    expect(loadConfig({ RINGHOOK_STUN_SERVER: '198.51.100.3:19302' }, CWD).telephony.sip.stunServer).toEqual({
      host: '198.51.100.3',
      port: 19302,
    });
  });

  it.each([
    [
      { RINGHOOK_SIP_EXTERNAL_ADDRESS: 'not an address!' },
      /RINGHOOK_SIP_EXTERNAL_ADDRESS must be the public IPv4 address or host name/,
    ],
    [
      { RINGHOOK_SIP_EXTERNAL_ADDRESS: '192.168.1.10' },
      /must be the public address \(the router's outside one\), not a private or loopback address/,
    ],
    [{ RINGHOOK_SIP_EXTERNAL_ADDRESS: '127.0.0.1' }, /not a private or loopback address/],
    [
      { RINGHOOK_SIP_LOCAL_NET: '192.168.1.0' },
      /RINGHOOK_SIP_LOCAL_NET must be a comma-separated list of IPv4 networks/,
    ],
    [{ RINGHOOK_STUN_SERVER: 'stun://x' }, /RINGHOOK_STUN_SERVER must be host\[:port\] of a STUN server/],
    [{ RINGHOOK_STUN_SERVER: 'stun.example.net:70000' }, /RINGHOOK_STUN_SERVER: the port must be 1-65535/],
    [{ RINGHOOK_SIP_LOCAL_NET: '10.0.0.0/8,300.1.1.1/8' }, /RINGHOOK_SIP_LOCAL_NET must be/],
  ])('refuses a NAT setting %j with the fix', (env, message) => {
    expect(refusal(env).message).toMatch(message);
  });

  it('TLS and SRTP toward the provider: a sips: URI means TLS, the transport and media encryption per trunk, the CA file resolved', () => {
    const t = loadConfig(
      {
        RINGHOOK_TRUNK_URI: 'sips:sip.provider.example',
        RINGHOOK_TRUNK_MEDIA_ENCRYPTION: 'sdes',
        RINGHOOK_TRUNK2_URI: 'sip:backup.example.org',
        RINGHOOK_TRUNK2_TRANSPORT: 'tcp',
        RINGHOOK_TRUNK_CA_FILE: 'certs/provider-ca.pem',
        RINGHOOK_SIP_TLS_PORT: '5071',
      },
      CWD,
    ).telephony;
    expect(t.trunk).toMatchObject({ transport: 'tls', mediaEncryption: 'sdes' });
    expect(t.trunk2).toMatchObject({ transport: 'tcp', mediaEncryption: 'none' });
    expect(t.sip).toMatchObject({ tlsPort: 5071, trunkCaFile: path.join(CWD, 'certs/provider-ca.pem') });
    const plain = loadConfig({ RINGHOOK_TRUNK_URI: 'sip:sip.provider.example' }, CWD).telephony;
    expect(plain.trunk).toMatchObject({ transport: 'udp', mediaEncryption: 'none' });
    expect(plain.sip).toMatchObject({ tlsPort: 5061, trunkCaFile: undefined });
  });

  it.each([
    [
      { RINGHOOK_TRUNK_URI: 'sip:a.example', RINGHOOK_TRUNK_TRANSPORT: 'sctp' },
      /RINGHOOK_TRUNK_TRANSPORT must be udp, tcp or tls/,
    ],
    [
      { RINGHOOK_TRUNK_URI: 'sips:a.example', RINGHOOK_TRUNK_TRANSPORT: 'udp' },
      /sips: URI, which means TLS: leave RINGHOOK_TRUNK_TRANSPORT unset or tls/,
    ],
    [
      { RINGHOOK_TRUNK_URI: 'sip:a.example', RINGHOOK_TRUNK_MEDIA_ENCRYPTION: 'sdes' },
      /sdes sends the SRTP keys inside the SIP signalling: set RINGHOOK_TRUNK_TRANSPORT=tls/,
    ],
    [
      { RINGHOOK_TRUNK_URI: 'sip:a.example', RINGHOOK_TRUNK_MEDIA_ENCRYPTION: 'zrtp' },
      /RINGHOOK_TRUNK_MEDIA_ENCRYPTION must be none, sdes .* or dtls/,
    ],
    [
      {
        RINGHOOK_TRUNK_URI: 'sip:a.example',
        RINGHOOK_TRUNK2_URI: 'sip:b.example',
        RINGHOOK_TRUNK2_MEDIA_ENCRYPTION: 'sdes',
      },
      /RINGHOOK_TRUNK2_MEDIA_ENCRYPTION=sdes sends the SRTP keys/,
    ],
  ])('refuses a trunk security setting %j with the fix', (env, message) => {
    expect(refusal(env).message).toMatch(message);
  });

  it('never repeats a password, token or credential-bearing URL it refuses', () => {
    const message = refusal({
      RINGHOOK_TRUNK_URI: 'sip:a.example',
      RINGHOOK_TRUNK_USERNAME: 'u',
      RINGHOOK_TRUNK_PASSWORD: 'hunter 2',
      RINGHOOK_ARI_URL: 'not a url',
      RINGHOOK_ARI_PASSWORD: 'x',
    }).message;
    expect(message).toMatch(/RINGHOOK_TRUNK_PASSWORD must not contain/);
    expect(message).not.toContain('hunter 2');
    expect(message).toContain('(got "not a url")');
  });

  it.each([
    [{ RINGHOOK_TRUNK_URI: 'http://sip.provider.example' }, /RINGHOOK_TRUNK_URI must look like sip:host/],
    [
      { RINGHOOK_TRUNK_URI: 'sip:a.example', RINGHOOK_TRUNK_USERNAME: 'user' },
      /RINGHOOK_TRUNK_USERNAME and RINGHOOK_TRUNK_PASSWORD go together/,
    ],
    [
      { RINGHOOK_TRUNK_URI: 'sip:a.example', RINGHOOK_TRUNK_REGISTER: 'on' },
      /RINGHOOK_TRUNK_REGISTER=on needs RINGHOOK_TRUNK_USERNAME/,
    ],
    [
      { RINGHOOK_TRUNK_URI: 'sip:a.example', RINGHOOK_TRUNK_USERNAME: 'us er', RINGHOOK_TRUNK_PASSWORD: 'p' },
      /RINGHOOK_TRUNK_USERNAME must not contain spaces/,
    ],
    [
      { RINGHOOK_TRUNK_URI: 'sip:a.example', RINGHOOK_TRUNK_USERNAME: 'u', RINGHOOK_TRUNK_PASSWORD: 'p;w' },
      /RINGHOOK_TRUNK_PASSWORD must not contain/,
    ],
    [{ RINGHOOK_CALLER_ID: 'call me maybe' }, /RINGHOOK_CALLER_ID must be a number/],
    [{ RINGHOOK_VOICE: 'slt; rm -rf /' }, /RINGHOOK_VOICE must be a voice name/],
    // flite would speak an unknown voice in its default one, without a word.
    [
      { RINGHOOK_VOICE: 'stl' },
      /RINGHOOK_VOICE must be one of flite's voices, kal, kal16, awb, awb_time, rms, slt, or a .flitevox file/,
    ],
    [{ RINGHOOK_TTS_ENGINE: 'flite', RINGHOOK_VOICE: 'en-us' }, /RINGHOOK_TTS_ENGINE=espeak-ng/],
    [{ RINGHOOK_TTS_COMMAND: 'piper --model a.onnx\nreboot' }, /RINGHOOK_TTS_COMMAND must be one line/],
    [{ RINGHOOK_TTS_COMMAND: 'x'.repeat(2001) }, /RINGHOOK_TTS_COMMAND must be one line \(at most 2000 characters\)/],
  ])('refuses %j with a precise message', (env, message) => {
    expect(refusal(env).message).toMatch(message);
  });

  it('RINGHOOK_TTS_COMMAND reaches the config as written; unset, the built-in engine alone speaks', () => {
    const command = 'piper --model /opt/voices/en_US-lessac-medium.onnx --output_file /dev/stdout | cat';
    expect(loadConfig({ RINGHOOK_TTS_COMMAND: command }, CWD).telephony.tts).toEqual({
      engine: 'flite',
      voice: undefined,
      command,
      burstVoice: 'kal',
      japaneseDictionary: 'auto',
    });
    expect(loadConfig({}, CWD).telephony.tts.command).toBeUndefined();
  });

  it('RINGHOOK_JA_DICTIONARY: auto by default, off, or an absolute folder; anything else is refused by name', () => {
    expect(loadConfig({}, CWD).telephony.tts.japaneseDictionary).toBe('auto');
    expect(loadConfig({ RINGHOOK_JA_DICTIONARY: 'off' }, CWD).telephony.tts.japaneseDictionary).toBe('off');
    expect(loadConfig({ RINGHOOK_JA_DICTIONARY: '/opt/ipadic' }, CWD).telephony.tts.japaneseDictionary).toBe(
      '/opt/ipadic',
    );
    for (const bad of ['dict', 'yes', '/a\nb'])
      expect(() => loadConfig({ RINGHOOK_JA_DICTIONARY: bad }, CWD)).toThrow(
        /RINGHOOK_JA_DICTIONARY must be auto, off, or the absolute path/,
      );
  });

  it('RINGHOOK_BURST_VOICE: flite kal by default, another flite voice, or off; anything else is refused by name', () => {
    expect(loadConfig({}, CWD).telephony.tts.burstVoice).toBe('kal');
    expect(loadConfig({ RINGHOOK_BURST_VOICE: 'awb' }, CWD).telephony.tts.burstVoice).toBe('awb');
    expect(loadConfig({ RINGHOOK_BURST_VOICE: 'off' }, CWD).telephony.tts.burstVoice).toBeUndefined();
    expect(() => loadConfig({ RINGHOOK_BURST_VOICE: '-o /etc/passwd' }, CWD)).toThrow(
      /RINGHOOK_BURST_VOICE must be one of kal, kal16, awb, rms, slt \(a flite voice\) or off/,
    );
  });
});

describe('RINGHOOK_SECRET_KEY', () => {
  const key = Buffer.from('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff', 'hex');

  it('is unset by default (the key file in the data dir is used)', () => {
    expect(loadConfig({}, CWD).secretKey).toBeUndefined();
  });

  it.each([key.toString('hex'), key.toString('base64'), key.toString('base64url'), ` ${key.toString('hex')} `])(
    'reads 32 bytes from %j',
    (text) => {
      expect(loadConfig({ RINGHOOK_SECRET_KEY: text }, CWD).secretKey?.equals(key)).toBe(true);
    },
  );

  it.each(['secret', key.toString('hex').slice(1), key.subarray(1).toString('base64')])(
    'refuses %j without repeating it',
    (text) => {
      const message = refusal({ RINGHOOK_SECRET_KEY: text }).message;
      expect(message).toMatch(/RINGHOOK_SECRET_KEY must be 32 bytes written as 64 hex characters or base64/);
      expect(message).not.toContain(text);
    },
  );
});

describe('connection caps and the database TLS (config/transport.ts)', () => {
  it('defaults: the total from the open-file limit, 256 per address, the system authorities, unverified refused', () => {
    const config = loadConfig({}, CWD);
    expect(config.connections).toEqual({ total: undefined, perAddress: 256 });
    expect(config.databaseTls).toEqual({ caFile: undefined, allowUnverified: false });
  });

  it('reads them, the CA file relative to the working directory', () => {
    const config = loadConfig(
      {
        RINGHOOK_MAX_CONNECTIONS: '500',
        RINGHOOK_MAX_CONNECTIONS_PER_ADDRESS: '8',
        RINGHOOK_DATABASE_CA_FILE: 'db-ca.pem',
        RINGHOOK_DATABASE_UNVERIFIED: 'on',
      },
      CWD,
    );
    expect(config.connections).toEqual({ total: 500, perAddress: 8 });
    expect(config.databaseTls).toEqual({ caFile: path.join(CWD, 'db-ca.pem'), allowUnverified: true });
  });

  it('refuses values out of range with the variable and its meaning', () => {
    expect(refusal({ RINGHOOK_MAX_CONNECTIONS: '8' }).message).toMatch(
      /RINGHOOK_MAX_CONNECTIONS must be a whole number from 16 to 1000000: open connections of the HTTPS and plain-HTTP listeners together/,
    );
    expect(refusal({ RINGHOOK_MAX_CONNECTIONS_PER_ADDRESS: 'lots' }).message).toMatch(
      /RINGHOOK_MAX_CONNECTIONS_PER_ADDRESS must be a whole number/,
    );
    expect(refusal({ RINGHOOK_DATABASE_UNVERIFIED: 'maybe' }).message).toMatch(/RINGHOOK_DATABASE_UNVERIFIED/);
  });
});
