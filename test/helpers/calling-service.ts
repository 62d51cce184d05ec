// A service that really calls: its managed Asterisk on free ports, a trunk to the SIPp phone that
// tests start on `trunkPort`, a 5 s ring timeout, and SMS backup through a real Kannel.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { SqliteCallProgressStore } from '../../src/store/sqlite/progress.js';
import { provisionAsterisk } from './asterisk.js';
import { startKannel, type KannelPeer } from './kannel.js';
import { freeUdpPort } from './ports.js';
import { managedTelephonyEnv, realClock, sqliteDb, startTestService, type TestService } from './service.js';
import { stopAllSipp } from './sipp.js';

export interface CallingService {
  t: TestService;
  kannel: KannelPeer;
  trunkPort: number;
  progress: SqliteCallProgressStore;
  stop(): Promise<void>;
}

/** `env` adds to or overrides the service's settings (e.g. RINGHOOK_AMD). */
export async function startCallingService(
  env: Record<string, string> = {},
  options: { callbackCa?: string } = {},
): Promise<CallingService> {
  await provisionAsterisk();
  const kannel = await startKannel();
  const trunkPort = await freeUdpPort();
  const t = await startTestService(
    {
      ...(await managedTelephonyEnv(trunkPort)),
      RINGHOOK_RING_TIMEOUT: '5',
      RINGHOOK_SMS_GATEWAY: 'http',
      RINGHOOK_SMS_HTTP_PRESET: 'kannel',
      RINGHOOK_SMS_HTTP_URL: kannel.sendsmsUrl(),
      RINGHOOK_SMS_FROM: 'ringhook',
      ...env,
    },
    realClock(),
    options,
  );
  return {
    t,
    kannel,
    trunkPort,
    progress: new SqliteCallProgressStore(sqliteDb(t.service.stores)),
    async stop() {
      await stopAllSipp();
      await t.stop();
      await kannel.stop();
    },
  };
}

/**
 * One calling service for a test file: started before its tests (`env` may be a function, run
 * then), stopped after them; after each test its SIPp phones are stopped and no error was logged.
 * The service is `get()` once started.
 */
export function useCallingService(env: Record<string, string> | (() => Promise<Record<string, string>>) = {}): {
  get(): CallingService;
} {
  let calling: CallingService | undefined;
  beforeAll(async () => {
    calling = await startCallingService(typeof env === 'function' ? await env() : env);
  }, 180_000);
  afterAll(async () => {
    await calling?.stop();
  });
  afterEach(async () => {
    await stopAllSipp();
    expect(calling?.t.takeErrorLogs().map((line) => JSON.stringify(line))).toEqual([]);
  });
  return {
    get() {
      if (!calling) throw new Error('the calling service is not started (useCallingService runs before the tests)');
      return calling;
    },
  };
}
