// A SIP provider for the network lab: a second Asterisk, from the same provisioned root file
// system but with a configuration of its own, run in the provider's network namespace. It is the
// registrar (digest auth for one account) and the phone network: a call to any number is
// answered, what the phone hears is recorded, and two seconds later the phone presses 1 (RFC 4733).
// Over TLS it presents the certificate it is given; with SDES it takes SRTP only.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asteriskCommand } from '../../src/pbx/asterisk-runtime.js';
import { asteriskCli, provisionAsterisk } from './asterisk.js';
import { waitFor } from './wait.js';
import { readPcm16 } from './wav.js';

export interface SipProviderOptions {
  /** The command prefix that runs a program in the provider's namespace. */
  inside: string[];
  address: string;
  account: { username: string; password: string };
  /** Listen for TLS on 5061 with this certificate (PEM files). */
  tls?: { certFile: string; keyFile: string };
  /** sdes: the phone takes SRTP only. */
  mediaEncryption?: 'none' | 'sdes';
}

export interface SipProvider {
  dir: string;
  cli(command: string): Promise<string>;
  /** The recordings of what the phone heard, one WAV a call. */
  recordings(): string[];
  /** Asterisk's log of the provider, for a failure's message. */
  log(): string;
  stop(): Promise<void>;
}

const MODULES = [
  'res_timing_timerfd',
  'res_sorcery_config',
  'res_sorcery_memory',
  'res_sorcery_astdb',
  'pbx_config',
  'res_pjproject',
  'res_pjsip',
  'res_pjsip_session',
  'res_pjsip_pubsub',
  'chan_pjsip',
  'res_pjsip_authenticator_digest',
  'res_pjsip_endpoint_identifier_user',
  'res_pjsip_registrar',
  'res_pjsip_sdp_rtp',
  'res_pjsip_nat',
  'res_pjsip_logger',
  'res_rtp_asterisk',
  'res_srtp',
  'codec_ulaw',
  'format_wav',
  'format_pcm',
  'app_mixmonitor',
  'app_senddtmf',
];

function configFiles(dir: string, o: SipProviderOptions): Record<string, string> {
  const { username, password } = o.account;
  const srtp = o.mediaEncryption === 'sdes' ? 'media_encryption = sdes\nmedia_encryption_optimistic = no\n' : '';
  const tls = o.tls
    ? `[tls]\ntype = transport\nprotocol = tls\nbind = ${o.address}:5061\ncert_file = ${o.tls.certFile}\npriv_key_file = ${o.tls.keyFile}\nmethod = tlsv1_2\n\n`
    : '';
  return {
    'asterisk.conf': `[directories]
astetcdir => ${dir}/etc
astvarlibdir => ${dir}/lib
astdbdir => ${dir}/lib
astkeydir => ${dir}/lib
astspooldir => ${dir}/spool
astrundir => ${dir}/run
astlogdir => ${dir}/log

[options]
verbose = 3
dumpcore = no
lockconfdir = no
`,
    'modules.conf': `[modules]\nautoload = no\n${MODULES.map((m) => `load => ${m}.so`).join('\n')}\n`,
    'logger.conf': '[logfiles]\nmessages.log => notice,warning,error,verbose\n',
    'rtp.conf': '[general]\nrtpstart = 16000\nrtpend = 16999\n',
    'pjsip.conf': `[global]
type = global
user_agent = lab-provider

[udp]
type = transport
protocol = udp
bind = ${o.address}:5060

${tls}[${username}]
type = endpoint
context = phones
disallow = all
allow = ulaw
auth = ${username}-auth
aors = ${username}
direct_media = no
rtp_symmetric = yes
force_rport = yes
rewrite_contact = yes
dtmf_mode = rfc4733
${srtp}
[${username}-auth]
type = auth
auth_type = userpass
username = ${username}
password = ${password}

[${username}]
type = aor
max_contacts = 1
remove_existing = yes
`,
    'extensions.conf': `[phones]
exten => _+X.,1,Goto(\${EXTEN:1},1)
exten => _X.,1,Answer()
 same => n,MixMonitor(${dir}/heard/\${EXTEN}-\${UNIQUEID}.wav)
 same => n,Wait(2)
 same => n,SendDTMF(1)
 same => n,Wait(20)
 same => n,Hangup()
`,
  };
}

export async function startSipProvider(options: SipProviderOptions): Promise<SipProvider> {
  const runtime = await provisionAsterisk();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-provider-'));
  for (const sub of ['etc', 'lib', 'spool', 'run', 'log', 'heard']) fs.mkdirSync(path.join(dir, sub));
  for (const [name, text] of Object.entries(configFiles(dir, options)))
    fs.writeFileSync(path.join(dir, 'etc', name), text);
  const binds = [dir, ...(options.tls ? [path.dirname(options.tls.certFile)] : [])];
  const { file, args } = asteriskCommand(runtime, path.join(dir, 'etc', 'asterisk.conf'), [...new Set(binds)]);
  const child: ChildProcess = spawn(options.inside[0]!, [...options.inside.slice(1), file, ...args], {
    stdio: 'ignore',
  });
  const target = { pid: child.pid, runDir: dir };
  const log = () => {
    try {
      return fs.readFileSync(path.join(dir, 'log', 'messages.log'), 'utf8');
    } catch {
      return '(no log)';
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    // The empty mount points left in the root file system, as the managed Asterisk removes its own.
    if (runtime.kind === 'rootfs') {
      for (const bound of binds) {
        try {
          fs.rmdirSync(path.join(runtime.rootfs, bound));
        } catch {
          // Already gone, or not empty: left alone.
        }
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      'the lab provider Asterisk fully booted',
      async () => {
        if (child.exitCode !== null) throw new Error(`the provider's Asterisk exited: ${log().slice(-2000)}`);
        // No console socket yet: nothing to ask (each asterisk -rx is a process start).
        if (!fs.existsSync(path.join(dir, 'run', 'asterisk.ctl'))) return undefined;
        return (await asteriskCli(target, 'core waitfullybooted', 5_000).catch(() => '')).includes('fully booted')
          ? true
          : undefined;
      },
      30_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    dir,
    cli: (command) => asteriskCli(target, command),
    recordings: () => fs.readdirSync(path.join(dir, 'heard')).map((f) => path.join(dir, 'heard', f)),
    log,
    stop,
  };
}

/** Root-mean-square level of a 16-bit mono PCM WAV, 0 to 1. */
export function wavRms(file: string): number {
  const { samples } = readPcm16(file);
  let sum = 0;
  for (const sample of samples) sum += (sample / 32768) ** 2;
  return samples.length === 0 ? 0 : Math.sqrt(sum / samples.length);
}

/** A certificate authority and a server certificate for an IP address, made with openssl. */
export function makeCertificates(
  dir: string,
  name: string,
  address: string,
): { caFile: string; certFile: string; keyFile: string } {
  const f = (ext: string) => path.join(dir, `${name}-${ext}`);
  const ssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  ssl(
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
      `/CN=${name} lab CA`,
    ].concat(['-keyout', f('ca.key'), '-out', f('ca.pem')]),
  );
  ssl([
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    `/CN=${address}`,
    '-keyout',
    f('key.pem'),
    '-out',
    f('csr.pem'),
  ]);
  fs.writeFileSync(f('ext.cnf'), `subjectAltName = IP:${address}\nextendedKeyUsage = serverAuth\n`);
  ssl([
    'x509',
    '-req',
    '-in',
    f('csr.pem'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('ext.cnf'),
    '-out',
    f('cert.pem'),
  ]);
  return { caFile: f('ca.pem'), certFile: f('cert.pem'), keyFile: f('key.pem') };
}
