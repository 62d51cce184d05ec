// The shipped reverse-proxy examples (deploy/Caddyfile, deploy/nginx.conf) run for real in front of
// a test ringhook. Each file is read as shipped and changed only where a local test must differ:
// the site address / server_name, the listening ports (loopback only), the certificate (a
// self-signed one made here), the log destinations and the upstream port. Every replacement must
// match exactly once, so a reshaped example fails here instead of being tested half-adapted.
// stop() ends exactly the processes started here (nginx: its master, then any worker left).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from './https-client.js';
import { freeTcpPort } from './ports.js';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const SHIPPED_CADDYFILE = path.join(REPO_ROOT, 'deploy', 'Caddyfile');
export const SHIPPED_NGINX_CONF = path.join(REPO_ROOT, 'deploy', 'nginx.conf');
const CADDY = '/usr/bin/caddy';
const NGINX = '/usr/sbin/nginx';

export type ProxyKind = 'caddy' | 'nginx';

export interface RunningProxy {
  kind: ProxyKind;
  /** https://127.0.0.1:<port>, the public URL ringhook is told about. */
  url: string;
  port: number;
  /** The proxy's self-signed certificate, to pin as CA. */
  ca: string;
  /** nginx: the shipped port-80 server (redirect to https), on a free port. */
  plainUrl: string | null;
  /** The configuration as run (adapted). */
  config: string;
  /** Access log lines so far. */
  accessLog(): string[];
  /** Everything else the proxy logged (Caddy's other loggers, nginx's error_log). */
  otherLogs(): string;
  stop(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 (and localhost), valid for two days. */
export function makeCertificate(dir: string): { cert: string; key: string } {
  const cert = path.join(dir, 'proxy-cert.pem');
  const key = path.join(dir, 'proxy-key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { cert, key };
}

/** Replaces `from` (which must occur exactly once) by `to`. */
function replaceOnce(text: string, from: string | RegExp, to: string, what: string): string {
  const pattern =
    typeof from === 'string'
      ? new RegExp(from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g')
      : new RegExp(from.source, from.flags.includes('g') ? from.flags : `${from.flags}g`);
  const count = [...text.matchAll(pattern)].length;
  if (count !== 1)
    throw new Error(
      `adapting the shipped ${what}: expected ${String(from)} once, found it ${count} times; the example changed shape, update test/helpers/reverse-proxy.ts`,
    );
  return text.replace(pattern, () => to);
}

export interface CaddyAdaptation {
  port: number;
  upstreamPort: number;
  cert: string;
  key: string;
}

/**
 * The shipped Caddyfile for a local run. Added: a global options block (no admin endpoint, so that
 * no fixed port 2019 is needed; no HTTP->HTTPS redirect listener on port 80; HTTP/1 and 2 only, so
 * that no UDP port is bound), and, in the site, `bind 127.0.0.1` and `tls <cert> <key>` instead of
 * a certificate from a public CA. Changed: the site address and the upstream port. The log block is
 * kept as shipped (output stderr, which the test captures).
 */
export function adaptCaddyfile(shipped: string, a: CaddyAdaptation): string {
  let text = shipped;
  text = replaceOnce(
    text,
    /^alerts\.example\.com \{$/m,
    `https://127.0.0.1:${a.port} {\n\t# test: loopback only, a self-signed certificate\n\tbind 127.0.0.1\n\ttls ${a.cert} ${a.key}\n`,
    'Caddyfile (site address)',
  );
  text = replaceOnce(
    text,
    /reverse_proxy 127\.0\.0\.1:8080 \{/,
    `reverse_proxy 127.0.0.1:${a.upstreamPort} {`,
    'Caddyfile (upstream)',
  );
  // The shipped global options block (its default-log filter) gets the test's options too.
  return replaceOnce(
    text,
    /^\{\n/m,
    '{\n\t# test: global options for a local run\n\tadmin off\n\tauto_https disable_redirects\n\tservers {\n\t\tprotocols h1 h2\n\t}\n',
    'Caddyfile (global options)',
  );
}

export interface NginxAdaptation {
  port: number;
  plainPort: number;
  upstreamPort: number;
  cert: string;
  key: string;
  accessLog: string;
  /** Where the servers' own error_log goes. */
  errorLog: string;
}

/**
 * The shipped nginx.conf for a local run. Changed: the listen directives (IPv4 loopback on free
 * ports; the IPv6 ones are dropped), server_name, the certificate paths, the access_log file (its
 * `ringhook` format kept), and the upstream port. Everything else is as shipped.
 */
export function adaptNginxConf(shipped: string, a: NginxAdaptation): string {
  let text = shipped;
  text = replaceOnce(text, /^\s*listen 80;$/m, `    listen 127.0.0.1:${a.plainPort};`, 'nginx.conf (listen 80)');
  text = replaceOnce(text, /^\s*listen \[::\]:80;\n/m, '', 'nginx.conf (listen [::]:80)');
  text = replaceOnce(text, /^\s*listen 443 ssl;$/m, `    listen 127.0.0.1:${a.port} ssl;`, 'nginx.conf (listen 443)');
  text = replaceOnce(text, /^\s*listen \[::\]:443 ssl;\n/m, '', 'nginx.conf (listen [::]:443)');
  // Two servers name the site: both become the loopback address.
  const names = [...text.matchAll(/server_name alerts\.example\.com;/g)].length;
  if (names !== 2) throw new Error(`adapting the shipped nginx.conf: expected 2 server_name lines, found ${names}`);
  text = text.replaceAll('server_name alerts.example.com;', 'server_name 127.0.0.1;');
  const logs = [...text.matchAll(/access_log \/var\/log\/nginx\/ringhook\.access\.log ringhook;/g)].length;
  if (logs !== 2)
    throw new Error(
      `adapting the shipped nginx.conf: expected 2 access_log lines with the ringhook format, found ${logs}`,
    );
  text = text.replaceAll(
    'access_log /var/log/nginx/ringhook.access.log ringhook;',
    `access_log ${a.accessLog} ringhook;`,
  );
  const errorLogs = [...text.matchAll(/error_log \/var\/log\/nginx\/ringhook\.error\.log crit;/g)].length;
  if (errorLogs !== 2)
    throw new Error(`adapting the shipped nginx.conf: expected 2 error_log lines at crit, found ${errorLogs}`);
  text = text.replaceAll('error_log /var/log/nginx/ringhook.error.log crit;', `error_log ${a.errorLog} crit;`);
  text = replaceOnce(
    text,
    'ssl_certificate     /etc/letsencrypt/live/alerts.example.com/fullchain.pem;',
    `ssl_certificate     ${a.cert};`,
    'nginx.conf (certificate)',
  );
  text = replaceOnce(
    text,
    'ssl_certificate_key /etc/letsencrypt/live/alerts.example.com/privkey.pem;',
    `ssl_certificate_key ${a.key};`,
    'nginx.conf (key)',
  );
  text = replaceOnce(text, 'server 127.0.0.1:8080;', `server 127.0.0.1:${a.upstreamPort};`, 'nginx.conf (upstream)');
  return text;
}

/** The main nginx.conf around the site file, as /etc/nginx/nginx.conf includes sites-enabled. */
export function nginxWrapper(dir: string, site: string): string {
  const temp = (name: string) => path.join(dir, 'temp', name);
  return [
    'daemon off;',
    'master_process on;',
    'worker_processes 1;',
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'error.log')};`,
    'events {}',
    'http {',
    `    client_body_temp_path ${temp('body')};`,
    `    proxy_temp_path ${temp('proxy')};`,
    `    fastcgi_temp_path ${temp('fastcgi')};`,
    `    uwsgi_temp_path ${temp('uwsgi')};`,
    `    scgi_temp_path ${temp('scgi')};`,
    `    include ${site};`,
    '}',
    '',
  ].join('\n');
}

function need(binary: string, pkg: string): void {
  if (!fs.existsSync(binary))
    throw new Error(`${binary} is missing: run scripts/provision-test-peers.sh (Debian package ${pkg})`);
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Ends the process (SIGTERM, then SIGKILL after 15 s) and any child it leaves behind (nginx's workers). */
async function endProcess(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const children = childPids(pid);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited(child);
    clearTimeout(timer);
  }
  for (const c of children) {
    const deadline = Date.now() + 10_000;
    while (alive(c) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (alive(c)) process.kill(c, 'SIGKILL');
  }
}

async function waitUntilServing(proxyUrl: string, ca: string, child: ChildProcess, logs: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = '';
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the proxy exited (${child.exitCode ?? child.signalCode}):\n${logs()}`);
    try {
      const res = await request(`${proxyUrl}/healthz`, { method: 'GET', ca });
      if (res.status === 200) return;
      last = `${res.status} ${res.text}`;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(`the proxy did not forward /healthz within 30 s (last: ${last}):\n${logs()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const readOr = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

/** Starts the proxy on 127.0.0.1:`port` (HTTPS) in front of ringhook's plain port; resolves once it forwards /healthz. */
export async function startProxy(
  kind: ProxyKind,
  ports: { port: number; upstreamPort: number },
): Promise<RunningProxy> {
  const { port, upstreamPort } = ports;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ringhook-${kind}-`));
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });
  const { cert, key } = makeCertificate(dir);
  const ca = fs.readFileSync(cert, 'utf8');
  const url = `https://127.0.0.1:${port}`;
  if (kind === 'caddy') {
    need(CADDY, 'caddy');
    const config = adaptCaddyfile(fs.readFileSync(SHIPPED_CADDYFILE, 'utf8'), { port, upstreamPort, cert, key });
    const file = path.join(dir, 'Caddyfile');
    fs.writeFileSync(file, config);
    const output = path.join(dir, 'caddy.stderr');
    const out = fs.openSync(output, 'a');
    // Caddy keeps its state under XDG_DATA_HOME and XDG_CONFIG_HOME (autosave.json): the temp dir.
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      XDG_DATA_HOME: path.join(dir, 'data'),
      XDG_CONFIG_HOME: path.join(dir, 'config'),
    };
    const child = spawn(CADDY, ['run', '--config', file, '--adapter', 'caddyfile'], {
      cwd: dir,
      env,
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    // Caddy's stderr: JSON lines of every logger; the access log is the site's (http.log.access.*).
    const all = () => lines(readOr(output));
    const isAccess = (l: string) => /"logger":"http\.log\.access\b/.test(l);
    const proxy: RunningProxy = {
      kind,
      url,
      port,
      ca,
      plainUrl: null,
      config,
      accessLog: () => all().filter(isAccess),
      otherLogs: () =>
        all()
          .filter((l) => !isAccess(l))
          .join('\n'),
      stop: async () => {
        await endProcess(child);
        removeDir();
      },
    };
    try {
      await waitUntilServing(url, ca, child, () => readOr(output));
    } catch (error) {
      await proxy.stop();
      throw error;
    }
    return proxy;
  }
  need(NGINX, 'nginx');
  const plainPort = await freeTcpPort();
  const accessLog = path.join(dir, 'ringhook.access.log');
  const errorLog = path.join(dir, 'error.log');
  const siteErrorLog = path.join(dir, 'ringhook.error.log');
  const config = adaptNginxConf(fs.readFileSync(SHIPPED_NGINX_CONF, 'utf8'), {
    port,
    plainPort,
    upstreamPort,
    cert,
    key,
    accessLog,
    errorLog: siteErrorLog,
  });
  const site = path.join(dir, 'ringhook.conf');
  fs.writeFileSync(site, config);
  const main = path.join(dir, 'nginx.conf');
  fs.writeFileSync(main, nginxWrapper(dir, site));
  // The workers may run as another user (nobody, when the master is root): they must write here.
  fs.mkdirSync(path.join(dir, 'temp'), { mode: 0o777 });
  fs.chmodSync(path.join(dir, 'temp'), 0o777);
  const child = spawn(NGINX, ['-p', dir, '-c', main, '-e', errorLog], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const proxy: RunningProxy = {
    kind,
    url,
    port,
    ca,
    plainUrl: `http://127.0.0.1:${plainPort}`,
    config,
    accessLog: () => lines(readOr(accessLog)),
    otherLogs: () => readOr(errorLog) + readOr(siteErrorLog) + stderr,
    stop: async () => {
      await endProcess(child);
      removeDir();
    },
  };
  try {
    await waitUntilServing(url, ca, child, () => `${stderr}\n${readOr(errorLog)}`);
  } catch (error) {
    await proxy.stop();
    throw error;
  }
  return proxy;
}
