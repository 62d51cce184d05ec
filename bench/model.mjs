// A small model of scale-out (#43): N ringhook nodes on one PostgreSQL of C cores, from the CPU each
// accepted alert costs, as bench/cluster.mjs measured it (bench/results/cluster.json): s ms of a
// node's CPU (serve is one event loop: one core a node at most) and p ms of PostgreSQL's (its
// backends spread over its cores). Saturated throughput:
//     X(N, C) = min(N × 1000 / s, C × 1000 / p)  alerts/s
// the nodes are the bound until N reaches C × s / p, PostgreSQL after. On a machine where the
// nodes, PostgreSQL and the load generators share K cores, X ≤ K × 1000 / (s + p + g), g the
// generator's CPU per alert: what this 2-core machine can check. The model leaves out what a
// bigger machine adds (lock waits on one account, WAL flush, the network): bench/cluster.mjs --pin
// on a machine with the cores is its check. Writes bench/results/model.json.
//   node bench/model.mjs [cluster.json]
import fs from 'node:fs';
import path from 'node:path';
import { log, RESULTS_DIR, round, writeResult } from './lib/common.mjs';

/** The model's inputs from one cluster run (medians of its rounds at max throughput). */
export function modelInputs(cluster) {
  const one = cluster.figures.postgres_one_node;
  const generator = one.generator_cpu_pct_max.median / (one.max_accepted_per_s.median / 100) / 10;
  return {
    serve_ms_per_alert: round(one.serve_cpu_ms_per_accepted_max.median, 3),
    postgres_ms_per_alert: round(one.postgres_cpu_ms_per_accepted_max.median, 3),
    generator_ms_per_alert: round(generator, 3),
    measured_one_node_per_s: round(one.max_accepted_per_s.median, 0),
    measured_two_nodes_per_s: round(cluster.figures.postgres_two_nodes.max_accepted_per_s.median, 0),
    cores: cluster.cores ?? null,
  };
}

/** Saturated alerts/s of N nodes on a PostgreSQL of C cores, and which side is the bound. */
export function predict({ serve_ms_per_alert: s, postgres_ms_per_alert: p }, nodes, pgCores) {
  const byNodes = (nodes * 1000) / s;
  const byPostgres = (pgCores * 1000) / p;
  return { per_s: round(Math.min(byNodes, byPostgres), 0), bound: byNodes <= byPostgres ? 'nodes' : 'postgres' };
}

export function buildModel(cluster) {
  const inputs = modelInputs(cluster);
  const table = [];
  for (const c of [1, 2, 4, 8, 16])
    for (const n of [1, 2, 4, 8, 16]) table.push({ nodes: n, postgres_cores: c, ...predict(inputs, n, c) });
  const shared = (k) =>
    round((k * 1000) / (inputs.serve_ms_per_alert + inputs.postgres_ms_per_alert + inputs.generator_ms_per_alert), 0);
  return {
    description:
      'X(N, C) = min(N × 1000 / s, C × 1000 / p): s = serve CPU ms per accepted alert (one core per node), p = PostgreSQL CPU ms per accepted alert, from bench/results/cluster.json (medians at max throughput, PostgreSQL one node). Nodes saturate PostgreSQL from N = C × s / p. On K shared cores (nodes, PostgreSQL and generators together): K × 1000 / (s + p + g).',
    inputs,
    nodes_that_saturate_postgres_per_core: round(inputs.serve_ms_per_alert / inputs.postgres_ms_per_alert, 2),
    this_machine: {
      cores_shared: inputs.cores,
      predicted_per_s: inputs.cores ? shared(inputs.cores) : null,
      measured_one_node_per_s: inputs.measured_one_node_per_s,
      measured_two_nodes_per_s: inputs.measured_two_nodes_per_s,
    },
    table,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2] ?? path.join(RESULTS_DIR, 'cluster.json');
  const model = buildModel(JSON.parse(fs.readFileSync(file, 'utf8')));
  const m = model.inputs;
  log(
    `model: s = ${m.serve_ms_per_alert} ms, p = ${m.postgres_ms_per_alert} ms per alert; one PostgreSQL core takes ${model.nodes_that_saturate_postgres_per_core} nodes; ` +
      `this machine (${m.cores} shared cores): predicted ${model.this_machine.predicted_per_s}/s, measured ${m.measured_one_node_per_s}/s (1 node), ${m.measured_two_nodes_per_s}/s (2 nodes); wrote ${writeResult('model', model)}`,
  );
  for (const c of [1, 2, 4, 8, 16])
    log(
      `  PostgreSQL ${String(c).padStart(2)} cores: ${model.table
        .filter((r) => r.postgres_cores === c)
        .map((r) => `${r.nodes} nodes ${r.per_s}/s (${r.bound})`)
        .join(', ')}`,
    );
}
