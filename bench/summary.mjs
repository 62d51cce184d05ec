// Writes bench/results/SUMMARY.md from the JSON results.
import fs from 'node:fs';
import path from 'node:path';
import { RESULTS_DIR } from './lib/common.mjs';
import { sameJobRows } from './same-job.mjs';

const read = (name) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(RESULTS_DIR, `${name}.json`), 'utf8'));
  } catch {
    return null;
  }
};
const f = (x, d = 1) => (x === undefined || x === null || Number.isNaN(x) ? '–' : Number(x).toFixed(d));
const mark = (ok) => (ok ? '✅ met' : '❌ missed');

export function writeSummary() {
  const run = read('run');
  const w = read('webhook');
  const m = read('memory');
  const g = read('growth');
  const inv = read('alert-to-invite');
  const ans = read('answer-to-first-word');
  const sms = read('missed-call-to-sms');
  const con = read('concurrent');
  const burst = read('burst');
  const cl = read('cluster');
  const cli = read('cli-start');
  const mach = run?.machine ?? w?.machine;
  const rows = [];
  if (w) {
    const x = w.figures;
    if (x.steady_latency_p99_ms)
      rows.push([
        `1. Webhook p50 / p99 at a steady ${x.steady_rate_per_s} alerts/s (HTTPS, DB_SYNC=full)`,
        `${f(x.steady_latency_p50_ms.median)} / ${f(x.steady_latency_p99_ms.median)} ms (p99 over runs ${f(x.steady_latency_p99_ms.p99)})`,
        'p99 < 10 ms',
        mark(w.targets.p99_under_10ms_at_200_per_s),
      ]);
    rows.push([
      '1. Webhook p50 / p99 at 1,000 alerts/s (HTTPS, DB_SYNC=full)',
      `${f(x.rate_latency_p50_ms.median)} / ${f(x.rate_latency_p99_ms.median)} ms (p99 over runs ${f(x.rate_latency_p99_ms.p99)})`,
      'p99 < 10 ms',
      mark(w.targets.p99_under_10ms_at_1000_per_s),
    ]);
    rows.push([
      '1. Webhook max throughput vs bare node:https',
      `${f(x.max_accepted_per_s.median, 0)}/s vs ${f(x.ceiling_max_per_s.median, 0)}/s = ${f(x.throughput_ratio_vs_ceiling.median * 100)} %`,
      '≥ 50 %',
      mark(w.targets.throughput_at_least_half_of_ceiling),
    ]);
  }
  if (inv)
    rows.push([
      '2. Alert → INVITE at the phone (p50 / p99)',
      `${f(inv.p50_ms.median)} / ${f(inv.p99_ms.median)} ms`,
      'p99 < 100 ms',
      mark(inv.target_p99_under_100ms),
    ]);
  if (ans?.phones) {
    const each = Object.entries(ans.phones).map(
      ([kind, x]) => `${kind} ${f(x.ack_to_first_sound_ms.p50)} / ${f(x.ack_to_first_sound_ms.p95)}`,
    );
    rows.push([
      '3. Answer (ACK at the phone) → first non-silent RTP, default configuration, loopback (p50 / p95)',
      `${each.join('; ')} ms`,
      'p95 ≤ 300 ms',
      mark(ans.target_p95_under_300ms),
    ]);
    const router = ans.router;
    if (router?.phones) {
      const through = Object.entries(router.phones).map(
        ([kind, x]) => `${kind} ${f(x.ack_to_first_sound_ms.p50)} / ${f(x.ack_to_first_sound_ms.p95)}`,
      );
      rows.push([
        "3. The same through the lab's home router (masquerade, unasked inbound dropped), phone at the provider (p50 / p95)",
        `${through.join('; ')} ms`,
        'p95 ≤ 300 ms',
        mark(router.target_p95_under_300ms),
      ]);
    } else if (router?.skipped)
      rows.push(["3. The same through the lab's home router", `not run: ${router.skipped}`, 'p95 ≤ 300 ms', '—']);
  } else if (ans)
    rows.push([
      '3. Answer (200 OK) → first non-silent RTP (p50 / p99)',
      `${f(ans.p50)} / ${f(ans.p99)} ms`,
      '< 300 ms',
      mark(ans.target_under_300ms),
    ]);
  if (sms)
    rows.push([
      '4. Missed call (ended_at) → SMS at Kannel fakesmsc (p50 / p99)',
      `${f(sms.p50_ms.median, 0)} / ${f(sms.p99_ms.median, 0)} ms (handed to the gateway: ${f(sms.ended_to_handed_to_gateway_p50_ms?.median, 0)} / ${f(sms.ended_to_handed_to_gateway_p99_ms?.median, 0)} ms)`,
      '< 1 s',
      mark(sms.target_under_1s),
    ]);
  if (con)
    rows.push([
      '5. Concurrent answered calls, all outcomes recorded',
      `${con.sustained} of ${con.steps.map((s) => s.calls).join('/')} tried; per call: serve ${con.per_call.serve_cpu_pct > 0 ? f(con.per_call.serve_cpu_pct, 2) : '~0 (below the noise)'} % CPU, Asterisk ${f(con.per_call.asterisk_cpu_pct, 2)} % CPU, ${f(con.per_call.asterisk_rss_mb, 2)} MB Asterisk RSS`,
      'measure',
      '—',
    ]);
  if (g) {
    const sizes = Object.keys(g.by_size);
    rows.push([
      `6. Webhook p50 at ${sizes.map((s) => Number(s).toLocaleString('en')).join(' / ')} history rows`,
      `${sizes.map((s) => f(g.by_size[s].webhook_p50_ms.median, 2)).join(' / ')} ms (×${f(g.figures.webhook_p50_ratio_largest_vs_empty, 2)})`,
      'flat within 10 %',
      `${mark(sizes.every((s) => g.by_size[s].webhook_p50_ms.median <= g.by_size[sizes[0]].webhook_p50_ms.median * 1.1))} (machine loaded: see 6 below)`,
    ]);
    const q = (s) => g.by_size[s].queries.history_page_50 ?? g.by_size[s].queries.call_store_list_50;
    rows.push([
      '6. History page query (50 rows) p50 / p99',
      `${sizes.map((s) => `${f(q(s).p50, 2)}/${f(q(s).p99, 2)}`).join(' · ')} ms`,
      '< 50 ms',
      mark(g.targets.history_page_under_50ms),
    ]);
  }
  if (m)
    rows.push([
      '7. Memory of serve: idle / peak under load 1',
      `${f(m.figures.idle_rss_mb, 0)} / ${f(m.figures.under_load.hwm_mb, 0)} MB`,
      '< 150 MB',
      mark(m.targets.under_150mb),
    ]);

  for (const b of burst?.runs ?? []) {
    rows.push([
      `8. Burst: ${b.alerts} alerts in ${f(b.sent_within_s)} s, TRUNK_CPS=${b.trunk_cps}: last INVITE / alert → INVITE p50 / p99`,
      `${f(b.last_invite_after_first_alert_s)} s / ${f(b.alert_to_invite_ms.p50 / 1000)} / ${f(b.alert_to_invite_ms.p99 / 1000)} s; most INVITEs in a second ${b.most_invites_in_one_second}`,
      `last ≤ ${f(b.last_invite_goal_s)} s`,
      mark(b.last_invite_after_first_alert_s <= b.last_invite_goal_s),
    ]);
    rows.push([
      `8. Burst (CPS ${b.trunk_cps}): answered calls with sound within 300 ms; outcomes; SMS; calls in the burst voice; CPU serve / speech / Asterisk / the bench's sender and phone; serve peak RSS`,
      `${f(b.share_sound_within_300ms * 100)} % (answer → sound p50 ${f(b.answer_to_first_sound_ms.p50, 0)} ms); ${Object.entries(
        b.outcomes,
      )
        .map(([k, v]) => `${v} ${k}`)
        .join(
          ', ',
        )}, ${b.numbers_dialed_twice} dialed twice; ${b.sms_one_per_miss ? 'one SMS per miss' : 'SMS missing or doubled'}; ${b.calls_in_burst_voice ?? '–'}; ${f(b.cpu_s.serve)} / ${f(b.cpu_s.speech_engines)} / ${f(b.cpu_s.asterisk)} / ${f(b.cpu_s.bench_sender_and_phones)} s; ${f(b.serve_peak_rss_mb, 0)} MB`,
      '≥ 99 %, nothing lost or doubled, < 200 MB',
      mark(
        b.share_sound_within_300ms >= 0.99 &&
          b.all_final &&
          b.numbers_dialed_twice === 0 &&
          b.sms_one_per_miss &&
          b.serve_peak_rss_mb < 200,
      ),
    ]);
  }
  if (cl) {
    const { sqlite_one_node: s, postgres_one_node: p1, postgres_two_nodes: p2 } = cl.figures;
    rows.push([
      '9. Webhook max throughput (32 in flight): 1 node SQLite / 1 node PostgreSQL / 2 nodes PostgreSQL, and p99',
      `${f(s.max_accepted_per_s.median, 0)} / ${f(p1.max_accepted_per_s.median, 0)} / ${f(p2.max_accepted_per_s.median, 0)}/s (PostgreSQL ×${f(cl.ratios.postgres_one_node_vs_sqlite_max_accepted.median, 2)} of SQLite, 2 nodes ×${f(cl.ratios.postgres_two_nodes_vs_one_node_max_accepted.median, 2)} of 1); p99 ${f(s.max_latency_p99_ms.median)} / ${f(p1.max_latency_p99_ms.median)} / ${f(p2.max_latency_p99_ms.median)} ms`,
      'measure',
      '—',
    ]);
    rows.push([
      `9. Webhook p50 / p99 at a steady ${s.steady_rate_per_s} alerts/s: 1 node SQLite / 1 node PostgreSQL / 2 nodes PostgreSQL`,
      `${f(s.steady_latency_p50_ms.median)}/${f(s.steady_latency_p99_ms.median)} · ${f(p1.steady_latency_p50_ms.median)}/${f(p1.steady_latency_p99_ms.median)} · ${f(p2.steady_latency_p50_ms.median)}/${f(p2.steady_latency_p99_ms.median)} ms (accepted ${f(s.steady_accepted_per_s.median, 0)} / ${f(p1.steady_accepted_per_s.median, 0)} / ${f(p2.steady_accepted_per_s.median, 0)}/s)`,
      'measure',
      '—',
    ]);
    // #43's goals, each measured in the same interleaved run.
    const m = cl.figures.minimal_sqlite;
    if (m) {
      const r = cl.ratios;
      rows.push([
        '9. PostgreSQL node / SQLite node, saturated alerts/s',
        `×${f(r.postgres_one_node_vs_sqlite_max_accepted.median, 2)} (${f(r.postgres_one_node_vs_sqlite_max_accepted.min, 2)}–${f(r.postgres_one_node_vs_sqlite_max_accepted.max, 2)} over rounds)`,
        '≥ 0.6×',
        mark(r.postgres_one_node_vs_sqlite_max_accepted.median >= 0.6),
      ]);
      rows.push([
        '9. serve CPU per accepted alert on PostgreSQL (saturated); PostgreSQL CPU per alert',
        `${f(p1.serve_cpu_ms_per_accepted_max.median, 2)} ms; ${f(p1.postgres_cpu_ms_per_accepted_max.median, 2)} ms`,
        '≤ 0.8 ms',
        mark(p1.serve_cpu_ms_per_accepted_max.median <= 0.8),
      ]);
      rows.push([
        "9. Statements (round trips) per accepted alert on PostgreSQL, saturated (the server's count, heartbeats included); alerts per function call",
        `${f(p1.statements_per_accepted_max.median, 3)}; ${f(p1.alerts_per_receive_call_max.median, 1)}`,
        '1',
        mark(p1.statements_per_accepted_max.median <= 1),
      ]);
      rows.push([
        '9. SQLite node / same-job minimal server (node:https, JSON, one fsynced insert per alert), saturated',
        `${f(s.max_accepted_per_s.median, 0)} / ${f(m.max_accepted_per_s.median, 0)}/s = ×${f(r.sqlite_vs_minimal_max_accepted.median, 2)} (${f(r.sqlite_vs_minimal_max_accepted.min, 2)}–${f(r.sqlite_vs_minimal_max_accepted.max, 2)})`,
        '≥ 1.0×',
        mark(r.sqlite_vs_minimal_max_accepted.median >= 1),
      ]);
      rows.push([
        `9. Webhook p99 at a steady ${s.steady_rate_per_s}/s, SQLite (DB_SYNC=full); the minimal server's`,
        `${f(s.steady_latency_p99_ms.median)} ms; ${f(m.steady_latency_p99_ms.median)} ms`,
        '< 5 ms',
        mark(s.steady_latency_p99_ms.median < 5),
      ]);
    }
  }

  const sameJob = read('same-job');
  if (sameJob?.summary?.ringhook?.accepted_per_s_vs_minimal)
    for (const [figure, ...rest] of sameJobRows(sameJob)) rows.push([`11. ${figure}`, ...rest]);

  if (cli) {
    const cpu = (x) =>
      `${f(x.this.cpu_s.median, 2)}${x.baseline ? ` (${f(x.baseline.cpu_s.median, 2)})` : ''}${x.binary ? ` · ${f(x.binary.cpu_s.median, 2)}` : ''} s`;
    rows.push([
      `10. CLI, start to exit: CPU of \`node bin/ringhook.js …\`${cli.baseline ? ' (before #44)' : ''}${Object.values(cli.figures)[0]?.binary ? ' · the single executable' : ''} (\`node bench/cli-start.mjs\`; node alone ${f(cli.node_alone_cpu_s.median, 2)} s)`,
      Object.entries(cli.figures)
        .map(([line, x]) => `\`${line}\` ${cpu(x)}`)
        .join('; '),
      'measure',
      '—',
    ]);
  }

  const notes = fs.existsSync(path.join(path.dirname(RESULTS_DIR), 'NOTES.md'))
    ? fs.readFileSync(path.join(path.dirname(RESULTS_DIR), 'NOTES.md'), 'utf8')
    : '';
  const text = [
    '# ringhook benchmarks',
    '',
    `Measured ${run?.finished_at ?? ''} by \`npm run bench\` (${run ? `${run.seconds} s` : ''}) on ${mach ? `${mach.cores} cores, ${mach.cpu_model}, ${mach.memory_gb} GB, Node ${mach.node}` : 'this machine'}; load average at start ${run ? run.load_average_at_start.map((x) => x.toFixed(2)).join(' ') : '–'} (the machine is shared: other work running at the same time moves these figures). Loopback only. Each figure is the median over the repeated runs; the JSON files hold every run, p99 over runs, and the configuration.`,
    '',
    '| figure | measured | target | |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    notes,
  ].join('\n');
  fs.writeFileSync(path.join(RESULTS_DIR, 'SUMMARY.md'), `${text}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) writeSummary();
