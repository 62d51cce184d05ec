// The doctor's checks of the way to the provider: the registration as Asterisk reports it, the
// trunk's TLS certificate as Asterisk will check it, and the NAT between this machine and the trunk.
import { execFile } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import type { Config, TrunkConfig } from '../config/index.js';
import { natProblem } from '../core/connections/network.js';
import { reasonText } from '../core/reasons.js';
import { asteriskCliCommand, readProvisionedRuntime } from '../pbx/index.js';
import { parseSipUri, SYSTEM_CA_FILE } from '../pbx/index.js';
import { parseRegistrations } from '../pbx/index.js';
import { publicAddressFromStun } from '../pbx/index.js';
import { probeTls } from '../pbx/index.js';
import { type Check, type CheckResult, fail, pass, skip } from './doctor-result.js';

const trunksOf = (config: Config) =>
  [
    ['trunk', config.telephony.trunk],
    ['trunk2', config.telephony.trunk2],
  ].filter((t): t is [string, TrunkConfig] => t[1] !== null);

/** One CLI command run by the managed Asterisk that serve started on this data dir. */
async function managedAsteriskCli(config: Config, command: string): Promise<string> {
  const runtime = await readProvisionedRuntime(config.telephony.cacheDir);
  const runDir = path.join(config.dataDir, 'asterisk');
  const pid = Number(fs.readFileSync(path.join(runDir, 'run', 'asterisk.pid'), 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 1) throw new Error('no running Asterisk recorded');
  const { file, args } = asteriskCliCommand(runtime, pid, path.join(runDir, 'etc', 'asterisk.conf'), command);
  return (await promisify(execFile)(file, args, { timeout: 5_000 })).stdout;
}

/** Behind NAT the registration is also the keepalive: its state is the provider's last answer. */
export const checkRegistration: Check = async (config) => {
  const registering = trunksOf(config).filter(([, t]) => t.register);
  if (config.telephony.mode === 'off' || registering.length === 0)
    return skip('registration', 'no trunk registers (RINGHOOK_TRUNK_REGISTER is off)');
  if (config.telephony.mode !== 'managed')
    return skip('registration', 'an external Asterisk: see its `pjsip show registrations`');
  let rows: ReturnType<typeof parseRegistrations>;
  try {
    rows = parseRegistrations(await managedAsteriskCli(config, 'pjsip show registrations'));
  } catch (error) {
    return skip(
      'registration',
      `could not ask the managed Asterisk (is ringhook serve running?): ${(error as Error).message.split('\n')[0]}`,
    );
  }
  const states = registering.map(([name]) => {
    const row = rows.find((r) => r.trunk === name);
    const state = row
      ? `${row.status}${row.expiresInSec === undefined ? '' : `, renewed within ${row.expiresInSec} s`}`
      : 'not known to Asterisk';
    return {
      name,
      ok: row?.status === 'Registered',
      status: row?.status ?? 'not known to Asterisk',
      text: `${name} at ${row?.server ?? '?'}: ${state}`,
    };
  });
  if (states.every((s) => s.ok)) return pass('registration', states.map((s) => s.text).join('; '));
  const first = states.find((s) => !s.ok)!;
  return fail(
    'registration',
    states.map((s) => s.text).join('; '),
    `${reasonText('trunk_unregistered', { registration: first.status })} Also see the trunk-tls check and the log in <data dir>/asterisk/log/messages.log`,
  );
};

/** A trunk over TLS: the certificate is checked as Asterisk will check it. */
export const checkTrunkTls: Check = async (config) => {
  const tls = trunksOf(config).filter(([, t]) => t.transport === 'tls');
  if (config.telephony.mode === 'off' || trunksOf(config).length === 0) return skip('trunk-tls', 'no trunk');
  if (tls.length === 0) {
    return skip(
      'trunk-tls',
      'the trunk is reached over plain SIP: the signalling and the audio cross the internet in the clear (RINGHOOK_TRUNK_TRANSPORT=tls and RINGHOOK_TRUNK_MEDIA_ENCRYPTION=sdes encrypt them where the provider offers it)',
    );
  }
  const caFile = config.telephony.sip.trunkCaFile ?? (fs.existsSync(SYSTEM_CA_FILE) ? SYSTEM_CA_FILE : undefined);
  let ca: string | undefined;
  try {
    ca = caFile === undefined ? undefined : fs.readFileSync(caFile, 'utf8');
  } catch (error) {
    return fail(
      'trunk-tls',
      `${caFile} cannot be read: ${(error as Error).message}`,
      'set RINGHOOK_TRUNK_CA_FILE to a readable PEM file',
    );
  }
  const results: CheckResult[] = [];
  for (const [name, trunk] of tls) {
    const uri = parseSipUri(trunk.uri);
    const host = uri.host.replace(/^\[|\]$/g, '');
    const probe = await probeTls(host, uri.port ?? 5061, ca);
    if (probe.ok) {
      results.push(
        pass(
          'trunk-tls',
          `${name}: ${host} presents ${probe.subject}, issued by ${probe.issuer}, valid until ${probe.validTo}`,
        ),
      );
      continue;
    }
    const fix =
      probe.problem === 'untrusted'
        ? "set RINGHOOK_TRUNK_CA_FILE to your provider's certificate authority (PEM), as its documentation gives it"
        : probe.problem === 'wrong_name'
          ? "use the host name the provider's certificate is made for in the trunk's URI"
          : probe.problem === 'expired'
            ? 'the provider must renew its certificate: tell them, or use plain SIP meanwhile'
            : 'check that the provider offers SIP over TLS, and its port (sips:host:port; 5061 by default)';
    results.push(fail('trunk-tls', `${name}: ${probe.detail}`, fix));
  }
  return results.find((r) => r.ok === false) ?? { ...results[0]!, detail: results.map((r) => r.detail).join('; ') };
};

/** Behind NAT with a public trunk and no external address, the audio and the digits are lost. */
export const checkNat: Check = async (config) => {
  const { trunk, sip } = config.telephony;
  if (config.telephony.mode === 'off' || !trunk) return skip('nat', 'no trunk: nothing crosses a NAT');
  const host = parseSipUri(trunk.uri).host.replace(/^\[|\]$/g, '');
  let trunkAddress: string;
  try {
    trunkAddress = isIP(host) ? host : (await lookup(host, { family: 4 })).address;
  } catch (error) {
    return fail(
      'nat',
      `the trunk's host ${host} does not resolve: ${(error as Error).message}`,
      "check RINGHOOK_TRUNK_URI and this machine's DNS",
    );
  }
  if (sip.externalAddress === undefined && sip.stunServer !== undefined) {
    const where = `${sip.stunServer.host}:${sip.stunServer.port}`;
    try {
      return pass(
        'nat',
        `the STUN server ${where} sees this network at ${await publicAddressFromStun(sip.stunServer)}: the provider is given that address`,
      );
    } catch (error) {
      return fail(
        'nat',
        `RINGHOOK_STUN_SERVER: ${(error as Error).message}`,
        `check that ${where} is a STUN server reachable over UDP, or set RINGHOOK_SIP_EXTERNAL_ADDRESS`,
      );
    }
  }
  if (sip.externalAddress !== undefined) {
    try {
      const external = isIP(sip.externalAddress)
        ? sip.externalAddress
        : (await lookup(sip.externalAddress, { family: 4 })).address;
      return pass(
        'nat',
        `the provider is given ${sip.externalAddress}${external === sip.externalAddress ? '' : ` (${external})`} for SIP and audio; forward UDP ${sip.port} and the RTP ports to this machine if the router does not keep the bindings`,
      );
    } catch (error) {
      return fail(
        'nat',
        `RINGHOOK_SIP_EXTERNAL_ADDRESS ${sip.externalAddress} does not resolve: ${(error as Error).message}`,
        'set it to your public address or a dynamic-DNS name that resolves',
      );
    }
  }
  const localAddresses = Object.values(os.networkInterfaces())
    .flat()
    .filter((i) => i?.family === 'IPv4')
    .map((i) => i!.address);
  const problem = natProblem({ localAddresses, trunkAddress, externalAddress: sip.externalAddress });
  if (problem) {
    return fail(
      'nat',
      problem,
      `set RINGHOOK_SIP_EXTERNAL_ADDRESS to your router's public address (or a dynamic-DNS name) and, if the router's LAN is not a private range, RINGHOOK_SIP_LOCAL_NET; see docs/phones.md, "At home, behind a router"`,
    );
  }
  return pass('nat', `the trunk ${trunkAddress} is reached without NAT, or from a public address`);
};
