// Wires the running service together: database, stores, telephony, HTTP app and listeners.
// Everything is created here from the validated config; nothing is read at import time.
import type { Config } from '../config/index.js';
import { openSqliteStore } from '../store/sqlite/index.js';
import type { Store } from '../store/contract.js';
import { CallEvents } from '../core/call-events.js';
import { smsGatewaySetting } from '../core/sms-truth.js';
import { UserError } from '../lib/errors.js';
import { createRequestListener } from '../http/app.js';
import { startServers, type RunningServers } from '../http/server.js';
import { databaseTls } from '../core/database-tls.js';
import { silentLogger, type Logger } from '../lib/log.js';
import { Metrics } from '../lib/metrics.js';
import type { CheckState } from '../http/operations.js';
import type { SmsReceiptDeps } from '../http/sms-receipts.js';
import { lockDataDirForServe, refuseMigrationUnderServe } from './schema-guard.js';
import { loadSecretBox } from '../store/secret-key.js';
import { startTelephony, type Telephony } from './telephony.js';
import { startCluster, type Cluster } from './cluster.js';
import { prepareCertificate, type CertificateKeeper } from './acme.js';
import { startCallbacks } from '../callbacks/index.js';

/** The store as the service and the CLI open it. */
export type Stores = Store;

/**
 * The store (SQLite in the data dir, or PostgreSQL shared by several nodes), with the api_keys'
 * secret key. `lostSecretKey` opens a database whose key is lost, only to give every account a
 * new api_key (regenerateAllKeys).
 */
export async function openStores(
  config: Pick<Config, 'dbFile' | 'dbSync' | 'dataDir' | 'secretKey' | 'databaseUrl' | 'databaseTls' | 'nodeId'> &
    Partial<Pick<Config, 'telephony'>>,
  now: () => number = Date.now,
  options: { lostSecretKey?: boolean; logger?: Logger; asNode?: boolean } = {},
): Promise<Store> {
  try {
    return await openStoresIn(config, now, options);
  } catch (error) {
    throw dataDirError(error, config.dataDir) ?? error;
  }
}

/** The data dir's files could not be made or opened (a file in its place, another user's, a read-only disk): said with the variable. */
function dataDirError(error: unknown, dataDir: string): UserError | undefined {
  const { code, path: file } = error as NodeJS.ErrnoException;
  if (
    !code ||
    !['EACCES', 'EPERM', 'ENOTDIR', 'EROFS', 'EEXIST', 'ENOENT'].includes(code) ||
    !file?.startsWith(dataDir)
  )
    return undefined;
  const why = ['ENOTDIR', 'EEXIST'].includes(code)
    ? 'a file stands where a folder should be'
    : 'run ringhook as the user that owns it (the one serve runs as), or set RINGHOOK_DATA_DIR to a folder this user can write';
  return new UserError(`RINGHOOK_DATA_DIR (${dataDir}) cannot be used: ${code} on ${file}; ${why}`);
}

async function openStoresIn(
  config: Pick<Config, 'dbFile' | 'dbSync' | 'dataDir' | 'secretKey' | 'databaseUrl' | 'databaseTls' | 'nodeId'> &
    Partial<Pick<Config, 'telephony'>>,
  now: () => number,
  options: { lostSecretKey?: boolean; logger?: Logger; asNode?: boolean },
): Promise<Store> {
  const secrets = loadSecretBox(config);
  const checkKey = !options.lostSecretKey;
  if (config.databaseUrl) {
    const { openPostgresStore } = await import('../store/postgres/index.js');
    const { tls, local, hosts } = databaseTls(config.databaseUrl, {
      caFile: config.databaseTls.caFile !== undefined,
      allowUnverified: config.databaseTls.allowUnverified,
    });
    if (!local && tls !== 'verified' && config.databaseTls.allowUnverified) {
      options.logger?.warn(
        'the database is reached without a verified certificate (RINGHOOK_DATABASE_UNVERIFIED=on): keep its network private',
        {
          hosts,
          tls,
        },
      );
    }
    return openPostgresStore({
      url: config.databaseUrl,
      nodeId: options.asNode ? config.nodeId : null,
      secrets,
      now,
      checkKey,
      tls: config.databaseTls,
      // A dead node's line is freed once its call cannot be up any more, clocks a few seconds apart.
      ...(config.telephony && { lineHoldMs: config.telephony.maxCallSec * 1000 + 5_000 }),
    });
  }
  // serve holds the lock already; a command must not migrate under a running serve.
  if (!options.asNode) refuseMigrationUnderServe(config);
  return openSqliteStore(config.dbFile, {
    sync: config.dbSync,
    secrets,
    now,
    checkKey,
    logger: options.logger ?? silentLogger,
    checkpointInThread: options.asNode === true,
  });
}

export interface RunningService {
  stores: Stores;
  servers: RunningServers;
  events: CallEvents;
  metrics: Metrics;
  telephony: Telephony | null;
  stop(graceMs?: number): Promise<void>;
}

function certificateNames(config: Config): string[] {
  const names = new Set(['localhost', '127.0.0.1', '::1']);
  if (!['0.0.0.0', '::'].includes(config.host)) names.add(config.host);
  names.add(new URL(config.publicUrl).hostname.replace(/^\[|\]$/g, ''));
  return [...names];
}

export async function startService(
  config: Config,
  logger: Logger,
  now: () => number = Date.now,
  options: { callbackCa?: string } = {},
): Promise<RunningService> {
  // The lock first: a serve that finds another one on its data dir opens (and migrates) nothing.
  let unlock: () => void;
  try {
    unlock = lockDataDirForServe(config);
  } catch (error) {
    throw dataDirError(error, config.dataDir) ?? error;
  }
  let stores: Store;
  try {
    stores = await openStores(config, now, { logger, asNode: true });
  } catch (error) {
    unlock();
    throw error;
  }
  const events = new CallEvents();
  const metrics = new Metrics();
  // Ends the dashboard's open live-history streams, so that the listeners can close.
  const shutdown = new AbortController();
  let telephony: Telephony | null = null;
  let cluster: Cluster | null = null;
  let certificate: CertificateKeeper | null = null;
  let servers: RunningServers;
  const callbacks = startCallbacks({
    store: stores,
    events,
    logger: logger.child({ component: 'callbacks' }),
    now,
    allow: config.callbackAllow,
    nodeId: config.nodeId,
    ca: options.callbackCa,
  });
  try {
    if (config.telephony.mode !== 'off')
      telephony = await startTelephony(config, { store: stores, events, logger, now, metrics });
    const t = telephony;
    cluster = await startCluster({
      store: stores,
      events,
      logger: logger.child({ component: 'cluster' }),
      nodeTimeoutMs: config.nodeTimeoutMs,
      smsWindowMs: config.telephony.freshnessMs,
      now,
      ...(t && {
        adopt: (gone) => {
          t.dialer.endAbandoned(gone.calls, gone.nodeId);
          t.smsBackup
            .settleLeft(gone.sms)
            .catch((error: Error) =>
              logger.error('could not settle the SMS of a node that stopped answering', { node: gone.nodeId, error }),
            );
        },
      }),
    });
    // Several nodes are scraped one by one: each says which it is and what it stores in.
    metrics.gauge('ringhook_node_info', 'This ringhook node (1): its id and its store.', () => 1, {
      node: config.nodeId,
      store: stores.kind,
    });
    metrics.gauge('ringhook_active_calls', 'Calls in progress now.', () => t?.dialer.activeCalls ?? 0);
    metrics.gauge(
      'ringhook_queued_calls',
      'Accepted calls waiting for a free line or for Asterisk.',
      () => t?.dialer.queuedCalls ?? 0,
    );
    metrics.gauge('ringhook_ari_connected', '1 when the ARI events connection is up.', () =>
      t?.ari.isConnected ? 1 : 0,
    );
    if (config.acme) {
      certificate = await prepareCertificate({
        config: config.acme,
        dataDir: config.dataDir,
        store: stores.certificates,
        shared: stores.kind === 'postgres',
        plainHttp: config.httpPort !== null,
        logger: logger.child({ component: 'acme' }),
        now,
      });
      const keeper = certificate;
      metrics.gauge(
        'ringhook_acme_certificate_days_left',
        "Days until ringhook's own (ACME) certificate expires; NaN before the first one.",
        () => keeper.daysLeft(),
      );
    }
    const smsDelivery = smsReceiptDeps(config, t);
    const listener = createRequestListener({
      store: stores,
      logger,
      now,
      events,
      publicUrl: config.publicUrl,
      signInFormKey: loadSecretBox(config).signInFormKey,
      callerId: config.telephony.callerId,
      smsGateway: smsGatewaySetting(config.telephony.mode === 'off', config.sms.gateway),
      shutdown: shutdown.signal,
      trustProxy: config.trustProxy,
      webhookSources: config.webhookSources,
      onCallQueued: (queued) => {
        events.emit({
          callId: queued.callId,
          userId: queued.account.userId,
          status: 'queued',
          at: now(),
          ...(queued.announced && { announced: true }),
        });
        telephony?.enqueue(queued);
      },
      onRejectionRecorded: (rejection) =>
        events.emit({ callId: rejection.callId, userId: rejection.userId, status: 'refused', at: now() }),
      ...(telephony && { placeTestCall: telephony.placeTestCall, speechSample: telephony.speechSample }),
      onResult: (result, ms) => {
        metrics.alerts.inc({ result });
        metrics.webhookSeconds.observe(ms / 1000);
      },
      metrics,
      ...(config.metricsToken && { metricsToken: config.metricsToken }),
      health: { store: stores, checks: () => telephonyChecks(t), ...(cluster?.nodes && { nodes: cluster.nodes }) },
      ...(smsDelivery && { smsDelivery }),
    });
    servers = await startServers(listener, {
      host: config.host,
      port: config.port,
      httpPort: config.httpPort,
      tls: config.tls,
      dataDir: config.dataDir,
      trustProxy: config.trustProxy,
      certificateNames: certificateNames(config),
      allowSelfSigned: config.selfSigned,
      connections: config.connections,
      ...(certificate && {
        acme: {
          certificate: certificate.initial,
          answer: certificate.answer,
          publicOrigin: new URL(config.publicUrl).origin,
        },
      }),
      logger,
    });
    certificate?.start(servers.setCertificate);
  } catch (error) {
    await cluster?.stop();
    await telephony?.stop(0);
    await callbacks.stop();
    await stores.close();
    unlock();
    throw error;
  }
  return {
    stores,
    servers,
    events,
    metrics,
    telephony,
    async stop(graceMs = 10_000) {
      shutdown.abort();
      await certificate?.stop();
      await servers.close();
      // Before the calls and SMS drain: a silent node's would be taken over and left unfinished.
      await cluster?.stopTakingOver();
      await telephony?.stop(graceMs);
      await cluster?.stop();
      await callbacks.stop();
      await stores.close();
      unlock();
    },
  };
}

/** The receipt route's settings, when the HTTP gateway was asked for delivery reports. */
function smsReceiptDeps(config: Config, telephony: Telephony | null): SmsReceiptDeps | null {
  const handle = telephony?.sms.handleDeliveryCallback;
  const token = telephony?.smsReceiptToken;
  if (config.sms.gateway !== 'http' || !config.sms.dlrUrl || !handle || !token) return null;
  return {
    publicUrl: config.sms.dlrUrl,
    token,
    ...(config.sms.http.preset === 'twilio' && { twilioAuthToken: config.sms.http.authToken }),
    handle: (params) => handle(params) !== null,
  };
}

async function telephonyChecks(telephony: Telephony | null): Promise<Record<string, CheckState>> {
  if (!telephony) return { telephony: 'off' };
  return {
    asterisk: telephony.asterisk ? (telephony.asterisk.pid !== undefined ? 'ok' : 'down') : 'off',
    ari: telephony.ari.isConnected ? 'ok' : 'down',
    sms: (await telephony.smsHealth.current()).state,
  };
}
