// Wires the running service together: database, stores, telephony, HTTP app and listeners.
// Everything is created here from the validated config; nothing is read at import time.
import type { Config } from './config.js';
import { AccountStore } from './db/accounts.js';
import { CallStore } from './db/calls.js';
import { openDatabase, type Db } from './db/database.js';
import { CallEvents } from './events.js';
import { createApp } from './http/app.js';
import { startServers, type RunningServers } from './http/server.js';
import type { Logger } from './log.js';
import { startTelephony, type Telephony } from './telephony.js';

export interface Stores {
  db: Db;
  accounts: AccountStore;
  calls: CallStore;
}

export function openStores(config: Pick<Config, 'dbFile' | 'dbSync'>, now: () => number = Date.now): Stores {
  const db = openDatabase(config.dbFile, { sync: config.dbSync });
  return { db, accounts: new AccountStore(db, now), calls: new CallStore(db, now) };
}

export interface RunningService {
  stores: Stores;
  servers: RunningServers;
  events: CallEvents;
  telephony: Telephony | null;
  stop(graceMs?: number): Promise<void>;
}

function certificateNames(config: Config): string[] {
  const names = new Set(['localhost', '127.0.0.1', '::1']);
  if (!['0.0.0.0', '::'].includes(config.host)) names.add(config.host);
  names.add(new URL(config.publicUrl).hostname.replace(/^\[|\]$/g, ''));
  return [...names];
}

export async function startService(config: Config, logger: Logger, now: () => number = Date.now): Promise<RunningService> {
  const stores = openStores(config, now);
  const events = new CallEvents();
  let telephony: Telephony | null = null;
  let servers: RunningServers;
  try {
    if (config.telephony.mode !== 'off') telephony = await startTelephony(config, { ...stores, events, logger, now });
    const app = createApp({
      ...stores,
      logger,
      now,
      events,
      publicUrl: config.publicUrl,
      onCallQueued: (callId, userId) => {
        events.emit({ callId, userId, status: 'queued', at: now() });
        telephony?.enqueue(callId);
      },
      ...(telephony && { placeTestCall: telephony.placeTestCall }),
    });
    servers = await startServers(app, {
      host: config.host,
      port: config.port,
      httpPort: config.httpPort,
      tls: config.tls,
      dataDir: config.dataDir,
      trustProxy: config.trustProxy,
      certificateNames: certificateNames(config),
      allowSelfSigned: config.selfSigned,
      logger,
    });
  } catch (error) {
    await telephony?.stop(0);
    stores.db.close();
    throw error;
  }
  return {
    stores,
    servers,
    events,
    telephony,
    async stop(graceMs = 10_000) {
      await servers.close();
      await telephony?.stop(graceMs);
      stores.db.close();
    },
  };
}
