// Benchmark 3 through a home router: serve (default configuration, RINGHOOK_SIP_EXTERNAL_ADDRESS set)
// in the lab's private network, the phone (SIPp answer-talk, ringing 1.5 s) at the provider behind
// the lab router's masquerade and firewall (test/helpers/netlab), test calls placed one after
// another. Answer → first speech is read on the phone's side of the router: a capture of its outside
// interface, from the phone's ACK to the first RTP packet with sound coming to it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { ROOT, log, summarize } from './lib/common.mjs';

const PHONE_MEDIA_PORT = 16000;

/** µ-law payload with sound (the rule of test/helpers/rtp-sink). */
function isLoudPcmu(payload) {
  if (payload.length < 12 || (payload[1] & 0x7f) !== 0) return false;
  const audio = payload.subarray(12);
  return audio.filter((b) => (b & 0x7f) < 0x60).length > audio.length / 10;
}

const BIN = path.join(ROOT, 'bin', 'ringhook.js');
const withPath = (env) => ({ PATH: process.env.PATH, HOME: process.env.HOME, ...env });

function runCliJson(args, env, okStatuses = [0]) {
  const res = spawnSync(process.execPath, [BIN, ...args, '--json'], { env: withPath(env), encoding: 'utf8' });
  if (!okStatuses.includes(res.status ?? -1))
    throw new Error(`ringhook ${args.join(' ')} failed: ${res.stdout}${res.stderr}`);
  return JSON.parse(res.stdout);
}

/** serve in the lab's home network, once it says it listens. */
async function startServeAt(inside, env) {
  const child = spawn(inside[0], [...inside.slice(1), process.execPath, BIN, 'serve'], {
    env: withPath(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in 120 s: ${output.slice(-2000)}`)), 120_000);
    const keep = (chunk) => {
      output += chunk;
      if (output.includes('ringhook is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${output.slice(-2000)}`)));
  });
  return {
    async stop() {
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
    },
  };
}

/** `tree`: where buildHelpers compiled the test helpers. */
export async function runRouterBench(tree, { callsPerPhone = 4 } = {}) {
  const { createNetLab, LAB } = await import(path.join(tree, 'test/helpers/netlab.js'));
  const { talkingPhonePcap } = await import(path.join(tree, 'test/helpers/talking-phone.js'));
  const { spokenUlaw } = await import(path.join(tree, 'test/helpers/rtp-phone.js'));
  const { SCENARIO_DIR } = await import(path.join(tree, 'test/helpers/sipp.js'));
  let lab;
  try {
    lab = createNetLab();
  } catch (error) {
    return { skipped: `no network lab here (root and ip netns are needed): ${String(error.message).split('\n')[0]}` };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rh-bench-router-'));
  let serve;
  let env;
  try {
    const greeting =
      "Hi, you've reached Alex. I can't take your call right now. Please leave a message after the tone.";
    const phones = {
      person: { voice: spokenUlaw(dir, 'hello', 'Hello?').samples, totalMs: 12_000, digit: { key: '1', atMs: 3_000 } },
      silent: { voice: Buffer.alloc(0), totalMs: 20_000 },
      voicemail: {
        voice: spokenUlaw(dir, 'greeting', greeting, { toneHz: 1000, toneMs: 400 }).samples,
        totalMs: 30_000,
      },
    };
    env = {
      RINGHOOK_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'rh-bench-router-data-')),
      RINGHOOK_HOST: '127.0.0.1',
      RINGHOOK_TELEPHONY: 'managed',
      RINGHOOK_SIP_HOST: '0.0.0.0',
      RINGHOOK_TRUNK_URI: `sip:${LAB.provider}:5060`,
      RINGHOOK_SIP_EXTERNAL_ADDRESS: LAB.routerOutside,
      RINGHOOK_RING_TIMEOUT: '10',
    };
    serve = await startServeAt(lab.inside(lab.home), env);
    const result = { description: '', phones: {} };
    for (const [kind, talk] of Object.entries(phones)) {
      fs.writeFileSync(path.join(dir, 'phone.pcap'), talkingPhonePcap(talk));
      const sipp = [
        'sipp',
        '-sf',
        path.join(SCENARIO_DIR, 'answer-talk.xml'),
        '-i',
        LAB.provider,
        '-p',
        '5060',
        '-mi',
        LAB.provider,
        '-mp',
        String(PHONE_MEDIA_PORT),
      ];
      const phone = spawn(
        'ip',
        [...lab.inside(lab.provider).slice(1), ...sipp, '-m', String(callsPerPhone), '-timeout', '300s', '-nostdin'],
        {
          cwd: dir,
          stdio: 'ignore',
        },
      );
      const capture = await lab.captureOutside();
      const outcomes = [];
      try {
        await new Promise((r) => setTimeout(r, 500));
        for (let i = 0; i < callsPerPhone; i++) {
          // An account a call: test calls to one account are few an hour.
          const account = runCliJson(
            ['account', 'create', '--phone', '+14155550123', '--plan', 'premium', '--require-confirm', 'off'],
            env,
          );
          const call = runCliJson(['test-call', account.user_id, '--wait', '40'], env, [0, 1]);
          outcomes.push(
            `${call.status} ${(call.timeline.find((e) => e.event === 'amd')?.detail ?? '').split(' ')[0]}`.trim(),
          );
        }
      } finally {
        phone.kill('SIGKILL');
      }
      const packets = await capture.stop();
      const acks = packets
        .filter((p) => p.protocol === 'udp' && p.dport === 5060 && p.payload.toString('latin1').startsWith('ACK '))
        .map((p) => p.at);
      const firstSound = acks.map((at, i) => {
        const next = acks[i + 1] ?? Number.POSITIVE_INFINITY;
        const loud = packets.find(
          (p) =>
            p.at >= at &&
            p.at < next &&
            p.src === LAB.routerOutside &&
            p.dport === PHONE_MEDIA_PORT &&
            isLoudPcmu(p.payload),
        );
        return loud ? loud.at - at : Number.NaN;
      });
      const ackToFirstSound = summarize(firstSound.filter((x) => !Number.isNaN(x)));
      const counted = outcomes.reduce((acc, o) => ((acc[o] = (acc[o] ?? 0) + 1), acc), {});
      result.phones[kind] = {
        ack_to_first_sound_ms: ackToFirstSound,
        calls: acks.length,
        without_sound: firstSound.filter((x) => Number.isNaN(x)).length,
        outcomes: counted,
      };
      log(
        `telephony (router): ${kind}: ACK → first word p50 ${ackToFirstSound.p50} ms p95 ${ackToFirstSound.p95} ms; ${JSON.stringify(counted)}`,
      );
    }
    const p95s = Object.values(result.phones).map((x) => x.ack_to_first_sound_ms.p95);
    result.description = `the same through the network lab's home router (masquerade, unasked inbound dropped), RINGHOOK_SIP_EXTERNAL_ADDRESS set; a SIPp phone at the provider that rings 1.5 s and talks from its answer; ${callsPerPhone} test calls per phone, one after another; timed on a capture of the router's outside interface`;
    result.p95 = Math.max(...p95s);
    result.target_p95_under_300ms = Math.max(...p95s) < 300;
    return result;
  } finally {
    await serve?.stop();
    lab.remove();
    fs.rmSync(dir, { recursive: true, force: true });
    if (env) fs.rmSync(env.RINGHOOK_DATA_DIR, { recursive: true, force: true });
  }
}
