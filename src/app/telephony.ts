// Telephony for `serve`: the Asterisk (managed or external), our ARI client, speech, the dialer
// and the SMS backup, started together and stopped in order.
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';
import type { ServiceDeps } from '../store/deps.js';
import type { Account } from '../core/account.js';
import { testCallMessage } from '../core/test-call.js';
import type { CallProgressRepo } from '../store/contract.js';
import { isPrivateIpv4 } from '../core/network.js';
import { mediaModes } from '../core/media-modes.js';
import { UserError } from '../lib/errors.js';
import type { TestCallResult } from '../core/test-call.js';
import { persistentSecret, readOrCreateSecret } from '../lib/secret-file.js';
import { requestTestCall } from './test-call-request.js';
import type { Logger } from '../lib/log.js';
import type { Metrics } from '../lib/metrics.js';
import { AriClient } from '../pbx/ari.js';
import { asteriskTemplates, ManagedAsterisk } from '../pbx/asterisk.js';
import { asteriskPathProblem } from '../pbx/asterisk-config.js';
import { type AsteriskRuntime, readProvisionedRuntime } from '../pbx/asterisk-runtime.js';
import { DEFAULT_SPEECH, type CallSpeech } from '../core/languages.js';
import { callPhrases, type SpokenCall } from '../core/spoken-call.js';
import { burstSynthesis } from '../core/speech-plan.js';
import { publicAddressFromStun } from '../pbx/stun-client.js';
import { CALL_EVENTS, Dialer, type JustQueued } from '../calls/index.js';
import { throughTrunk, toSoftphone, type Endpoint } from '../pbx/endpoint.js';
import { speechSampler, type SpokenAudio } from '../speech/speech-sample.js';
import { createTts } from '../speech/tts.js';
import { prepareMediaDir } from '../speech/media-dir.js';
import { SmsBackup } from '../sms/backup.js';
import { SmsHealth } from '../sms/health.js';
import { createSmsSender, type SmsSender } from '../sms/index.js';
import { withReceiptToken } from '../sms/receipts.js';

export const ARI_APP = 'ringhook';
/** Synthesized speech not used for this many days is deleted. */
const SPEECH_CACHE_DAYS = 7;

export interface TelephonyDeps extends ServiceDeps {
  metrics?: Metrics;
}

export interface Telephony {
  ari: AriClient;
  asterisk: ManagedAsterisk | null;
  dialer: Dialer;
  sms: SmsSender;
  smsBackup: SmsBackup;
  /** The SMS gateway's state for /healthz, checked at most every 10 s. */
  smsHealth: SmsHealth;
  progress: CallProgressRepo;
  softphone: Softphone | null;
  /** The token the SMS gateway's receipt URL carries; null when no delivery reports are asked. */
  smsReceiptToken: string | null;
  /** Dial an accepted alert: the record the webhook read (not read again), or the id of one queued in the store. */
  enqueue(alert: string | JustQueued): void;
  placeTestCall(account: Account): Promise<TestCallResult>;
  /** A short WAV of what the account's calls sound like: its intro and a sample alert, in its language and voice. */
  speechSample(phrases: SpokenCall, speech: CallSpeech): Promise<SpokenAudio>;
  stop(graceMs?: number): Promise<void>;
}

/**
 * The local extension's credentials. Where the password comes from decides whether serve prints
 * it: one made on this start is shown once; one kept from before is not printed again (serve's
 * output ends up in journald and `docker logs`, readable by more people than the data dir).
 */
export interface Softphone {
  username: string;
  password: string;
  passwordFrom: 'environment' | 'made now' | 'kept';
  /** Where a password ringhook made is kept (null when it comes from the environment). */
  secretFile: string | null;
}

function managedSoftphone(config: Config): Softphone {
  const { username, password } = config.telephony.softphone;
  if (password) return { username, password, passwordFrom: 'environment', secretFile: null };
  const secret = readOrCreateSecret(config.dataDir, 'softphone');
  return {
    username,
    password: secret.value,
    passwordFrom: secret.created ? 'made now' : 'kept',
    secretFile: secret.file,
  };
}

/** The secret the SMS receipt URL carries (made once, kept in the data dir); null when no receipts are asked. */
export function smsReceiptToken(config: Pick<Config, 'dataDir' | 'sms'>): string | null {
  return config.sms.gateway === 'http' && config.sms.dlrUrl ? persistentSecret(config.dataDir, 'sms-receipt') : null;
}

/** Where a LAN softphone registers to the managed Asterisk, as the user is told it. */
export function softphoneAddress(config: Config['telephony']): string {
  return `sip:${config.sip.host === '0.0.0.0' ? '<this machine>' : config.sip.host}:${config.sip.port}`;
}

/** The ARI endpoint for a number: through the trunk when there is one, else the local softphone. */
export function endpointFor(config: Config['telephony']): (phone: string) => Endpoint {
  const softphone = toSoftphone(config.softphone.username);
  return config.trunk ? (phone) => throughTrunk(phone) : () => softphone;
}

/** Where a call the first trunk did not take goes out once more: the backup trunk, when set. */
export function backupEndpointFor(config: Config['telephony']): ((phone: string) => Endpoint) | undefined {
  return config.trunk && config.trunk2 ? (phone) => throughTrunk(phone, 'trunk2') : undefined;
}

async function startManagedAsterisk(
  config: Config,
  logger: Logger,
  mediaDir: string,
  softphone: Softphone,
): Promise<ManagedAsterisk> {
  const t = config.telephony;
  const runDir = path.join(config.dataDir, 'asterisk');
  const runDirProblem = asteriskPathProblem(runDir);
  if (runDirProblem) {
    throw new UserError(
      `RINGHOOK_DATA_DIR (${config.dataDir}) cannot hold Asterisk's folder: ${runDir} ${runDirProblem}; choose a data dir such as /var/lib/ringhook`,
    );
  }
  let runtime: AsteriskRuntime;
  try {
    runtime = await readProvisionedRuntime(t.cacheDir);
  } catch (error) {
    throw new UserError(
      `${(error as Error).message} (npm start does it from a checkout; or set RINGHOOK_ARI_URL to use an Asterisk of your own, or RINGHOOK_TELEPHONY=off)`,
    );
  }
  const externalAddress =
    t.sip.externalAddress ?? (t.sip.stunServer && (await externalAddressFromStun(t.sip.stunServer, logger)));
  const asterisk = new ManagedAsterisk({
    runtime,
    dataDir: config.dataDir,
    mediaDir,
    templates: asteriskTemplates(),
    config: {
      http: { port: t.ariPort },
      // Kept in the data dir so that `ringhook doctor` can talk to the running Asterisk.
      ari: { user: 'ringhook', password: persistentSecret(config.dataDir, 'ari') },
      sip: {
        bindAddress: t.sip.host,
        port: t.sip.port,
        tlsPort: t.sip.tlsPort,
        ...(externalAddress && { externalAddress, localNets: t.sip.localNets }),
        ...(t.sip.trunkCaFile && { caPem: readTrunkCa(t.sip.trunkCaFile) }),
      },
      rtp: t.rtp,
      ...(t.trunk && { trunk: t.trunk }),
      ...(t.trunk2 && { trunk2: t.trunk2 }),
      softphone,
    },
    logger: logger.child({ component: 'asterisk' }),
  });
  try {
    await asterisk.start();
  } catch (error) {
    throw new UserError(
      `could not start Asterisk: ${(error as Error).message} (its log: ${path.join(config.dataDir, 'asterisk', 'log')})`,
    );
  }
  return asterisk;
}

/** Behind NAT without RINGHOOK_SIP_EXTERNAL_ADDRESS: the public address, as the STUN server sees us. */
async function externalAddressFromStun(server: { host: string; port: number }, logger: Logger): Promise<string> {
  let address: string;
  try {
    address = await publicAddressFromStun(server);
  } catch (error) {
    throw new UserError(
      `could not learn this network's public address from RINGHOOK_STUN_SERVER: ${(error as Error).message} (set RINGHOOK_SIP_EXTERNAL_ADDRESS instead, or check the server)`,
    );
  }
  if (isPrivateIpv4(address)) {
    throw new UserError(
      `the STUN server ${server.host} sees this machine at the private address ${address}: it is inside your network, not on the internet`,
    );
  }
  logger.info('public address from STUN', { address, server: `${server.host}:${server.port}` });
  return address;
}

/** The authorities RINGHOOK_TRUNK_CA_FILE names, checked to be PEM certificates. */
function readTrunkCa(file: string): string {
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UserError(`RINGHOOK_TRUNK_CA_FILE ${file} cannot be read: ${(error as Error).message}`);
  }
  const first = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem)?.[0];
  try {
    if (!first) throw new Error('no PEM certificate in it');
    new X509Certificate(first);
  } catch (error) {
    throw new UserError(
      `RINGHOOK_TRUNK_CA_FILE ${file} holds no certificate authority Asterisk can use: ${(error as Error).message}`,
    );
  }
  return pem;
}

export async function startTelephony(config: Config, deps: TelephonyDeps): Promise<Telephony> {
  const t = config.telephony;
  const logger = deps.logger.child({ component: 'telephony' });
  // An external Asterisk on another host must see this folder at the same path (NFS, a bind mount).
  const mediaDir = t.mediaDir ?? path.join(config.dataDir, 'media');
  const modes = mediaModes(t.mode === 'managed' ? 'managed' : 'external');
  const speechDir = prepareMediaDir(mediaDir, modes);
  const softphone = t.mode === 'managed' ? managedSoftphone(config) : null;

  const asterisk = t.mode === 'managed' ? await startManagedAsterisk(config, logger, mediaDir, softphone!) : null;
  const ari = new AriClient({
    baseUrl: asterisk?.ariUrl ?? config.ari!.url,
    user: asterisk?.ariCredentials.user ?? config.ari!.user,
    password: asterisk?.ariCredentials.password ?? config.ari!.password,
    app: ARI_APP,
    logger: logger.child({ component: 'ari' }),
    events: CALL_EVENTS,
  });
  // An external Asterisk may be down now: the client keeps trying and calls wait in the queue.
  const connected = ari
    .connect()
    .catch((error: Error) => logger.warn('ARI is not reachable yet; calls wait in the queue', { error }));
  if (asterisk) await connected;

  const { progress, writes } = deps.store;
  const receiptToken = smsReceiptToken(config);
  const sms = createSmsSender(withReceiptToken(config.sms, receiptToken), {
    logger: logger.child({ component: 'sms' }),
  });
  const smsHealth = new SmsHealth(sms, { now: deps.now });
  const smsBackup = new SmsBackup({
    store: deps.store,
    sender: sms,
    events: deps.events,
    logger,
    now: deps.now,
    retryWindowMs: config.telephony.freshnessMs,
    onResult: (result) => {
      deps.metrics?.sms.inc({ result });
      if (result === 'sent') smsHealth.noteAccepted();
    },
  });
  await smsBackup.recover();
  const tts = createTts(
    {
      cacheDir: speechDir,
      fileMode: modes.file,
      residentFliteDir: t.cacheDir,
      engine: t.tts.engine,
      ...(t.tts.voice && { voice: t.tts.voice }),
      ...(t.tts.command && { command: t.tts.command }),
    },
    { logger, now: deps.now },
  );
  // The fixed phrases are made now (in the burst voice too), so that the first answered call starts speaking at once.
  const burst = burstSynthesis(DEFAULT_SPEECH.language, DEFAULT_SPEECH.synthesis, t.tts.burstVoice);
  for (const synthesis of [undefined, ...(burst ? [burst] : [])]) {
    for (const phrase of Object.values(callPhrases(DEFAULT_SPEECH))) {
      tts
        .synthesize(phrase, synthesis)
        .catch((error: Error) => logger.warn('could not prepare speech', { phrase, error }));
    }
  }
  const dialer = new Dialer({
    store: deps.store,
    ari,
    tts,
    burstVoice: t.tts.burstVoice,
    events: deps.events,
    logger,
    now: deps.now,
    onFinal: (call) => {
      deps.metrics?.calls.inc({ outcome: call.state });
      smsBackup.afterFinal(call);
    },
    endpointFor: endpointFor(t),
    backupEndpointFor: backupEndpointFor(t),
    callerId: t.callerId,
    ringTimeoutSec: t.ringTimeoutSec,
    maxCallSec: t.maxCallSec,
    // Only the managed Asterisk is known to load func_talkdetect (an external one may: README).
    detectMachine: t.amd && t.mode === 'managed',
    onFirstSpeech: (ms) => deps.metrics?.firstSpeechSeconds.observe(ms / 1000),
    maxConcurrent: t.maxCalls,
    callsPerSecond: t.trunkCps,
    freshnessMs: t.freshnessMs,
    sendsSms: sms.kind !== 'none',
  });
  await dialer.start();
  ari.on('replaced', () => {
    logger.error(
      `another program registered the ARI application "${ARI_APP}" on this Asterisk: ringhook gets no more call events and cannot place calls; stop the other program and restart ringhook`,
    );
  });
  // Speech of old alerts is not needed again: the cache is cleaned a minute after the start (a
  // service restarted more often than daily would otherwise never clean it), then once a day.
  const clean = () =>
    void tts.cleanup(SPEECH_CACHE_DAYS).catch((error: Error) => logger.warn('speech cache cleanup failed', { error }));
  const firstClean = setTimeout(clean, 60_000);
  firstClean.unref();
  const cleaner = setInterval(clean, 86_400_000);
  cleaner.unref();

  return {
    ari,
    asterisk,
    dialer,
    sms,
    smsBackup,
    smsHealth,
    progress,
    softphone,
    smsReceiptToken: receiptToken,
    enqueue: (alert) => dialer.enqueue(alert),
    async placeTestCall(account) {
      const result = await requestTestCall(deps.store.calls, account);
      if (!result.accepted) return result;
      deps.events.emit({ callId: result.callId, userId: account.userId, status: 'queued', at: result.receivedAt });
      dialer.enqueue({
        callId: result.callId,
        kind: 'test',
        message: testCallMessage(account.language),
        account,
      });
      return result;
    },
    speechSample: speechSampler(tts),
    async stop(graceMs = 10_000) {
      clearTimeout(firstClean);
      clearInterval(cleaner);
      await dialer.stop(graceMs);
      await smsBackup.drain();
      // Call records still waiting for a database locked by another process get a last chance;
      // the calls they belong to are not final in the database, so the next start ends them.
      if (!(await writes.drain(3_000)))
        logger.error('database still locked at shutdown: some call records were not written', {
          left: writes.abandon(),
        });
      await sms.close().catch((error: Error) => logger.debug('could not close the SMS gateway link', { error }));
      await ari.close();
      tts.close();
      await asterisk?.stop();
    },
  };
}
