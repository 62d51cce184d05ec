// The market-open burst: N alerts over N accounts sent within about a second, through `ringhook
// serve` with its managed Asterisk, paced to the provider (RINGHOOK_TRUNK_CPS). The provider is our
// own UAS (lib/uas.mjs) on the trunk: by the called number's last digit, 70 % answer after 2 s of
// ringing (ringhook hangs up after the message and the digit wait), 20 % are busy, 10 % ring
// unanswered. Kannel takes the SMS. Reported: alert (its 200) to INVITE at the provider, answer to
// the first sound at the phone, every outcome and SMS, CPU of serve / Asterisk / speech, serve's
// peak memory. BURST_ALERTS sets N (default 1,000).
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { buildHelpers } from './telephony.mjs';
import { BENCH_DIR, cpuMsOf, log, round, rssOf, sleep, summarize } from './lib/common.mjs';
import { callingEnv, freshDataDir, seedAccounts, startServe } from './lib/ringhook.mjs';
import { startUas } from './lib/uas.mjs';

const TREE = path.join(BENCH_DIR, '.build', 'tree');
const wall = () => performance.timeOrigin + performance.now();
const MISSED = new Set([
  'busy',
  'no_answer',
  'unreachable',
  'rejected',
  'failed',
  'expired',
  'interrupted',
  'voicemail',
  'unconfirmed',
]);
const FINAL = new Set([...MISSED, 'completed', 'acknowledged']);

/** 0-6 answer, 7-8 busy, 9 no answer. */
const modeOf = (phone) => {
  const d = Number(phone.at(-1));
  return d <= 6 ? 'answer' : d <= 8 ? 'busy' : 'no-answer';
};

function post(url, ca, agent, body) {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: 'POST',
        ca,
        agent,
        headers: { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, at: wall(), text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** CPU of a process and of its children already reaped (the speech engines), in ms. */
function cpuWithReaped(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return {
      own: ((Number(f[11]) + Number(f[12])) * 1000) / 100,
      reaped: ((Number(f[13]) + Number(f[14])) * 1000) / 100,
    };
  } catch {
    return { own: Number.NaN, reaped: Number.NaN };
  }
}

/** CPU of serve's resident speech processes (the shells, with the engines they ran and reaped, and the resident flites), in ms. */
function speechShellsCpu(parent) {
  let ms = 0;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.split(') ')[1].split(' ');
      if (Number(f[1]) !== parent || !/^\d+ \((sh|flite-resident-)\) /.test(stat)) continue;
      ms += ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / 100;
    } catch {
      // gone
    }
  }
  return ms;
}

function asteriskPid(parent) {
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.split(') ')[1].split(' ')[1]);
      if (ppid === parent && /\(asterisk\)/.test(stat)) return Number(d);
      if (ppid === parent) {
        const deeper = asteriskPid(Number(d));
        if (deeper) return deeper;
      }
    } catch {
      // gone
    }
  }
  return undefined;
}

/** Each second after the first alert: INVITEs at the provider, and answered calls still talking at its end. */
function timeline(calls, sentAt) {
  const seconds = Math.ceil((Math.max(...calls.map((c) => c.byeAt ?? c.inviteAt)) - sentAt) / 1000);
  return Array.from({ length: seconds }, (_, s) => {
    const end = sentAt + (s + 1) * 1000;
    return {
      invites: calls.filter((c) => c.inviteAt >= end - 1000 && c.inviteAt < end).length,
      talking: calls.filter((c) => c.answeredAt !== undefined && c.answeredAt < end && (c.byeAt ?? Infinity) >= end)
        .length,
    };
  });
}

export async function runBurstBench({ alerts = Number(process.env.BURST_ALERTS ?? 1000), cps = 50 } = {}) {
  buildHelpers();
  const { provisionAsterisk } = await import(path.join(TREE, 'test/helpers/asterisk.js'));
  const { startKannel } = await import(path.join(TREE, 'test/helpers/kannel.js'));
  const { freeTcpPort, freeUdpPort } = await import(path.join(TREE, 'test/helpers/ports.js'));
  log(`burst: ${alerts} alerts at ${cps} calls a second: provisioning Asterisk, starting Kannel`);
  await provisionAsterisk();
  const kannel = await startKannel();
  const trunkPort = await freeUdpPort();
  const dataDir = freshDataDir(`burst-${cps}`);
  const accounts = seedAccounts(dataDir, alerts + 1, 'premium', {
    smsBackup: true,
    phone: (i) => `+1666${String(i).padStart(7, '0')}`,
  });
  const serve = await startServe(dataDir, {
    nodeArgs: process.env.BURST_NODE_ARGS ? process.env.BURST_NODE_ARGS.split(' ') : [],
    env: await callingEnv({
      trunkPort,
      kannel,
      ports: { udp: freeUdpPort, tcp: freeTcpPort },
      rtpPorts: '22000-23999',
      // RINGHOOK_MAX_CALLS as users get it: half the RTP ports given here (1,000).
      extra: { RINGHOOK_TRUNK_CPS: String(cps), RINGHOOK_RING_TIMEOUT: '10' },
    }),
  });
  const uas = await startUas({ port: trunkPort, mode: modeOf, ringMs: 2000, rtpPortBase: 26000 });
  const ca = fs.readFileSync(serve.cert);
  const agent = new https.Agent({ keepAlive: true, maxSockets: 64 });
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(path.join(dataDir, 'ringhook.db'), { readonly: true });
  try {
    // Warm-up: the fixed prompts are made at start; one call loads the paths.
    const [warm, ...burst] = accounts;
    await post(`${serve.url}/webhook/${warm[0]}/${warm[1]}`, ca, agent, 'warm up');
    for (let i = 0; i < 200 && uas.calls.size === 0; i++) await sleep(50);
    await sleep(3000);
    const asterisk = asteriskPid(serve.pid);
    const cpu0 = {
      serve: cpuWithReaped(serve.pid),
      shells: speechShellsCpu(serve.pid),
      asterisk: asterisk ? cpuMsOf(asterisk) : Number.NaN,
    };

    const benchCpu0 = process.cpuUsage();
    log(`burst: sending ${burst.length} alerts`);
    const sentAt = wall();
    const okAt = new Map();
    const answers = await Promise.all(
      burst.map(async ([userId, apiKey, phone], i) => {
        const r = await post(
          `${serve.url}/webhook/${userId}/${apiKey}`,
          ca,
          agent,
          `burst alert ${i}: NVDA crossed ${100 + i}`,
        );
        if (r.status === 200) okAt.set(phone, r.at);
        return r.status;
      }),
    );
    const sendMs = wall() - sentAt;
    log(`burst: ${okAt.size} accepted in ${round(sendMs / 1000, 1)} s; waiting for every call and SMS`);
    const deadline = Date.now() + (alerts / cps) * 1000 + 180_000;
    const pending = () =>
      db
        .prepare(
          "SELECT count(*) AS n FROM calls WHERE accepted = 1 AND (status IN ('queued','dialing','ringing','answered') OR sms_status IN ('sending','waiting'))",
        )
        .get().n;
    while (pending() > 0 && Date.now() < deadline) await sleep(1000);
    await sleep(3000); // the last SMS reach Kannel's fake SMSC
    const cpu1 = {
      serve: cpuWithReaped(serve.pid),
      shells: speechShellsCpu(serve.pid),
      asterisk: asterisk ? cpuMsOf(asterisk) : Number.NaN,
    };
    const memory = rssOf(serve.pid);
    const benchCpu = process.cpuUsage(benchCpu0);

    const rows = db
      .prepare('SELECT status, message, sms_status, phone FROM calls WHERE accepted = 1 AND message LIKE ?')
      .all('burst alert %');
    const outcomes = {};
    for (const r of rows) outcomes[r.status] = (outcomes[r.status] ?? 0) + 1;
    const texts = kannel.messages().map((m) => String(m.text));
    const missed = rows.filter((r) => MISSED.has(r.status));
    const smsPerMiss = missed.map((r) => texts.filter((t) => t.includes(r.message)).length);
    const calls = [...uas.calls.values()].filter((c) => okAt.has(c.user));
    const invitesPerNumber = new Map();
    for (const c of calls) invitesPerNumber.set(c.user, (invitesPerNumber.get(c.user) ?? 0) + 1);
    const toInvite = calls.map((c) => c.inviteAt - okAt.get(c.user));
    const answered = calls.filter((c) => c.answeredAt !== undefined);
    const toSound = answered.filter((c) => c.firstLoudAt !== undefined).map((c) => c.firstLoudAt - c.answeredAt);
    // Which answered calls heard nothing within 300 ms (their timelines are in the data dir's database).
    fs.writeFileSync(
      path.join(dataDir, 'late-sound.json'),
      JSON.stringify(
        answered
          .filter((c) => c.firstLoudAt === undefined || c.firstLoudAt - c.answeredAt > 300)
          .map((c) => ({ user: c.user, ms: c.firstLoudAt - c.answeredAt })),
      ),
    );
    const result = {
      alerts: burst.length,
      trunk_cps: cps,
      sent_within_s: round(sendMs / 1000, 2),
      accepted: okAt.size,
      refused: answers.filter((s) => s !== 200).length,
      alert_to_invite_ms: summarize(toInvite),
      physical_floor_last_invite_s: round(burst.length / cps, 1),
      last_invite_goal_s: round(burst.length / cps + 2, 1),
      last_invite_after_first_alert_s: round((Math.max(...calls.map((c) => c.inviteAt)) - sentAt) / 1000, 2),
      invites: calls.length,
      most_invites_in_one_second: Math.max(
        0,
        ...calls.map((c) => calls.filter((d) => d.inviteAt >= c.inviteAt && d.inviteAt < c.inviteAt + 1000).length),
      ),
      numbers_dialed_twice: [...invitesPerNumber.values()].filter((n) => n > 1).length,
      answered: answered.length,
      answered_with_sound: toSound.length,
      answer_to_first_sound_ms: summarize(toSound),
      share_sound_within_300ms: round(toSound.filter((ms) => ms <= 300).length / Math.max(1, answered.length), 3),
      outcomes,
      all_final: rows.every((r) => FINAL.has(r.status)),
      missed: missed.length,
      sms_one_per_miss: smsPerMiss.every((n) => n === 1),
      sms_at_gateway: texts.filter((t) => t.includes('burst alert')).length,
      cpu_s: {
        serve: round((cpu1.serve.own - cpu0.serve.own) / 1000, 1),
        speech_engines: round((cpu1.serve.reaped - cpu0.serve.reaped + cpu1.shells - cpu0.shells) / 1000, 1),
        asterisk: round((cpu1.asterisk - cpu0.asterisk) / 1000, 1),
        bench_sender_and_phones: round((benchCpu.user + benchCpu.system) / 1e6, 1),
      },
      calls_in_burst_voice: db
        .prepare(
          "SELECT count(*) AS n FROM call_events e JOIN calls c USING (call_id) WHERE e.event = 'dialing' AND e.detail LIKE '%burst voice%' AND c.message LIKE 'burst alert %'",
        )
        .get().n,
      serve_peak_rss_mb: round(memory.hwm_mb, 1),
      max_calls_at_once_at_provider: uas.maxActive(),
      per_second: timeline(calls, sentAt),
    };
    log(`burst: ${JSON.stringify(result)}`);
    return result;
  } finally {
    db.close();
    agent.destroy();
    await uas.close();
    await serve.stop();
    await kannel.stop();
  }
}
