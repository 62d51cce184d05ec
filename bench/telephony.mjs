// Benchmarks 2 (alert → INVITE), 3 (answer → first word, for a person, a silent phone and a voicemail), 4 (missed call → SMS at Kannel's fakesmsc)
// and 5 (concurrent answered calls), through `ringhook serve` (child process) with its managed
// Asterisk 22 and a SIP phone of our own (lib/uas.mjs) on the trunk. The Kannel peer comes from
// test/helpers, compiled by tsc into bench/.build/tree.
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  BENCH_DIR,
  ROOT,
  acrossRuns,
  cpuMsOf,
  log,
  round,
  rssOf,
  sleep,
  summarize,
  writeResult,
} from './lib/common.mjs';
import { callingEnv, freshDataDir, seedAccounts, startServe } from './lib/ringhook.mjs';
import { startUas } from './lib/uas.mjs';
import { runRouterBench } from './router.mjs';

const TREE = path.join(BENCH_DIR, '.build', 'tree');

/** Compiles src + test helpers (tsc) so plain Node can import the helpers; links the files they find by relative path. */
export function buildHelpers() {
  execFileSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      path.join(ROOT, 'tsconfig.json'),
      '--noEmit',
      'false',
      '--outDir',
      TREE,
      '--sourceMap',
      'false',
    ],
    { cwd: ROOT, stdio: 'ignore' },
  );
  const link = (target, at) => {
    fs.rmSync(at, { force: true, recursive: true });
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(target, at);
  };
  link(path.join(ROOT, 'scripts'), path.join(TREE, 'scripts'));
  // test/soak/peers runs bin/ringhook.js beside the compiled tree (its real path finds dist/).
  link(path.join(ROOT, 'bin'), path.join(TREE, 'bin'));
  link(path.join(ROOT, 'asterisk'), path.join(TREE, 'asterisk'));
  link(path.join(ROOT, 'test', 'e2e', 'sipp'), path.join(TREE, 'test', 'e2e', 'sipp'));
  link(path.join(ROOT, 'test', 'helpers', 'smpp-server.pl'), path.join(TREE, 'test', 'helpers', 'smpp-server.pl'));
}

const wall = () => performance.timeOrigin + performance.now();

/** test/helpers/rtp-phone's spokenUlaw, once compiled. */
let spokenUlawAt;

const count = (values) => values.reduce((acc, v) => ((acc[v] = (acc[v] ?? 0) + 1), acc), {});

/** What each bench phone says from its answer (µ-law, made with flite and sox like the e2e phones). */
function speechFor(dataDir) {
  const dir = path.join(dataDir, 'voices');
  fs.mkdirSync(dir, { recursive: true });
  const spoken = (name, text, then) => spokenUlawAt(dir, name, text, then).samples;
  return {
    person: spoken('hello', 'Hello?'),
    silent: Buffer.alloc(0),
    voicemail: spoken(
      'greeting',
      "Hi, you've reached Alex. I can't take your call right now. Please leave a message after the tone.",
      {
        toneHz: 1000,
        toneMs: 400,
      },
    ),
  };
}

function post(url, ca, agent, tries = 0) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({
      ticker: 'BTCUSD',
      price: 64012.5,
      message: 'BTC crossed 64,000 on the 5 minute chart',
    });
    const req = https.request(
      url,
      {
        method: 'POST',
        ca,
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, json: JSON.parse(text) }));
      },
    );
    // A connection reset (a kept-alive one the server closed as it was taken, or a connect refused
    // while 40 calls start on this 2-core machine): tried again, a few times, on a new one.
    req.on('error', (error) =>
      error.code === 'ECONNRESET' && tries < 3
        ? sleep(50 * (tries + 1)).then(() => post(url, ca, agent, tries + 1).then(resolve, reject))
        : reject(error),
    );
    req.end(body);
  });
}

async function waitUntil(what, probe, timeoutMs, everyMs = 5) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Descendant pids of a process (the managed Asterisk runs under serve). */
function descendants(pid) {
  const out = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (ppid === pid) out.push(Number(d), ...descendants(Number(d)));
    } catch {
      // gone
    }
  }
  return out;
}

export async function runTelephonyBench(options = {}) {
  const o = { rate: 5, callsPerRun: 20, repeats: 3, answerCalls: 8, routerCalls: 4, steps: [10, 20, 40], ...options };
  buildHelpers();
  const { provisionAsterisk } = await import(path.join(TREE, 'test/helpers/asterisk.js'));
  const { startKannel } = await import(path.join(TREE, 'test/helpers/kannel.js'));
  const { freeTcpPort, freeUdpPort } = await import(path.join(TREE, 'test/helpers/ports.js'));
  spokenUlawAt = (await import(path.join(TREE, 'test/helpers/rtp-phone.js'))).spokenUlaw;
  log('telephony: provisioning Asterisk, starting Kannel');
  await provisionAsterisk();
  const kannel = await startKannel();
  const trunkPort = await freeUdpPort();
  const rtpBase = 30000 + Math.floor(Math.random() * 50) * 200;
  const totalAccounts = o.callsPerRun * o.repeats + o.answerCalls * 3 + o.steps.reduce((a, b) => a + b, 0) + 10;
  const dataDir = freshDataDir('telephony');
  const accounts = seedAccounts(dataDir, totalAccounts, 'premium', {
    smsBackup: true,
    phone: (i) => `+1444${String(i).padStart(7, '0')}`,
  });
  let next = 0;
  const take = () => accounts[next++];
  const serve = await startServe(dataDir, {
    env: await callingEnv({
      trunkPort,
      kannel,
      ports: { udp: freeUdpPort, tcp: freeTcpPort },
      rtpPorts: `${rtpBase}-${rtpBase + 199}`,
      extra: { RINGHOOK_RING_TIMEOUT: '5', RINGHOOK_MAX_CALLS: String(Math.max(...o.steps) + 10) },
    }),
  });
  const ca = fs.readFileSync(serve.cert);
  const agent = new https.Agent({ keepAlive: true, maxSockets: 8 });
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true });
  const row = db.prepare(
    'SELECT status, ended_at, answered_at, sms_status, sms_at, amd_status, amd_cause FROM calls WHERE call_id = ?',
  );
  const result = { alert_to_invite: null, missed_call_to_sms: null, answer_to_first_word: null, concurrent: null };
  try {
    // Warm up: the first call loads Asterisk's modules' paths and the speech cache.
    let uas = await startUas({ port: trunkPort, mode: 'busy' });
    {
      const a = take();
      await post(`${serve.url}/webhook/${a[0]}/${a[1]}`, ca, agent);
      await waitUntil('warm-up INVITE', () => uas.calls.size > 0, 10_000);
      await sleep(1000);
    }

    // 2 and 4: busy calls at a steady rate.
    const inviteRuns = [];
    const smsRuns = [];
    const smsRows = [];
    for (let r = 0; r < o.repeats; r++) {
      const sent = [];
      const t0 = performance.now();
      for (let i = 0; i < o.callsPerRun; i++) {
        const due = t0 + (i * 1000) / o.rate;
        while (performance.now() < due) await sleep(Math.max(0, Math.min(2, due - performance.now())));
        const a = take();
        const at = wall();
        post(`${serve.url}/webhook/${a[0]}/${a[1]}`, ca, agent).then((res) =>
          sent.push({ phone: a[2], at, status: res.status, callId: res.json.call_id }),
        );
      }
      await waitUntil(
        'every INVITE',
        () =>
          sent.length === o.callsPerRun && sent.every((s) => [...uas.calls.values()].some((c) => c.user === s.phone)),
        20_000,
      );
      const byUser = new Map([...uas.calls.values()].map((c) => [c.user, c]));
      const lat = sent.map((s) => byUser.get(s.phone).inviteAt - s.at);
      inviteRuns.push(summarize(lat));
      // SMS: wait for every message at fakesmsc, timestamp each arrival by polling every 2 ms
      const seen = new Map();
      await waitUntil(
        'every SMS at fakesmsc',
        () => {
          for (const m of kannel.messages()) if (!seen.has(m.to)) seen.set(m.to, wall());
          return sent.every((s) => seen.has(s.phone) || seen.has(s.phone.replace('+', '')));
        },
        30_000,
        2,
      );
      const smsLat = [];
      const handLat = [];
      for (const s of sent) {
        const rec = row.get(s.callId);
        const got = seen.get(s.phone) ?? seen.get(s.phone.replace('+', ''));
        smsRows.push({ status: rec.status, sms_status: rec.sms_status });
        smsLat.push(got - rec.ended_at);
        if (rec.sms_at) handLat.push(rec.sms_at - rec.ended_at);
      }
      smsRuns.push({ ...summarize(smsLat), handed_to_gateway: summarize(handLat) });
      log(
        `telephony: run ${r + 1}: alert→INVITE p50 ${inviteRuns.at(-1).p50.toFixed(1)} p99 ${inviteRuns.at(-1).p99.toFixed(1)} ms; ended→SMS p50 ${smsRuns.at(-1).p50.toFixed(1)} p99 ${smsRuns.at(-1).p99.toFixed(1)} ms`,
      );
    }
    result.alert_to_invite = {
      description: `webhook request sent → INVITE arriving at the phone (lib/uas.mjs, answers 486 at once), ${o.callsPerRun} calls at ${o.rate}/s per run, ${o.repeats} runs`,
      p50_ms: acrossRuns(inviteRuns.map((x) => x.p50)),
      p99_ms: acrossRuns(inviteRuns.map((x) => x.p99)),
      runs: inviteRuns,
      target_p99_under_100ms: acrossRuns(inviteRuns.map((x) => x.p99)).median < 100,
    };
    result.missed_call_to_sms = {
      description:
        'calls.ended_at (busy, the final state, written by serve) → the message printed by Kannel fakesmsc (HTTP sendsms preset), same wall clock; fakesmsc output polled every 2 ms',
      p50_ms: acrossRuns(smsRuns.map((x) => x.p50)),
      p99_ms: acrossRuns(smsRuns.map((x) => x.p99)),
      outcomes: smsRows.reduce(
        (acc, x) => ((acc[`${x.status}/${x.sms_status}`] = (acc[`${x.status}/${x.sms_status}`] ?? 0) + 1), acc),
        {},
      ),
      ended_to_handed_to_gateway_p50_ms: acrossRuns(smsRuns.map((x) => x.handed_to_gateway.p50)),
      ended_to_handed_to_gateway_p99_ms: acrossRuns(smsRuns.map((x) => x.handed_to_gateway.p99)),
      runs: smsRuns,
      target_under_1s: acrossRuns(smsRuns.map((x) => x.p99)).median < 1000,
    };
    await uas.close();

    // 3: answered calls, with the default configuration (answering-machine detection on): the first
    // non-silent RTP packet at the phone after its ACK, for a person ("Hello?" then a microphone's
    // low noise), a silent phone (low noise only) and a voicemail (a ~5.5 s greeting and a beep).
    const voices = speechFor(dataDir);
    result.answer_to_first_word = { description: '', phones: {} };
    for (const [i, [kind, voice]] of Object.entries(voices).entries()) {
      // The busy phone was closed above; each phone after the first closes the one before it.
      if (i > 0) await uas.close();
      uas = await startUas({ port: trunkPort, mode: 'answer', rtpPortBase: rtpBase + 1000, voice });
      const sentAnswer = [];
      for (let i = 0; i < o.answerCalls; i++) {
        const a = take();
        const res = await post(`${serve.url}/webhook/${a[0]}/${a[1]}`, ca, agent);
        sentAnswer.push({ phone: a[2], callId: res.json.call_id });
        await sleep(500);
      }
      await waitUntil(
        'first words',
        () => sentAnswer.every((s) => [...uas.calls.values()].some((c) => c.user === s.phone && c.firstLoudAt)),
        20_000,
        20,
      );
      const calls = [...uas.calls.values()];
      const fromAck = summarize(calls.map((c) => c.firstLoudAt - c.ackAt));
      const finals = await waitUntil(
        `${kind} calls to end`,
        () => {
          const rows = sentAnswer.map((s) => row.get(s.callId));
          return rows.every((x) => !['queued', 'dialing', 'ringing', 'answered'].includes(x.status)) ? rows : null;
        },
        90_000,
        200,
      );
      result.answer_to_first_word.phones[kind] = {
        ack_to_first_sound_ms: fromAck,
        ok_to_first_sound_ms: summarize(calls.map((c) => c.firstLoudAt - c.answeredAt)),
        verdicts: count(
          finals.map((x) => `${x.amd_status ?? 'none'} ${x.amd_cause ?? ''}`.trim().replace(/-\d+$/, '')),
        ),
        outcomes: count(finals.map((x) => x.status)),
      };
      log(
        `telephony: ${kind}: ACK → first word p50 ${fromAck.p50} ms p95 ${fromAck.p95} ms; ${JSON.stringify(result.answer_to_first_word.phones[kind].outcomes)}`,
      );
    }
    const p95s = Object.values(result.answer_to_first_word.phones).map((x) => x.ack_to_first_sound_ms.p95);
    result.answer_to_first_word = {
      description: `serve with its default configuration (answering-machine detection on); the phone (lib/uas.mjs) on loopback: its ACK received → the first RTP packet that is not silence, ${o.answerCalls} calls 0.5 s apart for each phone (speech synthesized while ringing)`,
      ...result.answer_to_first_word,
      p50: Math.max(...Object.values(result.answer_to_first_word.phones).map((x) => x.ack_to_first_sound_ms.p50)),
      p95: Math.max(...p95s),
      target_p95_under_300ms: Math.max(...p95s) < 300,
    };

    // 5: concurrent answered calls.
    const steps = [];
    for (const n of o.steps) {
      await uas.close();
      uas = await startUas({ port: trunkPort, mode: 'answer', rtpPortBase: rtpBase + 2000 });
      const pids = [serve.pid, ...descendants(serve.pid)];
      const cpu0 = pids.map(cpuMsOf);
      const t0 = performance.now();
      const ids = [];
      const batch = Array.from({ length: n }, () => take());
      await Promise.all(
        batch.map((a) => post(`${serve.url}/webhook/${a[0]}/${a[1]}`, ca, agent).then((r) => ids.push(r.json.call_id))),
      );
      let peakRss = 0;
      let peakAsteriskRss = 0;
      await waitUntil(
        `${n} answered calls`,
        () => {
          peakRss = Math.max(peakRss, rssOf(serve.pid).rss_mb);
          peakAsteriskRss = Math.max(
            peakAsteriskRss,
            pids.slice(1).reduce((s, p) => s + (rssOf(p).rss_mb || 0), 0),
          );
          return uas.active() >= n || performance.now() - t0 > 15_000;
        },
        20_000,
        50,
      );
      const maxActive = uas.maxActive();
      // all the calls talking at once: sample for 3 s
      const s0 = performance.now();
      const c0 = pids.map(cpuMsOf);
      while (performance.now() - s0 < 3000) {
        peakRss = Math.max(peakRss, rssOf(serve.pid).rss_mb);
        peakAsteriskRss = Math.max(
          peakAsteriskRss,
          pids.slice(1).reduce((s, p) => s + (rssOf(p).rss_mb || 0), 0),
        );
        await sleep(100);
      }
      const holdMs = performance.now() - s0;
      const c1 = pids.map(cpuMsOf);
      const serveCpu = ((c1[0] - c0[0]) / holdMs) * 100;
      const asteriskCpu =
        ((c1.slice(1).reduce((a, b) => a + (b || 0), 0) - c0.slice(1).reduce((a, b) => a + (b || 0), 0)) / holdMs) *
        100;
      // every outcome recorded: wait until all are final
      const finals = await waitUntil(
        `${n} final outcomes`,
        () => {
          const rows = ids.map((id) => row.get(id));
          return rows.every((x) => !['queued', 'dialing', 'ringing', 'answered'].includes(x.status)) ? rows : null;
        },
        90_000,
        200,
      );
      const outcomes = finals.reduce((acc, x) => ((acc[x.status] = (acc[x.status] ?? 0) + 1), acc), {});
      steps.push({
        calls: n,
        simultaneous_answered: maxActive,
        outcomes,
        all_completed: outcomes.completed === n,
        serve_cpu_pct_while_talking: round(serveCpu, 1),
        asterisk_cpu_pct_while_talking: round(asteriskCpu, 1),
        serve_peak_rss_mb: round(peakRss),
        asterisk_peak_rss_mb: round(peakAsteriskRss),
        duration_s: round((performance.now() - t0) / 1000, 1),
        cpu0: cpu0.length,
      });
      log(
        `telephony: ${n} calls: ${maxActive} at once, outcomes ${JSON.stringify(outcomes)}, serve ${round(serveCpu, 1)}% CPU, Asterisk ${round(asteriskCpu, 1)}% CPU`,
      );
    }
    await uas.close();
    const first = steps[0];
    const last = steps.at(-1);
    result.concurrent = {
      description:
        'N alerts at once to N accounts; our phone answers every call and holds it until ringhook hangs up (after the message and the digit wait); CPU sampled over 3 s while all talk',
      steps,
      sustained: Math.max(
        0,
        ...steps.filter((s) => s.all_completed && s.simultaneous_answered === s.calls).map((s) => s.calls),
      ),
      per_call: {
        serve_cpu_pct: round(
          (last.serve_cpu_pct_while_talking - first.serve_cpu_pct_while_talking) / (last.calls - first.calls),
          2,
        ),
        asterisk_cpu_pct: round(
          (last.asterisk_cpu_pct_while_talking - first.asterisk_cpu_pct_while_talking) / (last.calls - first.calls),
          2,
        ),
        serve_rss_mb: round((last.serve_peak_rss_mb - first.serve_peak_rss_mb) / (last.calls - first.calls), 2),
        asterisk_rss_mb: round(
          (last.asterisk_peak_rss_mb - first.asterisk_peak_rss_mb) / (last.calls - first.calls),
          2,
        ),
      },
    };
  } catch (error) {
    log(`telephony: stopped by ${error.stack ?? error}`);
    throw error;
  } finally {
    agent.destroy();
    db.close();
    await serve.stop();
    await kannel.stop();
  }
  // 3 again, through the network lab's home router.
  result.answer_to_first_word.router = await runRouterBench(TREE, { callsPerPhone: o.routerCalls });
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runTelephonyBench();
  for (const [k, v] of Object.entries(r)) if (v) log('wrote', writeResult(k.replace(/_/g, '-'), v));
}
