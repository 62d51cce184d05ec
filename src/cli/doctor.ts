// ringhook doctor: checks every part a call needs and says how to fix what is wrong.
import { defineCommand } from 'citty';
import { commandMeta } from './commands.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { loadConfig, type Config } from '../config/index.js';
import { selfSignedPaths } from '../http/tls.js';
import { silentLogger } from '../lib/log.js';
import { AriClient } from '../pbx/index.js';
import { AriError } from '../pbx/index.js';
import { readProvisionedRuntime } from '../pbx/index.js';
import { buildResidentFlite } from '../speech/index.js';
import { createTts } from '../speech/index.js';
import { TtsError } from '../speech/index.js';
import { loadSmsService } from '../sms/index.js';
import { existingSecret } from '../lib/secret-file.js';
import { secretKeyFile } from '../store/index.js';
import { openStores } from '../app/open-stores.js';
import { clusterView } from '../core/server/cluster-view.js';
import { databaseTls } from '../core/server/database-tls.js';
import { ARI_APP } from '../app/telephony.js';
import { softphoneAddress } from '../config/index.js';
import { isFinal } from '../core/calls/call-state.js';
import { isPhoneSide, reasonText } from '../core/reasons.js';
import { type Check, type CheckResult, fail, pass, skip } from './doctor-result.js';
import { checkNat, checkRegistration, checkTrunkTls } from './doctor-sip.js';
import { printJson } from './output.js';
import { dataDirReady, dataDirText, missingDataDir, noteEarlierInstall } from './data-dir.js';
import { checkAcmeCertificate } from './doctor-acme.js';

export type { CheckResult } from './doctor-result.js';

/** How PostgreSQL is reached, when it is not on this machine. */
function databaseWay(config: Config): string {
  if (!config.databaseUrl) return '';
  const { local, tls } = databaseTls(config.databaseUrl, {
    caFile: config.databaseTls.caFile !== undefined,
    allowUnverified: config.databaseTls.allowUnverified,
  });
  if (local) return '';
  return tls === 'verified'
    ? ' (TLS, certificate verified)'
    : ' (WARNING: certificate not verified, allowed by RINGHOOK_DATABASE_UNVERIFIED=on)';
}

const checkDatabase: Check = async (config) => {
  try {
    // Through the stores, so that a wrong or missing secret key is reported here too.
    const stores = await openStores(config);
    try {
      const accounts = await stores.accounts.count();
      const version = await stores.schemaVersion();
      const view = stores.nodes
        ? clusterView(stores.nodes.nodeId, await stores.nodes.list(), Date.now(), config.nodeTimeoutMs)
        : undefined;
      // What each runs: during a rolling upgrade, which nodes are still to be upgraded.
      const alive =
        view?.nodes
          .filter((n) => n.alive)
          .map((n) => `${n.node} (${n.version === null ? 'older than 009' : `${n.version}, schema ${n.schema}`})`) ??
        [];
      const cluster = view ? `, ${alive.length} node(s) alive: ${alive.join(', ') || 'none'}` : '';
      return pass(
        'database',
        `${stores.kind} ${stores.location}${databaseWay(config)}: schema ${version}, ${accounts} account(s)${cluster}, api_keys sealed with ${config.secretKey ? 'RINGHOOK_SECRET_KEY' : secretKeyFile(config.dataDir)}`,
      );
    } finally {
      await stores.close();
    }
  } catch (error) {
    const message = (error as Error).message;
    return fail(
      'database',
      message,
      /secret key/.test(message)
        ? 'see the message: the secret key must be the one the database was sealed with'
        : /not on this machine|RINGHOOK_DATABASE_CA_FILE|certificate/.test(message)
          ? 'reach PostgreSQL with its certificate verified: sslmode=verify-full in RINGHOOK_DATABASE_URL, RINGHOOK_DATABASE_CA_FILE for a private authority (docs/cluster.md)'
          : config.databaseUrl
            ? 'check RINGHOOK_DATABASE_URL: the server, the user and its password, and that the database exists (createdb)'
            : `check that ${config.dataDir} is writable by this user (RINGHOOK_DATA_DIR)`,
    );
  }
};

const checkCertificate: Check = async (config) => {
  if (config.acme) return checkAcmeCertificate(config);
  const file = config.tls?.cert ?? selfSignedPaths(config.dataDir).cert;
  if (!fs.existsSync(file)) {
    return config.tls
      ? fail('certificate', `${file} does not exist`, 'set RINGHOOK_TLS_CERT to a PEM certificate file')
      : pass(
          'certificate',
          "a self-signed certificate will be made at the first start (charting platforms need a real one: set RINGHOOK_ACME_DOMAIN to this server's public name and ringhook gets one itself)",
        );
  }
  try {
    const cert = new X509Certificate(fs.readFileSync(file));
    const days = Math.floor((Date.parse(cert.validTo) - Date.now()) / 86_400_000);
    const selfSigned = cert.issuer === cert.subject || !config.tls;
    if (days < 0)
      return fail(
        'certificate',
        `${file} expired on ${cert.validTo}`,
        'renew the certificate (RINGHOOK_TLS_CERT / RINGHOOK_TLS_KEY)',
      );
    return pass(
      'certificate',
      `${file}: valid for ${days} more days${selfSigned ? ' (self-signed: TradingView will refuse it)' : ''}`,
    );
  } catch (error) {
    return fail('certificate', `${file}: ${(error as Error).message}`, 'RINGHOOK_TLS_CERT must be a PEM certificate');
  }
};

function ariFor(config: Config): AriClient | null {
  if (config.telephony.mode === 'off') return null;
  const managed = config.telephony.mode === 'managed';
  return new AriClient({
    baseUrl: managed ? `http://127.0.0.1:${config.telephony.ariPort}` : config.ari!.url,
    user: managed ? 'ringhook' : config.ari!.user,
    // doctor makes nothing: with no ari.secret yet, no serve has started Asterisk on this data dir,
    // and the check reports Asterisk as not answering.
    password: managed ? (existingSecret(config.dataDir, 'ari') ?? '') : config.ari!.password,
    app: `${ARI_APP}-doctor`,
    logger: silentLogger,
    requestTimeoutMs: 3_000,
  });
}

const checkAsterisk: Check = async (config) => {
  if (config.telephony.mode === 'off')
    return skip('asterisk', 'RINGHOOK_TELEPHONY=off: alerts are accepted, no call is placed');
  if (config.telephony.mode === 'managed') {
    try {
      const runtime = await readProvisionedRuntime(config.telephony.cacheDir);
      if (runtime.kind === 'rootfs' && !fs.existsSync(path.join(runtime.rootfs, 'usr/sbin/asterisk'))) {
        return fail(
          'asterisk',
          `the root file system ${runtime.rootfs} has no Asterisk`,
          'run: ringhook provision (as root)',
        );
      }
    } catch (error) {
      return fail(
        'asterisk',
        (error as Error).message,
        'run: ringhook provision (as root; npm start does it from a checkout)',
      );
    }
  }
  const ari = ariFor(config)!;
  try {
    const info = await ari.asteriskInfo();
    return pass('asterisk', `Asterisk ${info.system.version} answers on ARI`);
  } catch (error) {
    if (error instanceof AriError && error.status === 401) {
      return fail(
        'asterisk',
        'ARI refused the user name or password (HTTP 401)',
        config.telephony.mode === 'managed'
          ? `the managed Asterisk runs with another password: restart ringhook serve (it writes ${path.join(config.dataDir, 'ari.secret')})`
          : 'set RINGHOOK_ARI_USER and RINGHOOK_ARI_PASSWORD to a user of ari.conf on that Asterisk',
      );
    }
    const where =
      config.telephony.mode === 'managed'
        ? 'is ringhook serve running? (it starts Asterisk)'
        : `is Asterisk running, with http.conf enabled and ARI reachable at ${config.ari!.url}?`;
    return fail('asterisk', `${reasonText('asterisk_down')} ARI: ${(error as Error).message}`, where);
  }
};

/** Without a trunk, calls ring the local softphone: is a phone registered there? */
async function checkSoftphone(config: Config): Promise<CheckResult> {
  const { username } = config.telephony.softphone;
  const where = softphoneAddress(config.telephony);
  try {
    const endpoint = await ariFor(config)!.getEndpoint('PJSIP', username);
    if (endpoint.state === 'online')
      return pass('trunk', `no RINGHOOK_TRUNK_URI: calls ring the local softphone "${username}", which is registered`);
    return fail(
      'trunk',
      `no RINGHOOK_TRUNK_URI, and calls end unreachable: ${reasonText('softphone_not_registered', { softphone: username })}`,
      `register a SIP phone at ${where} as ${username} with the password serve printed (or set RINGHOOK_TRUNK_URI)`,
    );
  } catch (error) {
    return skip(
      'trunk',
      `no RINGHOOK_TRUNK_URI: calls ring the local softphone "${username}" (could not ask Asterisk whether it is registered: ${(error as Error).message})`,
    );
  }
}

const checkTrunk: Check = async (config) => {
  if (config.telephony.mode === 'off') return skip('trunk', 'telephony is off');
  if (!config.telephony.trunk) return checkSoftphone(config);
  try {
    const endpoint = await ariFor(config)!.getEndpoint('PJSIP', 'trunk');
    const registration = config.telephony.trunk.register ? " (registration on: its state is in Asterisk's log)" : '';
    return pass('trunk', `${config.telephony.trunk.uri}: endpoint ${endpoint.state ?? 'unknown'}${registration}`);
  } catch (error) {
    if (error instanceof AriError && error.status === 404) {
      return fail(
        'trunk',
        'Asterisk has no trunk endpoint',
        'restart ringhook serve after setting RINGHOOK_TRUNK_URI (external Asterisk: define a PJSIP endpoint named "trunk")',
      );
    }
    return skip('trunk', `could not ask Asterisk: ${(error as Error).message}`);
  }
};

const checkSpeech: Check = async (config) => {
  if (config.telephony.mode === 'off') return skip('speech', 'telephony is off');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-doctor-'));
  const { engine, voice, burstVoice } = config.telephony.tts;
  const tts = createTts({ cacheDir: dir, engine, ...(voice && { voice }) });
  try {
    const speech = await tts.synthesize('ringhook speech check.');
    const burst =
      burstVoice && (await tts.synthesize('ringhook speech check.', { engine: 'flite', voice: burstVoice }));
    const resident = await buildResidentFlite(config.telephony.cacheDir).then(
      () => 'flite runs resident',
      (error: Error) =>
        `flite starts a process per message, so a burst's speech takes about twice the CPU (the resident flite: ${error.message})`,
    );
    return pass(
      'speech',
      `${engine} made ${speech.durationMs} ms of audio${burst ? `; the burst voice (flite ${burstVoice}) ${burst.durationMs} ms` : ''}; ${resident}`,
    );
  } catch (error) {
    // Installed, but it failed: with a voice of the operator's, most likely that voice.
    const voiceFix =
      error instanceof TtsError && error.code === 'engine_failed' && voice
        ? `check RINGHOOK_VOICE (${voice}): ${engine} may not have it (${engine === 'espeak-ng' ? 'espeak-ng --voices' : 'flite -lv'} lists its voices)`
        : undefined;
    return fail(
      'speech',
      (error as Error).message,
      voiceFix ??
        `install the engines and sox: apt-get install ${engine === 'flite' ? 'flite' : 'flite espeak-ng'} sox (or ringhook provision)`,
    );
  } finally {
    tts.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
};

const checkSms: Check = async (config) => {
  if (config.sms.gateway === 'none') return skip('sms', 'RINGHOOK_SMS_GATEWAY=none: no SMS backup');
  const { createSmsSender } = await loadSmsService();
  const sender = createSmsSender(config.sms, { logger: silentLogger });
  try {
    const result = await sender.check();
    return result.ok
      ? pass('sms', result.detail)
      : fail('sms', result.detail, 'check RINGHOOK_SMS_* / RINGHOOK_SMPP_URL (see docs/sms.md)');
  } finally {
    // The check's result is told already; a link that fails to close dies with this short-lived process.
    await sender.close().catch(() => {});
  }
};

/** Variables set that nothing reads: a misspelled one leaves its setting at the default without a word. */
async function checkVariables(config: Config): Promise<CheckResult> {
  if (config.unknownVariables.length === 0)
    return pass('variables', 'every RINGHOOK_ variable set is one ringhook reads');
  return fail(
    'variables',
    `not read by ringhook, so ignored: ${config.unknownVariables.join(', ')}`,
    'rename or remove them (docs/configuration.md lists every variable)',
  );
}

/** States of a call that reached its person, or was never meant to be placed. */
const REACHED = new Set(['completed', 'acknowledged', 'voicemail', 'unconfirmed']);

/** The last call placed and how it ended, in the words of its history: a failure says what to do. */
const checkLastCall: Check = async (config) => {
  try {
    const stores = await openStores(config);
    try {
      const last = (await stores.calls.list({ limit: 50 })).find((c) => c.accepted && isFinal(c.status));
      if (!last) return skip('last-call', 'no call has ended yet');
      const said = `the last call (${new Date(last.receivedAt).toISOString()}, ${last.callId}) ended ${last.status}`;
      if (REACHED.has(last.status) || !last.error) return pass('last-call', said);
      // The phone's own answers (busy, switched off…) are no fault of the set-up; a provider refusing ringhook (also `rejected`) is.
      if (isPhoneSide(last.error)) return pass('last-call', `${said}: ${last.error}`);
      return fail('last-call', `${said}${last.reasonDetail ? ` (${last.reasonDetail})` : ''}`, last.error);
    } finally {
      await stores.close();
    }
  } catch (error) {
    return skip('last-call', `could not read the history: ${(error as Error).message}`);
  }
};

/** Whether the webhook takes alerts from anyone (the seed's rule) or only from allowed sources (#41). */
const checkWebhookDoor: Check = async (config) => {
  const server = config.webhookSources;
  const said = server.any
    ? 'open to any address (RINGHOOK_WEBHOOK_SOURCES not set)'
    : `on for every account: alerts only from ${server.describe()} (RINGHOOK_WEBHOOK_SOURCES=${server.text})`;
  // The server's rule is said whatever the data dir; its accounts' own rules only from a database.
  if (!dataDirReady(config)) return pass('webhook door', said);
  try {
    const stores = await openStores(config);
    try {
      const narrowed = (await stores.accounts.list()).filter((a) => a.webhookSources !== 'any').length;
      return pass('webhook door', narrowed === 0 ? said : `${said}; ${narrowed} account(s) allow only their --sources`);
    } finally {
      await stores.close();
    }
  } catch {
    return pass('webhook door', said);
  }
};

/** Which data dir, and why that one: a command typed in another folder opens this same one. */
const checkDataDir: Check = async (config) =>
  dataDirReady(config)
    ? pass('data dir', dataDirText(config))
    : fail(
        'data dir',
        missingDataDir(config).message.replace(/: nothing made.*$/, ''),
        "set RINGHOOK_DATA_DIR to serve's data dir, or make this one with ringhook account create",
      );

/** With no database in the data dir, the checks that would open (and so make) one are skipped. */
const needsDatabase =
  (check: Check, name: string): Check =>
  async (config) =>
    dataDirReady(config) ? check(config) : skip(name, 'no database in the data dir yet (see the data dir check)');

export async function runChecks(config: Config): Promise<CheckResult[]> {
  const checks = [
    checkDataDir,
    checkVariables,
    needsDatabase(checkDatabase, 'database'),
    config.acme ? needsDatabase(checkCertificate, 'certificate') : checkCertificate,
    checkAsterisk,
    checkTrunk,
    checkRegistration,
    checkTrunkTls,
    checkNat,
    checkSpeech,
    checkSms,
  ];
  const results = await Promise.all(checks.map((check) => check(config)));
  // After the database check, which may have made or migrated the store.
  return [...results, await needsDatabase(checkLastCall, 'last-call')(config), await checkWebhookDoor(config)];
}

export const doctorCommand = defineCommand({
  meta: commandMeta('doctor'),
  args: { json: { type: 'boolean', description: 'Print machine-readable JSON', default: false } },
  run: async ({ args }) => {
    const config = loadConfig();
    noteEarlierInstall(config);
    // doctor makes nothing: a data dir that is not there fails its check, and the checks that would
    // open the database are skipped; the others (Asterisk, trunk, NAT, speech, SMS) still run.
    const results = await runChecks(config);
    if (args.json) printJson(results);
    else {
      for (const r of results) {
        const mark = r.ok === true ? 'ok  ' : r.ok === 'skipped' ? 'skip' : 'FAIL';
        process.stdout.write(`${mark}  ${r.name.padEnd(12)} ${r.detail}\n`);
        if (r.fix) process.stdout.write(`      ${''.padEnd(12)} fix: ${r.fix}\n`);
      }
    }
    if (results.some((r) => r.ok === false)) process.exitCode = 1;
  },
});
