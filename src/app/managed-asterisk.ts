// The Asterisk that serve runs itself (RINGHOOK_TELEPHONY=managed): its folder, its runtime, the
// public address behind NAT, the trunk's authorities and the local softphone's credentials.
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';
import { isPrivateIpv4 } from '../core/connections/network.js';
import { UserError } from '../lib/errors.js';
import type { Logger } from '../lib/log.js';
import { persistentSecret, readOrCreateSecret } from '../lib/secret-file.js';
import { asteriskTemplates, ManagedAsterisk } from '../pbx/index.js';
import { asteriskPathProblem } from '../pbx/index.js';
import { type AsteriskRuntime, readProvisionedRuntime } from '../pbx/index.js';
import { publicAddressFromStun } from '../pbx/index.js';

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

export function managedSoftphone(config: Config): Softphone {
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

export async function startManagedAsterisk(
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
