// The dashboard's end-to-end harness: a real ringhook app over HTTPS (the same createRequestListener and
// startServers as `ringhook serve`) with a test-call function and the CallEvents bus in the test's
// hands, and Debian's Chromium driven by playwright-core.
import type { SmsGatewaySetting } from '../../src/core/delivery/sms-truth.js';
import { testSecrets } from './secrets.js';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { loadConfig, type Config } from '../../src/config/index.js';
import type { Account } from '../../src/core/account.js';
import { type CallChange, CallEvents } from '../../src/core/calls/call-events.js';
import { createRequestListener } from '../../src/http/app.js';
import type { TestCallResult } from '../../src/core/calls/test-call.js';
import type { LiveLimits } from '../../src/http/dashboard/live-caps.js';
import { requestTestCall } from '../../src/app/test-call.js';
import { startServers, type RunningServers } from '../../src/http/server.js';
import type { ConnectionLimits } from '../../src/core/connections/connection-caps.js';
import { createLogger } from '../../src/lib/log.js';
import { speechSampler } from '../../src/speech/speech-sample.js';
import { japaneseDictionary } from '../../src/speech/japanese-reader.js';
import { createTts } from '../../src/speech/tts.js';
import type { SqliteStore } from '../../src/store/sqlite/index.js';
import { openStores } from '../../src/app/open-stores.js';
import { freeTcpPort } from './ports.js';
import { makeDataDir, sqliteOf, testClock, type TestClock } from './service.js';
import { createAccount } from './accounts.js';

// Debian's Chromium as its headless shell (package chromium-headless-shell: the same build and engine, without
// the browser's windows, tab strip and toolbar; what playwright-core itself runs for headless Chromium). The full
// browser in --headless built that UI for every context: dashboard.test.ts 86 → 61 s of CPU (its browser process
// 27 → 12 s), the pages and screenshots alike.
export const CHROMIUM = '/usr/bin/chromium-headless-shell';
/** playwright-core's own --disable-features (1.65, chromiumSwitches.ts), checked by test/tooling/chromium-flags.test.ts. */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];
// The full browser's headless mode (before the shell above) opened a window per context, and each window loaded
// the omnibox's popup, a page of the browser's own UI (chrome://omnibox-popup.top-chrome/), in a renderer of
// its own: 1.2 to 2 s of CPU per context. The shell has no omnibox; these stay off for the full browser.
const OMNIBOX_POPUP_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup'];
export const CHROMIUM_ARGS = [
  '--headless',
  // Chromium reads only the last --disable-features given, and playwright-core passes its own before
  // ours: so ours repeats theirs.
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...OMNIBOX_POPUP_FEATURES].join(',')}`,
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const SCREENSHOTS = path.resolve(__dirname, '../../test-results/screenshots');
export const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;

export interface DashboardService {
  config: Config;
  /** SQLite's, whose sync stores and db the tests read and change directly. */
  stores: SqliteStore;
  events: CallEvents;
  clock: TestClock;
  baseUrl: string;
  ca: string;
  logs: Array<Record<string, unknown>>;
  errorLogs(): Array<Record<string, unknown>>;
  /** Test calls placed through the dashboard (the dialer's part is played by the test). */
  testCalls: string[];
  createAccount(
    input?: Partial<{ plan: 'free' | 'premium'; name: string; phone: string; smsBackup: boolean }>,
  ): Account;
  /** Changes a call's status the way the dialer will, and tells the live history. */
  setCallStatus(callId: string, status: string, columns?: Record<string, number | string | null>): void;
  stop(): Promise<void>;
}

export interface DashboardServiceOptions {
  /** 'db' (default): test calls are real rows made by SqliteCallStore.acceptTestCall; 'none': telephony is off. */
  testCalls?: 'db' | 'none';
  clock?: TestClock;
  /** false: no shutdown signal is passed, as when service.ts does not give one. */
  shutdownSignal?: boolean;
  /** Caps on open live-history streams (the app's defaults otherwise). */
  liveStreams?: Partial<LiveLimits>;
  /** RINGHOOK_CALLER_ID as the dashboard sees it (default +14155550100; null: none set). */
  callerId?: string | null;
  /** Caps on open connections (the server's defaults otherwise). */
  connections?: Partial<ConnectionLimits>;
  /** The SMS gateway the dashboard is told of ('none' when absent, as serve without one). */
  smsGateway?: SmsGatewaySetting;
  /** RINGHOOK_WEBHOOK_SOURCES as serve reads it (unset: any address). */
  webhookSources?: string;
}

export async function startDashboardService(options: DashboardServiceOptions = {}): Promise<DashboardService> {
  const clock = options.clock ?? testClock();
  const dataDir = makeDataDir('ringhook-dashboard-');
  // A known port, so that the webhook URL the dashboard shows is the one that answers.
  const config = loadConfig({
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(await freeTcpPort()),
    RINGHOOK_DB_SYNC: 'normal',
    RINGHOOK_DATA_DIR: dataDir,
    ...(options.webhookSources && { RINGHOOK_WEBHOOK_SOURCES: options.webhookSources }),
  });
  const logs: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'debug', write: (line) => logs.push(JSON.parse(line)) });
  const stores = sqliteOf(await openStores(config, clock.now));
  const events = new CallEvents();
  const shutdown = new AbortController();
  const testCalls: string[] = [];
  const emit = (callId: string) => {
    const call = stores.calls.get(callId);
    if (call)
      events.emit({ callId, userId: call.userId, status: call.status as CallChange['status'], at: clock.now() });
  };
  const placeTestCall = async (account: Account): Promise<TestCallResult> => {
    const result = await requestTestCall(stores.calls, account);
    if (result.accepted) {
      testCalls.push(result.callId);
      emit(result.callId);
    }
    return result;
  };
  const listener = createRequestListener({
    store: stores,
    logger,
    now: clock.now,
    events,
    publicUrl: config.publicUrl,
    signInFormKey: testSecrets().signInFormKey,
    ...(options.callerId !== null && { callerId: options.callerId ?? '+14155550100' }),
    webhookSources: config.webhookSources,
    onCallQueued: ({ callId }) => emit(callId),
    onRejectionRecorded: ({ callId, userId }) => events.emit({ callId, userId, status: 'refused', at: clock.now() }),
    ...(options.smsGateway && { smsGateway: options.smsGateway }),
    ...(options.shutdownSignal !== false && { shutdown: shutdown.signal }),
    // The real speech engines make the overview's sample, as serve's do.
    ...(options.testCalls !== 'none' && {
      placeTestCall,
      speechSample: speechSampler(createTts({ cacheDir: path.join(dataDir, 'speech') })),
      // serve's Japanese dictionary, loaded on a Japanese account's first "Hear it".
      readJapanese: japaneseDictionary({ setting: 'auto', logger }).load,
    }),
    ...(options.liveStreams && { liveLimits: options.liveStreams }),
  });
  let servers: RunningServers;
  try {
    servers = await startServers(listener, {
      host: config.host,
      port: config.port,
      httpPort: null,
      tls: null,
      dataDir,
      trustProxy: config.trustProxy,
      certificateNames: ['localhost', '127.0.0.1'],
      logger,
      ...(options.connections && { connections: options.connections }),
    });
  } catch (error) {
    await stores.close();
    throw error;
  }
  const baseUrl = `https://127.0.0.1:${servers.httpsPort}`;
  return {
    config,
    stores,
    events,
    clock,
    baseUrl,
    ca: fs.readFileSync(path.join(dataDir, 'tls', 'self-signed-cert.pem'), 'utf8'),
    logs,
    errorLogs: () => logs.filter((l) => l.level === 'error'),
    testCalls,
    createAccount: (input = {}) =>
      createAccount(stores.accounts, {
        phone: input.phone ?? '+14155550123',
        plan: input.plan ?? 'free',
        smsBackup: input.smsBackup ?? false,
        name: input.name ?? '',
      }),
    setCallStatus(callId, status, columns = {}) {
      const sets = ['status = @status', 'updated_at = @now', ...Object.keys(columns).map((c) => `${c} = @${c}`)];
      stores.db
        .prepare(`UPDATE calls SET ${sets.join(', ')} WHERE call_id = @call_id`)
        .run({ ...columns, status, now: clock.now(), call_id: callId });
      emit(callId);
    },
    async stop() {
      shutdown.abort();
      await servers.close();
      await stores.close();
    },
  };
}

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/provision-browser.sh`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

export async function newContext(
  browser: Browser,
  baseUrl: string,
  viewport: keyof typeof VIEWPORTS = 'desktop',
): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    ignoreHTTPSErrors: true,
    viewport: VIEWPORTS[viewport],
    locale: 'en-US',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  return context;
}

/** Saves a full-page screenshot as test-results/screenshots/NAME-VIEWPORT.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  const file = path.join(SCREENSHOTS, `${name}-${width <= 480 ? 'phone' : 'desktop'}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
