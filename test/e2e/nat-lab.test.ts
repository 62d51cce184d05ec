// A home network behind a NAT router, in network namespaces made for this test: ringhook serve and
// its managed Asterisk in `home` (a private address), a SIP provider's phone (SIPp) in `provider` on
// the other side of the router's masquerade. The phone answers and sends the digit 1 (RFC 4733) to
// the media address Asterisk wrote in its SDP. Without RINGHOOK_SIP_EXTERNAL_ADDRESS that address is
// the private one, which the provider cannot reach: the digit is lost (the failure the setting fixes,
// shown so the lab is known to be real). With it, the digit comes back through the NAT.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { cacheDirEnv } from '../helpers/cli.js';
import { createNetLab, LAB, type NetLab, udpBoundIn } from '../helpers/netlab.js';
import { byteEntropy, type Packet } from '../helpers/pcap.js';
import { makeCertificates, type SipProvider, startSipProvider, wavRms } from '../helpers/sip-provider.js';
import { makeDataDir } from '../helpers/service.js';
import { SCENARIO_DIR } from '../helpers/sipp.js';
import { waitFor } from '../helpers/wait.js';
import { buildOnce, REPO_ROOT, runCliJson, type ServeProcess, startServe } from '../soak/peers.js';

let lab: NetLab;
let serve: ServeProcess | undefined;
let phone: ChildProcess | undefined;
let phoneDir: string;

beforeAll(async () => {
  await provisionAsterisk();
  buildOnce();
  lab = createNetLab();
  phoneDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-nat-phone-'));
}, 300_000);

afterEach(async () => {
  phone?.kill('SIGKILL');
  phone = undefined;
  await serve?.stop();
  serve = undefined;
});

afterAll(() => {
  lab?.remove();
  if (phoneDir) fs.rmSync(phoneDir, { recursive: true, force: true });
});

/** The provider's phone: answers, then presses 1 a second later, towards the SDP's media address. */
async function startProviderPhone(calls = 1): Promise<void> {
  phone = spawn(
    'ip',
    [
      ...lab.inside(lab.provider).slice(1),
      'sipp',
      '-sf',
      path.join(SCENARIO_DIR, 'dtmf-1.xml'),
      '-i',
      LAB.provider,
      '-p',
      '5060',
      '-mi',
      LAB.provider,
      '-mp',
      '16000',
      '-m',
      String(calls),
      '-timeout',
      '60s',
      '-nostdin',
    ],
    { cwd: phoneDir, stdio: 'ignore' },
  );
  const started = phone;
  await waitFor(
    'the provider phone on UDP 5060',
    () => (udpBoundIn(started.pid, LAB.provider, 5060) ? true : undefined),
    10_000,
  );
}

/** ringhook in the home network, a test call to the provider's phone, its final state and timeline. */
interface TestCall {
  status: string;
  timeline: Array<{ event: string; detail: string | null }>;
}

function ringhookEnv(extra: Record<string, string>): Record<string, string> {
  return {
    ...cacheDirEnv(),
    RINGHOOK_DATA_DIR: makeDataDir('rh-nat-'),
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_TELEPHONY: 'managed',
    // The namespace is the test's alone: Asterisk's usual ports are free there.
    RINGHOOK_SIP_HOST: '0.0.0.0',
    RINGHOOK_TRUNK_URI: `sip:${LAB.provider}:5060`,
    RINGHOOK_RING_TIMEOUT: '10',
    RINGHOOK_AMD: 'off',
    ...extra,
  };
}

/** ringhook serve in the home network with one account; `call()` places a test call and waits for its end. */
async function startHome(
  extra: Record<string, string>,
): Promise<{ env: Record<string, string>; call: () => TestCall }> {
  const env = ringhookEnv(extra);
  serve = await startServe(env, 120_000, lab.inside(lab.home));
  const account = runCliJson(
    ['account', 'create', '--phone', '+14155550123', '--plan', 'premium', '--require-confirm', 'off'],
    env,
  ) as { user_id: string };
  return { env, call: () => runCliJson(['test-call', account.user_id, '--wait', '30'], env, [0, 1]) as TestCall };
}

async function testCallThroughNat(
  extra: Record<string, string>,
  afterFirst?: (again: () => TestCall) => Promise<void>,
): Promise<TestCall> {
  const { call } = await startHome(extra);
  await startProviderPhone(afterFirst ? 2 : 1);
  const first = call();
  await afterFirst?.(call);
  return first;
}

it("today's configuration behind NAT: the call is answered but the digit, sent to the private address in the SDP, never arrives", async () => {
  const call = await testCallThroughNat({});
  expect(call.status).toBe('completed');
  expect(call.timeline.map((e) => e.event)).not.toContain('digit');
}, 180_000);

it("with RINGHOOK_SIP_EXTERNAL_ADDRESS: the provider is given the router's public address, and the digit 1 comes home: acknowledged", async () => {
  const call = await testCallThroughNat({
    RINGHOOK_SIP_EXTERNAL_ADDRESS: LAB.routerOutside,
    RINGHOOK_SIP_LOCAL_NET: '10.77.0.0/24,127.0.0.0/8',
  });
  expect(call.timeline.map((e) => e.event)).toContain('digit');
  expect(call.status).toBe('acknowledged');
}, 180_000);

it('after the router forgot every UDP binding (a 3 s timeout, 5 s idle), the next alert still reaches the phone and its digit comes home', async () => {
  lab.setUdpTimeout(3);
  let second: TestCall | undefined;
  const first = await testCallThroughNat({ RINGHOOK_SIP_EXTERNAL_ADDRESS: LAB.routerOutside }, async (again) => {
    await new Promise((r) => setTimeout(r, 5_000)); // the router's memory, on purpose: nothing to await
    second = again();
  });
  expect(first.status).toBe('acknowledged');
  expect(second?.status).toBe('acknowledged');
}, 240_000);

it('RINGHOOK_STUN_SERVER instead of the external address: the public address is learned through the NAT (coturn in the provider network) and the digit comes home; a STUN server that does not answer stops the start with the fix', async () => {
  const stun = spawn(
    'ip',
    [
      ...lab.inside(lab.provider).slice(1),
      'turnserver',
      '-n',
      '--stun-only',
      '--no-cli',
      '--no-tls',
      '--no-dtls',
      '--listening-ip',
      LAB.provider,
      '--listening-port',
      '3478',
      '--log-file',
      'stdout',
    ],
    { stdio: 'ignore' },
  );
  try {
    await waitFor('coturn on UDP 3478', () => (udpBoundIn(stun.pid, LAB.provider, 3478) ? true : undefined), 10_000);
    const call = await testCallThroughNat({ RINGHOOK_STUN_SERVER: `${LAB.provider}:3478` });
    expect(serve!.output()).toMatch(/public address from STUN.*203\.0\.113\.1/);
    expect(call.status).toBe('acknowledged');
  } finally {
    stun.kill('SIGKILL');
  }
  await serve?.stop();
  serve = undefined;
  await expect(
    startServe(ringhookEnv({ RINGHOOK_STUN_SERVER: `${LAB.provider}:3479` }), 60_000, lab.inside(lab.home)),
  ).rejects.toThrow(
    /could not learn this network's public address from RINGHOOK_STUN_SERVER: no answer from the STUN server 203\.0\.113\.2:3479 .*set RINGHOOK_SIP_EXTERNAL_ADDRESS instead/,
  );
}, 180_000);

type DoctorCheck = { name: string; ok: boolean | 'skipped'; detail: string; fix?: string };

/** `ringhook doctor --json` run in the home network, with serve's environment and `extra`. */
function doctorAtHome(env: Record<string, string>): DoctorCheck[] {
  const res = spawnSync(
    'ip',
    [
      ...lab.inside(lab.home).slice(1),
      process.execPath,
      path.join(REPO_ROOT, 'bin', 'ringhook.js'),
      'doctor',
      '--json',
    ],
    {
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
      encoding: 'utf8',
    },
  );
  return JSON.parse(res.stdout) as DoctorCheck[];
}

it('ringhook doctor, run in the home network: a public trunk with no external address is named as the NAT problem, with the fix; with the address, passes', () => {
  const doctor = (extra: Record<string, string>) =>
    doctorAtHome({
      ...cacheDirEnv(),
      RINGHOOK_DATA_DIR: makeDataDir('rh-nat-doctor-'),
      RINGHOOK_TRUNK_URI: `sip:${LAB.provider}:5060`,
      ...extra,
    }).find((c) => c.name === 'nat')!;
  const behindNat = doctor({});
  expect(behindNat.ok).toBe(false);
  expect(behindNat.detail).toMatch(
    /only private addresses \(10\.77\.0\.2\) and the trunk 203\.0\.113\.2 is on the internet/,
  );
  expect(behindNat.fix).toMatch(/set RINGHOOK_SIP_EXTERNAL_ADDRESS to your router's public address/);
  expect(doctor({ RINGHOOK_SIP_EXTERNAL_ADDRESS: LAB.routerOutside }).ok).toBe(true);
  const unresolvable = doctor({ RINGHOOK_SIP_EXTERNAL_ADDRESS: 'no-such-host.invalid' });
  expect(unresolvable).toMatchObject({
    ok: false,
    detail: expect.stringMatching(/RINGHOOK_SIP_EXTERNAL_ADDRESS no-such-host\.invalid does not resolve/),
  });
}, 60_000);

describe('a SIP provider of its own (a second Asterisk in the provider network): registrar, phone network, TLS and SRTP', () => {
  const account = { username: 'home-1234', password: randomBytes(9).toString('hex') };
  const trunk = {
    RINGHOOK_SIP_EXTERNAL_ADDRESS: LAB.routerOutside,
    RINGHOOK_TRUNK_USERNAME: account.username,
    RINGHOOK_TRUNK_PASSWORD: account.password,
    RINGHOOK_TRUNK_REGISTER: 'on',
  };
  let provider: SipProvider | undefined;
  let certDir: string;

  beforeAll(() => {
    certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-lab-certs-'));
  });
  afterEach(async () => {
    await provider?.stop();
    provider = undefined;
  });
  afterAll(() => fs.rmSync(certDir, { recursive: true, force: true }));

  /** The contact ringhook registered at the provider, once it has. */
  const registeredContact = () =>
    waitFor(
      'ringhook registered at the provider',
      async () =>
        (await provider!.cli('pjsip show contacts'))
          .split('\n')
          .find((line) => line.includes(`${account.username}/sip:`)),
      30_000,
      500,
    );
  /** G.711 speech is far from random; SRTP's ciphertext is not. */
  const audioEntropy = (packets: Packet[]) =>
    byteEntropy(
      Buffer.concat(
        packets
          .filter((p) => p.protocol === 'udp' && p.src === LAB.routerOutside && p.dport >= 16000 && p.dport < 17000)
          .map((p) => p.payload.subarray(12)),
      ),
    );
  const sipInClear = (packets: Packet[]) =>
    packets.some((p) => /SIP\/2\.0|INVITE sip/.test(p.payload.toString('latin1')));

  it('registration with digest auth through the NAT; the call answered, the speech heard at the phone, the digit 1 back: acknowledged (SIP and audio in the clear on the wire)', async () => {
    provider = await startSipProvider({ inside: lab.inside(lab.provider), address: LAB.provider, account });
    const capture = await lab.captureOutside();
    const { call } = await startHome({ ...trunk, RINGHOOK_TRUNK_URI: `sip:${LAB.provider}` });
    expect(await registeredContact()).toContain(LAB.routerOutside);
    const result = call();
    const packets = await capture.stop();
    expect(result.status, JSON.stringify(result.timeline)).toBe('acknowledged');
    expect(provider.recordings()).toHaveLength(1);
    expect(wavRms(provider.recordings()[0]!)).toBeGreaterThan(0.01);
    console.log(
      'figures: provider over UDP',
      JSON.stringify({
        rms: wavRms(provider.recordings()[0]!),
        entropy: audioEntropy(packets),
        packets: packets.length,
      }),
    );
    // What the next case must not show: the lab sees SIP and speech when they are sent in the clear.
    expect(sipInClear(packets)).toBe(true);
    // Clear G.711 speech measured 7.3–7.7 bits a byte (higher since speech starts without its
    // leading silence); SRTP's ciphertext, like random bytes of this length, ~7.99.
    expect(audioEntropy(packets)).toBeLessThan(7.85);
  }, 180_000);

  it("TLS and SRTP to the provider: registered through the NAT, acknowledged, the speech heard, and the router's outside interface carries no SIP and no clear audio", async () => {
    const certs = makeCertificates(certDir, 'provider', LAB.provider);
    provider = await startSipProvider({
      inside: lab.inside(lab.provider),
      address: LAB.provider,
      account,
      tls: certs,
      mediaEncryption: 'sdes',
    });
    const capture = await lab.captureOutside();
    const { env, call } = await startHome({
      ...trunk,
      RINGHOOK_TRUNK_URI: `sips:${LAB.provider}`,
      RINGHOOK_TRUNK_MEDIA_ENCRYPTION: 'sdes',
      RINGHOOK_TRUNK_CA_FILE: certs.caFile,
    });
    expect(await registeredContact()).toContain(LAB.routerOutside);
    const doctor = doctorAtHome(env);
    expect(doctor.find((c) => c.name === 'trunk-tls')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/presents 203\.0\.113\.2, issued by provider lab CA/),
    });
    expect(doctor.find((c) => c.name === 'registration')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^trunk at sip:203\.0\.113\.2.*: Registered, renewed within \d+ s$/),
    });
    const result = call();
    const packets = await capture.stop();
    expect(result.status, JSON.stringify(result.timeline)).toBe('acknowledged');
    expect(wavRms(provider.recordings()[0]!)).toBeGreaterThan(0.01);
    console.log(
      'figures: provider over TLS + SRTP',
      JSON.stringify({
        rms: wavRms(provider.recordings()[0]!),
        entropy: audioEntropy(packets),
        packets: packets.length,
      }),
    );
    expect(packets.some((p) => p.protocol === 'tcp' && p.dport === 5061 && p.payload.length > 0)).toBe(true);
    expect(sipInClear(packets)).toBe(false);
    expect(audioEntropy(packets)).toBeGreaterThan(7.9);
  }, 180_000);

  it('a provider whose TLS certificate this machine does not trust: nothing is sent in the clear, the call ends unreachable, and doctor names the certificate with the fix', async () => {
    const trusted = makeCertificates(certDir, 'trusted', LAB.provider);
    const other = makeCertificates(certDir, 'other', LAB.provider);
    provider = await startSipProvider({
      inside: lab.inside(lab.provider),
      address: LAB.provider,
      account,
      tls: other,
      mediaEncryption: 'sdes',
    });
    const capture = await lab.captureOutside();
    const { env, call } = await startHome({
      ...trunk,
      RINGHOOK_TRUNK_URI: `sips:${LAB.provider}`,
      RINGHOOK_TRUNK_MEDIA_ENCRYPTION: 'sdes',
      RINGHOOK_TRUNK_CA_FILE: trusted.caFile,
    });
    const result = call();
    const packets = await capture.stop();
    expect(result.status, JSON.stringify(result.timeline)).toBe('unreachable');
    expect(provider.recordings()).toHaveLength(0);
    expect(sipInClear(packets)).toBe(false);
    const doctor = doctorAtHome(env);
    expect(doctor.find((c) => c.name === 'trunk-tls')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(
        /^trunk: the certificate of 203\.0\.113\.2:5061 \(203\.0\.113\.2, issued by other lab CA\) is not signed by an authority this machine trusts/,
      ),
      fix: expect.stringMatching(/RINGHOOK_TRUNK_CA_FILE/),
    });
    expect(doctor.find((c) => c.name === 'registration')).toMatchObject({
      ok: false,
      detail: expect.not.stringMatching(/: Registered/),
    });
  }, 180_000);
});
