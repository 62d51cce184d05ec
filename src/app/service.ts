// Wires the running service together: database, stores, telephony, HTTP app and listeners.
// Everything is created here from the validated config; nothing is read at import time.
import type { Config } from '../config/index.js';
import { loadSecretBox, type Store } from '../store/index.js';
import { CallEvents } from '../core/calls/call-events.js';
import { smsGatewaySetting } from '../core/delivery/sms-truth.js';
import { createRequestListener } from '../http/app.js';
import { startServers, type RunningServers } from '../http/server.js';
import type { Logger } from '../lib/log.js';
import { Metrics } from './metrics.js';
import type { CheckState } from '../http/operations.js';
import type { SmsReceiptDeps } from '../http/sms-receipts.js';
import { lockDataDirForServe } from './schema-guard.js';
import { dataDirError, openStores, type Stores } from './open-stores.js';
import type { Telephony } from './telephony.js';
import { startCluster, type Cluster, type ClusterDeps } from './cluster.js';
import type { CertificateKeeper } from './acme/index.js';
import { startCallbacks } from '../callbacks/index.js';

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
  /** Tests' receivers: their certificate authority and their DNS server, instead of the system's. */
  options: { callbackCa?: string; callbackDnsServers?: string[] } = {},
): Promise<RunningService> {
  const { stores, unlock } = await lockAndOpen(config, logger, now);
  const events = new CallEvents();
  const metrics = new Metrics();
  // Ends the dashboard's open live-history streams, so that the listeners can close.
  const shutdown = new AbortController();
  let telephony: Telephony | null = null;
  let cluster: Cluster | null = null;
  let certificate: CertificateKeeper | null = null;
  let servers: RunningServers;
  const callbacks = await startCallbacks({
    store: stores,
    events,
    logger: logger.child({ component: 'callbacks' }),
    now,
    allow: config.callbackAllow,
    nodeId: config.nodeId,
    ca: options.callbackCa,
    dnsServers: options.callbackDnsServers,
  });
  try {
    if (config.telephony.mode !== 'off') {
      // Imported only where telephony is on: the PBX client, the dialer, speech and the SMS gateways
      // are most of serve's modules (~0.3 s of CPU to load), which a serve without telephony never runs.
      const { startTelephony } = await import('./telephony.js');
      telephony = await startTelephony(config, { store: stores, events, logger, now, metrics });
    }
    cluster = await startCluster({
      store: stores,
      events,
      logger: logger.child({ component: 'cluster' }),
      nodeTimeoutMs: config.nodeTimeoutMs,
      smsWindowMs: config.telephony.freshnessMs,
      now,
      ...(telephony && { adopt: adoptLeftWork(telephony, logger) }),
    });
    countServiceGauges(metrics, config, stores.kind, telephony);
    if (config.acme) certificate = await startCertificate(config, config.acme, stores, metrics, logger, now);
    const listener = serviceListener(config, { stores, events, logger, now, metrics, telephony, cluster, shutdown });
    servers = await startServers(listener, serverOptions(config, certificate, logger));
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

/** The lock first: a serve that finds another one on its data dir opens (and migrates) nothing. */
async function lockAndOpen(
  config: Config,
  logger: Logger,
  now: () => number,
): Promise<{ stores: Store; unlock: () => void }> {
  let unlock: () => void;
  try {
    unlock = lockDataDirForServe(config);
  } catch (error) {
    throw dataDirError(error, config.dataDir) ?? error;
  }
  try {
    return { stores: await openStores(config, now, { logger, asNode: true }), unlock };
  } catch (error) {
    unlock();
    throw error;
  }
}

/** What this node does with the calls and SMS of a node that stopped answering. */
function adoptLeftWork(telephony: Telephony, logger: Logger): NonNullable<ClusterDeps['adopt']> {
  return (gone) => {
    telephony.dialer.endAbandoned(gone.calls, gone.nodeId);
    telephony.smsBackup
      .settleLeft(gone.sms)
      .catch((error: Error) =>
        logger.error('could not settle the SMS of a node that stopped answering', { node: gone.nodeId, error }),
      );
  };
}

function countServiceGauges(metrics: Metrics, config: Config, store: Store['kind'], t: Telephony | null): void {
  // Several nodes are scraped one by one: each says which it is and what it stores in.
  metrics.gauge('ringhook_node_info', 'This ringhook node (1): its id and its store.', () => 1, {
    node: config.nodeId,
    store,
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
}

/** ringhook's own (ACME) certificate: the one on hand or a first order, and its days left as a gauge. */
async function startCertificate(
  config: Config,
  acme: NonNullable<Config['acme']>,
  stores: Store,
  metrics: Metrics,
  logger: Logger,
  now: () => number,
): Promise<CertificateKeeper> {
  // acme-client is loaded only where ACME is on: its import costs ~0.4 s of CPU at every start.
  const { prepareCertificate } = await import('./acme/index.js');
  const keeper = await prepareCertificate({
    config: acme,
    dataDir: config.dataDir,
    store: stores.certificates,
    shared: stores.kind === 'postgres',
    plainHttp: config.httpPort !== null,
    logger: logger.child({ component: 'acme' }),
    now,
  });
  metrics.gauge(
    'ringhook_acme_certificate_days_left',
    "Days until ringhook's own (ACME) certificate expires; NaN before the first one.",
    () => keeper.daysLeft(),
  );
  return keeper;
}

interface ServiceParts {
  stores: Store;
  events: CallEvents;
  logger: Logger;
  now: () => number;
  metrics: Metrics;
  telephony: Telephony | null;
  cluster: Cluster;
  shutdown: AbortController;
}

/** The HTTP app: the webhook hands what it queued to telephony; health asks telephony, the store and the cluster. */
function serviceListener(config: Config, parts: ServiceParts): ReturnType<typeof createRequestListener> {
  const { stores, events, logger, now, metrics, telephony, cluster } = parts;
  const smsDelivery = smsReceiptDeps(config, telephony);
  return createRequestListener({
    store: stores,
    logger,
    now,
    events,
    publicUrl: config.publicUrl,
    signInFormKey: loadSecretBox(config).signInFormKey,
    callerId: config.telephony.callerId,
    smsGateway: smsGatewaySetting(config.telephony.mode === 'off', config.sms.gateway),
    shutdown: parts.shutdown.signal,
    trustProxy: config.trustProxy,
    webhookSources: config.webhookSources,
    onCallQueued: (queued) => {
      events.emit({
        callId: queued.callId,
        userId: queued.account.userId,
        status: 'queued',
        at: now(),
        ...(queued.announced && { announced: true }),
        ...(queued.outboxed && { outboxed: true }),
      });
      telephony?.enqueue(queued);
    },
    onRejectionRecorded: (rejection) =>
      events.emit({ callId: rejection.callId, userId: rejection.userId, status: 'refused', at: now() }),
    ...(telephony && {
      placeTestCall: telephony.placeTestCall,
      speechSample: telephony.speechSample,
      readJapanese: telephony.japanese.load,
    }),
    onResult: (result, ms) => {
      metrics.alerts.inc({ result });
      metrics.webhookSeconds.observe(ms / 1000);
    },
    metrics,
    ...(config.metricsToken && { metricsToken: config.metricsToken }),
    health: { store: stores, checks: () => telephonyChecks(telephony), ...(cluster.nodes && { nodes: cluster.nodes }) },
    ...(smsDelivery && { smsDelivery }),
  });
}

function serverOptions(
  config: Config,
  certificate: CertificateKeeper | null,
  logger: Logger,
): Parameters<typeof startServers>[1] {
  return {
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
