// Provisions Asterisk (scripts/provision-asterisk.sh, cached) and starts a managed instance for a
// test on free loopback ports, with a random ARI password and its own temporary folders.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLogger, silentLogger, type Logger } from '../../src/lib/log.js';
import { AriClient } from '../../src/pbx/ari.js';
import { loadAsteriskTemplates, ManagedAsterisk } from '../../src/pbx/asterisk.js';
import {
  type AsteriskRuntime,
  asteriskCliCommand,
  parseRuntime,
  readProvisionedRuntime,
} from '../../src/pbx/asterisk-runtime.js';
import { freeRtpRange, freeTcpPort, freeUdpPort } from './ports.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let provisioned: Promise<AsteriskRuntime> | undefined;

/**
 * Runs the provisioning scripts once per test process (Asterisk, then flite/espeak-ng/Festival/sox/SIPp);
 * both are quick no-ops when everything is in place, but the check costs about 2 s of CPU (apt's
 * package lists), so under `npm test`, which provisioned every peer before the run
 * (RINGHOOK_TEST_PEERS_PROVISIONED=1), the runtime the script recorded is read instead.
 */
export function provisionAsterisk(): Promise<AsteriskRuntime> {
  if (process.env.RINGHOOK_TEST_PEERS_PROVISIONED === '1') {
    const cacheDir = process.env.RINGHOOK_CACHE_DIR ?? `${process.env.HOME ?? '/root'}/.cache/ringhook`;
    provisioned ??= readProvisionedRuntime(cacheDir);
    return provisioned;
  }
  const run = (script: string) =>
    promisify(execFile)('bash', [`${ROOT}scripts/${script}`], {
      maxBuffer: 10 * 1024 * 1024,
      timeout: 15 * 60_000,
    });
  provisioned ??= run('provision-asterisk.sh').then(async ({ stdout }) => {
    await run('provision-phone-tools.sh');
    return parseRuntime(stdout.trim().split('\n').at(-1) ?? '');
  });
  return provisioned;
}

export interface TestAsterisk {
  asterisk: ManagedAsterisk;
  ariUrl: string;
  ariUser: string;
  ariPassword: string;
  /** The trunk's SIP port (where a SIPp phone should listen). */
  trunkPort: number;
  sipPort: number;
  mediaDir: string;
  dataDir: string;
  logger: Logger;
  stop(): Promise<void>;
}

export async function startTestAsterisk(options: { trunkPort?: number } = {}): Promise<TestAsterisk> {
  const runtime = await provisionAsterisk();
  const dataDir = await mkdtemp('/tmp/rh-ast-');
  const mediaDir = `${dataDir}/media`;
  const trunkPort = options.trunkPort ?? (await freeUdpPort());
  const sipPort = await freeUdpPort();
  const httpPort = await freeTcpPort();
  // Its own RTP range: Asterisks of files running at once never bind each other's media ports.
  const rtp = await freeRtpRange(200);
  const ariPassword = randomBytes(18).toString('base64url');
  const logger = process.env.RINGHOOK_TEST_LOG ? createLogger({ level: 'debug' }) : silentLogger;
  const asterisk = new ManagedAsterisk({
    runtime,
    dataDir,
    mediaDir,
    templates: await loadAsteriskTemplates(`${ROOT}asterisk`),
    config: {
      http: { port: httpPort },
      ari: { user: 'ringhook', password: ariPassword },
      sip: { port: sipPort },
      rtp,
      trunk: { uri: `sip:127.0.0.1:${trunkPort}` },
    },
    logger,
    restartBackoff: { initialMs: 100, maxMs: 1_000 },
  });
  await asterisk.start();
  return {
    asterisk,
    ariUrl: asterisk.ariUrl,
    ariUser: 'ringhook',
    ariPassword,
    trunkPort,
    sipPort,
    mediaDir,
    dataDir,
    logger,
    stop: async () => {
      await asterisk.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs one Asterisk CLI command (`asterisk -rx`) against a running managed Asterisk, through its
 * control socket, like an operator would. A root file system Asterisk lives in a chroot inside a
 * private mount namespace (its run dir is bound in there), so the CLI is run in that namespace and
 * root with nsenter; a host Asterisk is reached directly.
 */
export async function asteriskCli(
  asterisk: { pid: number | undefined; runDir: string },
  command: string,
  timeoutMs = 15_000,
): Promise<string> {
  const runtime = await provisionAsterisk();
  const pid = asterisk.pid;
  if (pid === undefined) throw new Error('Asterisk is not running');
  const { file, args } = asteriskCliCommand(runtime, pid, `${asterisk.runDir}/etc/asterisk.conf`, command);
  const { stdout } = await promisify(execFile)(file, args, { timeout: timeoutMs });
  return stdout;
}

/** An ARI client connected to a test Asterisk as the ARI tests use it: quick heartbeats and reconnects. */
export async function connectTestAri(pbx: TestAsterisk): Promise<AriClient> {
  const ari = new AriClient({
    baseUrl: pbx.ariUrl,
    user: pbx.ariUser,
    password: pbx.ariPassword,
    app: 'ringhook-test',
    logger: pbx.logger,
    heartbeatMs: 500,
    reconnect: { initialMs: 100, maxMs: 1_000 },
  });
  await ari.connect();
  return ari;
}
