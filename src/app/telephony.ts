// Telephony for `serve`: the Asterisk (managed or external), our ARI client, speech, the dialer
// and the SMS backup, started together and stopped in order.
import path from 'node:path';
import type { Config } from '../config/index.js';
import type { CallProgressRepo, ServiceDeps } from '../store/index.js';
import type { Account } from '../core/account.js';
import { mediaModes } from '../core/speech/media-modes.js';
import type { TestCallResult } from '../core/calls/test-call.js';
import { persistentSecret } from '../lib/secret-file.js';
import { placeTestCall } from './test-call.js';
import { managedSoftphone, startManagedAsterisk, type Softphone } from './managed-asterisk.js';
import type { Logger } from '../lib/log.js';
import type { Metrics } from './metrics.js';
import { AriClient } from '../pbx/index.js';
import type { ManagedAsterisk } from '../pbx/index.js';
import { DEFAULT_SPEECH, type CallSpeech } from '../core/speech/languages.js';
import { callPhrases, type SpokenCall } from '../core/speech/spoken-call.js';
import { burstSynthesis } from '../core/speech/speech-plan.js';
import { CALL_EVENTS, Dialer, type FinalCall, type JustQueued } from '../calls/index.js';
import { throughTrunk, toSoftphone, type Endpoint } from '../pbx/index.js';
import { speechSampler, type SpokenAudio } from '../speech/index.js';
import { type JapaneseDictionary, japaneseDictionary } from '../speech/index.js';
import { checkDictionaryFolder } from '../speech/index.js';
import { createTts } from '../speech/index.js';
import type { Tts } from '../speech/index.js';
import { prepareMediaDir } from '../speech/index.js';
import { loadSmsService, type SmsBackup, type SmsHealth, type SmsSender, withReceiptToken } from '../sms/index.js';

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
  /** Reads kanji for Japanese speech (calls, Hear it): loaded on the first Japanese one. */
  japanese: JapaneseDictionary;
  /** A short WAV of what the account's calls sound like: its intro and a sample alert, in its language and voice. */
  speechSample(phrases: SpokenCall, speech: CallSpeech): Promise<SpokenAudio>;
  stop(graceMs?: number): Promise<void>;
}

/** The secret the SMS receipt URL carries (made once, kept in the data dir); null when no receipts are asked. */
export function smsReceiptToken(config: Pick<Config, 'dataDir' | 'sms'>): string | null {
  return config.sms.gateway === 'http' && config.sms.dlrUrl ? persistentSecret(config.dataDir, 'sms-receipt') : null;
}

/**
 * The configured SMS gateway's sender, as serve sends the backup and `ringhook sms-test` its test: with the receipt
 * token in the delivery-report URL when reports are asked (the token is made once and kept in the data dir).
 */
export async function smsSenderFor(
  config: Pick<Config, 'dataDir' | 'sms'>,
  logger: Logger,
  receiptToken: string | null = smsReceiptToken(config),
): Promise<SmsSender> {
  const { createSmsSender } = await loadSmsService();
  return createSmsSender(withReceiptToken(config.sms, receiptToken), { logger });
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

export async function startTelephony(config: Config, deps: TelephonyDeps): Promise<Telephony> {
  const t = config.telephony;
  const logger = deps.logger.child({ component: 'telephony' });
  // An operator's dictionary folder that must not be loaded stops serve here, before Asterisk starts.
  const japaneseSetting = t.tts.japaneseDictionary;
  if (japaneseSetting !== 'auto' && japaneseSetting !== 'off')
    logger.info('the Japanese dictionary will be read from', { folder: checkDictionaryFolder(japaneseSetting) });
  // An external Asterisk on another host must see this folder at the same path (NFS, a bind mount).
  const mediaDir = t.mediaDir ?? path.join(config.dataDir, 'media');
  const modes = mediaModes(t.mode === 'managed' ? 'managed' : 'external');
  const speechDir = prepareMediaDir(mediaDir, modes);
  const softphone = t.mode === 'managed' ? managedSoftphone(config) : null;

  const asterisk = t.mode === 'managed' ? await startManagedAsterisk(config, logger, mediaDir, softphone!) : null;
  const ari = await connectAri(config, asterisk, logger);
  const backup = await startSmsBackup(config, deps, logger);
  const tts = startSpeech(t, { cacheDir: speechDir, fileMode: modes.file }, deps, logger);
  const japanese = japaneseDictionary({
    setting: t.tts.japaneseDictionary,
    logger: logger.child({ component: 'speech' }),
  });
  const dialer = await startDialer(
    t,
    deps,
    { ari, tts, japanese, sms: backup.sms, smsBackup: backup.smsBackup },
    logger,
  );
  loadJapaneseEarly(japanese, deps, logger);
  const stopCleaning = cleanSpeechCache(tts, logger);
  const { writes } = deps.store;
  return {
    ari,
    asterisk,
    dialer,
    ...backup,
    progress: deps.store.progress,
    softphone,
    enqueue: (alert) => dialer.enqueue(alert),
    placeTestCall: (account) => placeTestCall({ calls: deps.store.calls, events: deps.events, dialer }, account),
    japanese,
    speechSample: speechSampler(tts),
    async stop(graceMs = 10_000) {
      stopCleaning();
      await dialer.stop(graceMs);
      await backup.smsBackup.drain();
      // Call records still waiting for a database locked by another process get a last chance;
      // the calls they belong to are not final in the database, so the next start ends them.
      if (!(await writes.drain(3_000)))
        logger.error('database still locked at shutdown: some call records were not written', {
          left: writes.abandon(),
        });
      await backup.sms.close().catch((error: Error) => logger.debug('could not close the SMS gateway link', { error }));
      await ari.close();
      tts.close();
      await asterisk?.stop();
    },
  };
}

/** Our ARI client on the managed Asterisk, or on the one RINGHOOK_ARI_URL names. */
async function connectAri(config: Config, asterisk: ManagedAsterisk | null, logger: Logger): Promise<AriClient> {
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
  ari.on('replaced', () => {
    logger.error(
      `another program registered the ARI application "${ARI_APP}" on this Asterisk: ringhook gets no more call events and cannot place calls; stop the other program and restart ringhook`,
    );
  });
  return ari;
}

/** The SMS sender, its health for /healthz and the backup over it, with the SMS left by the last run resumed. */
async function startSmsBackup(
  config: Config,
  deps: TelephonyDeps,
  logger: Logger,
): Promise<Pick<Telephony, 'sms' | 'smsHealth' | 'smsBackup' | 'smsReceiptToken'>> {
  const receiptToken = smsReceiptToken(config);
  const sms = await smsSenderFor(config, logger.child({ component: 'sms' }), receiptToken);
  const { SmsBackup, SmsHealth } = await loadSmsService();
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
  return { sms, smsHealth, smsBackup, smsReceiptToken: receiptToken };
}

/** The speech engine, with the fixed phrases made now (in the burst voice too), so that the first answered call starts speaking at once. */
function startSpeech(
  t: Config['telephony'],
  cache: { cacheDir: string; fileMode: number },
  deps: TelephonyDeps,
  logger: Logger,
): Tts {
  const tts = createTts(
    {
      ...cache,
      residentFliteDir: t.cacheDir,
      engine: t.tts.engine,
      ...(t.tts.voice && { voice: t.tts.voice }),
      ...(t.tts.command && { command: t.tts.command }),
    },
    { logger, now: deps.now },
  );
  const burst = burstSynthesis(DEFAULT_SPEECH.language, DEFAULT_SPEECH.synthesis, t.tts.burstVoice);
  for (const synthesis of [undefined, ...(burst ? [burst] : [])]) {
    for (const phrase of Object.values(callPhrases(DEFAULT_SPEECH))) {
      tts
        .synthesize(phrase, synthesis)
        .catch((error: Error) => logger.warn('could not prepare speech', { phrase, error }));
    }
  }
  return tts;
}

/** The dialer over ARI and speech; a final call goes on to the SMS backup. */
async function startDialer(
  t: Config['telephony'],
  deps: TelephonyDeps,
  parts: { ari: AriClient; tts: Tts; japanese: JapaneseDictionary; sms: SmsSender; smsBackup: SmsBackup },
  logger: Logger,
): Promise<Dialer> {
  const dialer = new Dialer({
    store: deps.store,
    ari: parts.ari,
    japanese: parts.japanese,
    tts: parts.tts,
    burstVoice: t.tts.burstVoice,
    events: deps.events,
    logger,
    now: deps.now,
    onFinal: (call) => {
      deps.metrics?.calls.inc({ outcome: call.state });
      parts.smsBackup.afterFinal(call);
      if (call.verification) agreedOrNot(deps, call, logger);
    },
    // Rung again (core/calls/ring-again): the SMS backup keeps its timing, once, after the first miss.
    onMissed: (call) => parts.smsBackup.afterFinal(call),
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
    sendsSms: parts.sms.kind !== 'none',
    faultPauseAfterStep: faultPauseAfterStep(process.env.RINGHOOK_TEST_FAULT_PAUSE_AFTER_STEP_MS),
  });
  await dialer.start();
  return dialer;
}

/** The backup person's verification call ended (core/calls/backup-person): their 1 makes the number `verified`. */
function agreedOrNot(deps: TelephonyDeps, call: FinalCall, logger: Logger): void {
  if (call.state !== 'acknowledged' || !call.phone) {
    logger.info('backup person did not agree', { call_id: call.callId, user_id: call.userId, outcome: call.state });
    return;
  }
  void Promise.resolve(deps.store.accounts.verifyBackupPhone(call.userId, call.phone)).then(
    (verified) => logger.info('backup person agreed', { call_id: call.callId, user_id: call.userId, verified }),
    (error: unknown) => logger.error('backup person agreed, not recorded', { call_id: call.callId, error }),
  );
}

/**
 * A fault the crash tests inject (RINGHOOK_TEST_*, never a setting of the service): a pause after each
 * recorded call step, so that a kill -9 lands between the step and what follows it (test/e2e/callbacks-kill).
 */
function faultPauseAfterStep(ms: string | undefined): (() => Promise<void>) | undefined {
  const pause = Number(ms);
  if (!ms || !Number.isFinite(pause) || pause <= 0) return undefined;
  return () => new Promise((resolve) => setTimeout(resolve, pause));
}

/** With Japanese accounts, the dictionary is loaded now (seconds of CPU), not in the first Japanese call's way. */
function loadJapaneseEarly(japanese: JapaneseDictionary, deps: TelephonyDeps, logger: Logger): void {
  void Promise.resolve(deps.store.accounts.languagesInUse())
    .then((languages) => (languages.includes('ja') ? japanese.load() : undefined))
    .catch((error: Error) => logger.warn('could not look for Japanese accounts to load the dictionary', { error }));
}

/**
 * Speech of old alerts is not needed again: the cache is cleaned a minute after the start (a service restarted
 * more often than daily would otherwise never clean it), then once a day. Returns what stops the cleaning.
 */
function cleanSpeechCache(tts: Tts, logger: Logger): () => void {
  const clean = () =>
    void tts.cleanup(SPEECH_CACHE_DAYS).catch((error: Error) => logger.warn('speech cache cleanup failed', { error }));
  const firstClean = setTimeout(clean, 60_000);
  firstClean.unref();
  const cleaner = setInterval(clean, 86_400_000);
  cleaner.unref();
  return () => {
    clearTimeout(firstClean);
    clearInterval(cleaner);
  };
}
