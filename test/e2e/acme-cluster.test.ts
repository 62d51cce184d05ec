// Two ringhook nodes sharing PostgreSQL obtain one certificate from a real Pebble: one node orders
// at a time (the advisory lock), both serve the same certificate, and a renewal made by one is
// served by the other. Pebble validates HTTP-01 on node B's port only, so when node A orders, B
// answers A's challenge from the store. Certificates live 45 s: renewal comes after 30 s.
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import postgres from 'postgres';
import { NAMES, type Serve, servedSerial, startServe, stopServes } from '../helpers/acme-serve.js';
import { buildOnce } from '../helpers/cli.js';
import { CLUSTER_SECRET_KEY } from '../helpers/cluster.js';
import { startPebble, type Pebble } from '../helpers/pebble.js';
import { freeTcpPort } from '../helpers/ports.js';
import { type PgCluster, startPostgres } from '../helpers/postgres.js';
import { makeDataDir as makeDir } from '../helpers/service.js';

const VALIDITY_S = 45;

let pg: PgCluster;
let dbUrl: string;
/** The data dirs this file made, removed after it. */
const dataDirs: string[] = [];
const makeDataDir = (prefix: string) => {
  const dir = makeDir(prefix);
  dataDirs.push(dir);
  return dir;
};

let pebble: Pebble;
let root: string;
const ports = { a: { https: 0, http: 0 }, b: { https: 0, http: 0 } };

beforeAll(async () => {
  buildOnce();
  for (const node of [ports.a, ports.b]) {
    node.https = await freeTcpPort();
    node.http = await freeTcpPort();
  }
  pg = await startPostgres();
  dbUrl = await pg.createDatabase('ringhook_acme');
  pebble = await startPebble({ httpPort: ports.b.http, tlsPort: ports.b.https, validitySeconds: VALIDITY_S });
  root = await pebble.root();
}, 120_000);

afterEach(stopServes);
afterAll(async () => {
  await stopServes();
  await pebble?.close();
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  await pg?.stop();
});

function nodeEnv(nodeId: 'a' | 'b'): Record<string, string> {
  return {
    RINGHOOK_DATA_DIR: makeDataDir(`rh-acme-${nodeId}-`),
    RINGHOOK_HOST: '127.0.0.1',
    RINGHOOK_PORT: String(ports[nodeId].https),
    RINGHOOK_HTTP_PORT: String(ports[nodeId].http),
    RINGHOOK_TELEPHONY: 'off',
    RINGHOOK_DATABASE_URL: dbUrl,
    RINGHOOK_SECRET_KEY: CLUSTER_SECRET_KEY,
    RINGHOOK_NODE_ID: nodeId,
    RINGHOOK_ACME_DOMAIN: NAMES.join(','),
    RINGHOOK_ACME_DIRECTORY: pebble.directory,
    RINGHOOK_ACME_CA_FILE: pebble.caFile,
  };
}

const count = (serve: Serve, text: string) => serve.output().split(text).length - 1;

it('two nodes: one orders, both serve the same certificate, and both serve the renewal one of them made', async () => {
  const [a, b] = await Promise.all([startServe(nodeEnv('a')), startServe(nodeEnv('b'))]);
  await Promise.all([a.waitFor('serving the certificate', 40_000), b.waitFor('serving the certificate', 40_000)]);
  const ordered = count(a, 'obtained from the ACME authority') + count(b, 'obtained from the ACME authority');
  const pickedUp = count(a, 'another node obtained') + count(b, 'another node obtained');
  expect([ordered, pickedUp]).toEqual([1, 1]);
  const first = await servedSerial(ports.a.https, root);
  expect((await servedSerial(ports.b.https, root)).serial).toBe(first.serial);

  // The store holds the key sealed: no PEM private key in the row.
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ key_sealed: string; names: string }[]>`SELECT key_sealed, names FROM acme_certificate`;
    expect(row!.names).toBe(NAMES.join(','));
    expect(row!.key_sealed).toMatch(/^v1\./);
    expect(row!.key_sealed).not.toContain('PRIVATE KEY');
  } finally {
    await sql.end();
  }

  // The renewal: one node renews, the other serves it too.
  const renewed = (s: Serve) => count(s, 'renewed from the ACME authority');
  const deadline = Date.now() + (VALIDITY_S + 15) * 1000;
  while (renewed(a) + renewed(b) === 0 || count(a, 'another node obtained') + count(b, 'another node obtained') < 2) {
    if (Date.now() > deadline)
      throw new Error(`no renewal on both nodes:\n--- a ---\n${a.output()}\n--- b ---\n${b.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(renewed(a) + renewed(b)).toBe(1);
  const second = await servedSerial(ports.a.https, root);
  expect(second.serial).not.toBe(first.serial);
  expect((await servedSerial(ports.b.https, root)).serial).toBe(second.serial);
  console.log(
    `first order by node ${count(a, 'obtained from the ACME authority') ? 'a (challenge answered by b from the store)' : 'b'}`,
  );
}, 180_000);
