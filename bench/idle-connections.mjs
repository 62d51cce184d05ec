// The idle-connection flood of the second security review, against `ringhook serve` (telephony
// off): one client opens as many TLS connections as its open-file limit allows and sends nothing;
// meanwhile a real webhook is sent from another address. Run it as the review did, both sides at
// 2,048 open files:  bash -c 'ulimit -n 2048 && node bench/idle-connections.mjs'
// Reported: connections the server held, serve's memory, the webhook's answers and latency before
// and during the flood, and when the held connections were closed. Then the same from 40
// addresses (the total cap). Only 127.0.0.0/8 is used.
import fs from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import { log, rssOf, sleep, summarize, writeResult } from './lib/common.mjs';
import { freshDataDir, seedAccounts, startServe } from './lib/ringhook.mjs';

const ATTEMPTS = Number(process.env.FLOOD_ATTEMPTS ?? 2_100);

function post(url, ca, localAddress) {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = https.request(
      url,
      { method: 'POST', ca, localAddress, agent: false, headers: { 'content-type': 'text/plain' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
      },
    );
    req.on('error', (error) => resolve({ status: error.code ?? 'error', ms: performance.now() - started }));
    req.setTimeout(5_000, () => req.destroy(new Error('timeout')));
    req.end('BTC crossed 64,000');
  });
}

/** Opens idle TLS connections from the given addresses until `attempts` or the client's own file limit. */
async function flood(port, addresses, attempts) {
  const held = [];
  let refused = 0;
  let clientErrors = 0;
  let stop = false;
  for (let i = 0; i < attempts && !stop; i += 100) {
    const batch = Array.from({ length: Math.min(100, attempts - i) }, (_, j) => {
      const localAddress = addresses[(i + j) % addresses.length];
      return new Promise((resolve) => {
        let socket;
        try {
          socket = tls.connect({ host: '127.0.0.1', port, localAddress, rejectUnauthorized: false });
        } catch {
          clientErrors++;
          stop = true;
          return resolve();
        }
        const entry = { socket, openedAt: Date.now(), closedAt: undefined };
        socket.on('error', (error) => {
          if (error.code === 'EMFILE' || error.code === 'EADDRNOTAVAIL') {
            clientErrors++;
            stop = true;
          }
        });
        socket.once('secureConnect', () => {
          held.push(entry);
          resolve();
        });
        socket.once('close', () => {
          if (entry.closedAt === undefined) entry.closedAt = Date.now();
          if (!held.includes(entry)) refused++;
          resolve();
        });
      });
    });
    await Promise.all(batch);
  }
  await sleep(500);
  return { held, refused, clientErrors };
}

async function scenario(name, addresses, env) {
  const dataDir = freshDataDir(`idle-${name}`);
  // One alert an account, so that no plan limit answers 429.
  const accounts = seedAccounts(dataDir, 30);
  const serve = await startServe(dataDir, { env });
  const ca = fs.readFileSync(serve.cert);
  let next = 0;
  const hook = () => {
    const [userId, apiKey] = accounts[next++];
    return `${serve.url}/webhook/${userId}/${apiKey}`;
  };
  try {
    const before = [];
    for (let i = 0; i < 10; i++) before.push(await post(hook(), ca, '127.0.0.1'));
    const rssBefore = rssOf(serve.pid);
    const started = Date.now();
    const { held, refused, clientErrors } = await flood(serve.port, addresses, ATTEMPTS);
    const floodMs = Date.now() - started;
    const open = held.filter((h) => h.closedAt === undefined);
    const rssDuring = rssOf(serve.pid);
    const during = [];
    for (let i = 0; i < 10; i++) during.push(await post(hook(), ca, '127.0.0.1'));
    // Held connections are closed by the server after their timeouts.
    const deadline = Date.now() + 30_000;
    while (open.some((h) => h.closedAt === undefined) && Date.now() < deadline) await sleep(100);
    const closedAfter = open.filter((h) => h.closedAt !== undefined).map((h) => (h.closedAt - h.openedAt) / 1000);
    for (const h of held) h.socket.destroy();
    const after = await post(hook(), ca, '127.0.0.1');
    const statuses = (list) => {
      const counts = {};
      for (const r of list) counts[r.status] = (counts[r.status] ?? 0) + 1;
      return counts;
    };
    return {
      addresses: addresses.length,
      attempts: ATTEMPTS,
      flood_ms: floodMs,
      held_by_server: open.length,
      refused_by_server: refused,
      client_stopped_by_its_own_limit: clientErrors > 0,
      serve_rss_mb: { before: rssBefore, during: rssDuring },
      webhook_before: { statuses: statuses(before), ms: summarize(before.map((r) => r.ms)) },
      webhook_during: { statuses: statuses(during), ms: summarize(during.map((r) => r.ms)) },
      held_closed_after_s: closedAfter.length
        ? { min: Math.min(...closedAfter), max: Math.max(...closedAfter), still_open: open.length - closedAfter.length }
        : null,
      webhook_after: after,
    };
  } finally {
    await serve.stop();
  }
}

const limits = fs.readFileSync('/proc/self/limits', 'utf8').match(/^Max open files\s+(\d+)/m)?.[1];
log(`open-file limit ${limits}; ${ATTEMPTS} attempts a scenario`);
const result = {
  open_file_limit: Number(limits),
  one_address: await scenario('one', ['127.0.0.2'], {}),
  forty_addresses: await scenario(
    'forty',
    Array.from({ length: 40 }, (_, i) => `127.0.1.${i + 1}`),
    {},
  ),
};
log(JSON.stringify(result, null, 2));
writeResult('idle-connections', result);
