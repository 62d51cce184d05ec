// The ACME variables: names checked, the standard ports and the public URL that follow from them,
// and the combinations that cannot work refused with the variable to fix.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';

const base = { RINGHOOK_DATA_DIR: '/tmp/rh-acme-config', RINGHOOK_TELEPHONY: 'off' };

describe('ACME configuration', () => {
  it('one or more names make serve listen on 443 and 80, with the first name in the public URL, from Let’s Encrypt by default', () => {
    const config = loadConfig({
      ...base,
      RINGHOOK_ACME_DOMAIN: 'Alerts.Example.com, www.example.com',
      RINGHOOK_ACME_EMAIL: 'me@example.com',
    });
    expect(config.acme).toEqual({
      domains: ['alerts.example.com', 'www.example.com'],
      email: 'me@example.com',
      directory: 'https://acme-v02.api.letsencrypt.org/directory',
      caFile: undefined,
    });
    expect(config.port).toBe(443);
    expect(config.httpPort).toBe(80);
    expect(config.publicUrl).toBe('https://alerts.example.com');
  });

  it('keeps ports the operator set (behind a port mapping), the public URL still on 443', () => {
    const config = loadConfig(
      {
        ...base,
        RINGHOOK_ACME_DOMAIN: 'alerts.example.com',
        RINGHOOK_PORT: '8443',
        RINGHOOK_HTTP_PORT: '8080',
        RINGHOOK_ACME_CA_FILE: 'ca.pem',
      },
      '/srv',
    );
    expect([config.port, config.httpPort, config.publicUrl]).toEqual([8443, 8080, 'https://alerts.example.com']);
    expect(config.acme?.caFile).toBe('/srv/ca.pem');
  });

  it('without ACME the defaults stay 8443 and no plain-HTTP port', () => {
    const config = loadConfig(base);
    expect([config.acme, config.port, config.httpPort]).toEqual([null, 8443, null]);
  });

  it.each([
    [{ RINGHOOK_ACME_DOMAIN: '*.example.com' }, 'RINGHOOK_ACME_DOMAIN must be one or more DNS names'],
    [{ RINGHOOK_ACME_DOMAIN: '203.0.113.7' }, 'RINGHOOK_ACME_DOMAIN must be one or more DNS names'],
    [
      { RINGHOOK_ACME_DOMAIN: 'alerts.example.com', RINGHOOK_ACME_EMAIL: 'nobody' },
      'RINGHOOK_ACME_EMAIL must be an email address',
    ],
    [
      { RINGHOOK_ACME_DOMAIN: 'alerts.example.com', RINGHOOK_ACME_DIRECTORY: 'http://acme.example/dir' },
      'RINGHOOK_ACME_DIRECTORY must be the https:// URL',
    ],
    [{ RINGHOOK_ACME_EMAIL: 'me@example.com' }, 'RINGHOOK_ACME_EMAIL is used only with RINGHOOK_ACME_DOMAIN'],
    [
      { RINGHOOK_ACME_DOMAIN: 'alerts.example.com', RINGHOOK_TLS_CERT: 'c.pem', RINGHOOK_TLS_KEY: 'k.pem' },
      'set one or the other',
    ],
    [
      { RINGHOOK_ACME_DOMAIN: 'alerts.example.com', RINGHOOK_PORT: '80' },
      'RINGHOOK_HTTP_PORT must differ from RINGHOOK_PORT',
    ],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });
});
