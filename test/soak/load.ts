// Request generators and drivers for the soak runs: malformed requests (fuzz), wrong credentials
// (floods), and a steady trickle of valid alerts whose latency is measured. Every loop is bounded in
// count and in time; every address is on loopback.
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';

export interface Target {
  host: string;
  port: number;
  ca: string;
}

export interface Outcome {
  /** HTTP status, or 0 when the server closed without an answer (expected for garbage and truncation). */
  status: number;
  code?: string | undefined;
  ms: number;
  kind: string;
  /** How a raw exchange ended without an answer (end, close, error message, or the client's timer). */
  ended?: string;
}

/** A small deterministic PRNG (mulberry32), so a failing run can be replayed with its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rnd: () => number, list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
const int = (rnd: () => number, lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
const bytes = (rnd: () => number, n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rnd() * 256)));

export interface HttpCase {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
}

export interface RawCase {
  kind: string;
  /** Bytes written on a TLS connection (or plain TCP when `plain`), then the write side is closed. */
  chunks: Buffer[];
  /** Delay between chunks, ms (slow bodies). */
  delayMs?: number;
  plain?: boolean;
}

export type FuzzCase = { http: HttpCase } | { raw: RawCase };

/** One malformed request. `good` is a valid webhook path (so bodies are parsed), `bad` one with a wrong key. */
export function fuzzCase(rnd: () => number, good: string, bad: string): FuzzCase {
  const hook = rnd() < 0.7 ? good : bad;
  const jsonType = { 'content-type': 'application/json' };
  const r = rnd();
  if (r < 0.08)
    return {
      http: {
        kind: 'invalid-utf8',
        method: 'POST',
        path: hook,
        headers: pick(rnd, [jsonType, { 'content-type': 'text/plain' }]),
        body: Buffer.concat([
          Buffer.from('{"message":"'),
          bytes(rnd, int(rnd, 1, 64)).map((b) => b | 0x80),
          Buffer.from('"}'),
        ]),
      },
    };
  if (r < 0.16) {
    const depth = int(rnd, 50, 20_000);
    const open = pick(rnd, ['[', '{"a":']);
    const close = open === '[' ? ']' : '}';
    return {
      http: {
        kind: 'deep-nesting',
        method: 'POST',
        path: hook,
        headers: jsonType,
        body: `${open.repeat(depth)}1${close.repeat(rnd() < 0.5 ? depth : int(rnd, 0, depth))}`,
      },
    };
  }
  if (r < 0.24) {
    const n = pick(rnd, [
      '1e999',
      '-1e999',
      '123456789012345678901234567890123456789',
      `0.${'0'.repeat(400)}1`,
      `${'"9'.padEnd(5000, '9')}"`,
      '-0',
      '"NaN"',
      '"Infinity"',
      `1${'0'.repeat(10_000)}`,
    ]);
    return {
      http: {
        kind: 'huge-number',
        method: 'POST',
        path: hook,
        headers: jsonType,
        body: `{"message":"m","price":${n},"n":${n}}`,
      },
    };
  }
  if (r < 0.32) {
    const body = pick(rnd, [
      '{"__proto__":{"message":"polluted","isAdmin":true},"message":"m"}',
      '{"constructor":{"prototype":{"polluted":1}},"message":"m"}',
      '{"message":{"__proto__":null}}',
      '{"message":"m","__proto__":[],"toString":1,"valueOf":"x","hasOwnProperty":null}',
      '{"message":"m","extra":{"__proto__":{"x":1},"constructor":{"name":"y"}}}',
      '{"__proto__":{"toString":"boom"}}',
    ]);
    return { http: { kind: 'proto-keys', method: 'POST', path: hook, headers: pick(rnd, [jsonType, {}]), body } };
  }
  if (r < 0.38)
    return {
      http: {
        kind: 'nul-bytes',
        method: 'POST',
        path: hook,
        headers: pick(rnd, [jsonType, { 'content-type': 'text/plain' }]),
        body: pick(rnd, [
          '\u0000',
          'alert\u0000with nul',
          '{"message":"a\\u0000b","ticker":"\u0000"}',
          '\u0000'.repeat(1000),
        ]),
      },
    };
  if (r < 0.46) {
    const segment = pick(rnd, [
      '%ZZ',
      '%00',
      '%',
      '..',
      '%2e%2e',
      '%2F',
      'a'.repeat(int(rnd, 100, 8000)),
      '%C3%28',
      '%F0%9F%98',
      '\u00fc',
      '~',
      '%20',
      '+',
      ';',
      '@',
      '!',
      "'",
      '%0d%0aSet-Cookie:x',
    ]);
    const path = pick(rnd, [
      `/webhook/${segment}/${segment}`,
      `/webhook/${segment}`,
      `${hook}/${segment}`,
      `/webhook//${segment}`,
      `/${segment}/../webhook`,
      `/webhook/${segment}/x/y/z`,
      `/dashboard/${segment}`,
      `/healthz/${segment}`,
    ]);
    return {
      http: {
        kind: 'odd-path',
        method: pick(rnd, ['POST', 'GET']),
        path: path.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c)),
        headers: {},
        body: 'x',
      },
    };
  }
  if (r < 0.54)
    return {
      http: {
        kind: 'wrong-method',
        method: pick(rnd, ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND', 'MKCOL']),
        path: hook,
        headers: {},
        body: pick(rnd, [undefined, 'x']) as string | undefined,
      } as HttpCase,
    };
  if (r < 0.62)
    return {
      http: {
        kind: 'wrong-content-type',
        method: 'POST',
        path: hook,
        headers: {
          'content-type': pick(rnd, [
            'application/xml',
            'multipart/form-data; boundary=x',
            'application/json; charset=latin1',
            'application/x-www-form-urlencoded',
            'image/png',
            ';;;',
            'application/json; charset=utf-16',
          ]),
        },
        body: pick(rnd, ['{"message":"m"}', 'message=m', '<a/>', '{', '']),
      },
    };
  if (r < 0.7)
    return {
      http: {
        kind: 'random-bytes',
        method: 'POST',
        path: hook,
        headers: {},
        body: bytes(rnd, pick(rnd, [0, 1, 10, 1000, 65_536, 70_000])),
      },
    };
  // Raw requests on the wire.
  const host = 'Host: 127.0.0.1\r\n';
  const rr = rnd();
  if (rr < 0.2) {
    const length = int(rnd, 10, 1000);
    return {
      raw: {
        kind: 'truncated-body',
        chunks: [
          Buffer.from(
            `POST ${hook} HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"message":"trunc`,
          ),
        ],
      },
    };
  }
  if (rr < 0.35)
    return {
      raw: {
        kind: 'bad-chunked',
        chunks: [
          Buffer.from(
            `POST ${hook} HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\n\r\n${pick(rnd, ['zz\r\nabc\r\n0\r\n\r\n', '5\r\nab', 'ffffffffffffffff\r\nx\r\n', '3\r\nabc\r\n'])}`,
          ),
        ],
      },
    };
  if (rr < 0.5)
    return {
      raw: {
        kind: 'garbage-request-line',
        chunks: [Buffer.concat([bytes(rnd, int(rnd, 1, 300)), Buffer.from('\r\n\r\n')])],
      },
    };
  if (rr < 0.6)
    return {
      raw: {
        kind: 'nul-in-request',
        chunks: [Buffer.from(`POST ${hook}\u0000 HTTP/1.1\r\n${host}X-A: b\u0000c\r\nContent-Length: 1\r\n\r\nx`)],
      },
    };
  if (rr < 0.7)
    return {
      raw: {
        kind: 'huge-header',
        chunks: [
          Buffer.from(
            `POST ${hook} HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(int(rnd, 8_000, 40_000))}\r\nContent-Length: 1\r\n\r\nx`,
          ),
        ],
      },
    };
  if (rr < 0.8)
    return {
      raw: {
        kind: 'smuggling',
        chunks: [
          Buffer.from(
            `POST ${hook} HTTP/1.1\r\n${host}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\n${host}\r\n`,
          ),
        ],
      },
    };
  if (rr < 0.9)
    return { raw: { kind: 'tcp-garbage-on-tls-port', plain: true, chunks: [bytes(rnd, int(rnd, 1, 2000))] } };
  return {
    raw: {
      kind: 'odd-version',
      chunks: [
        Buffer.from(
          `POST ${hook} ${pick(rnd, ['HTTP/9.9', 'HTTP/1.1.1', 'HTTP/0.9', 'FOO/1.0', ''])}\r\n${host}Content-Length: 1\r\n\r\nx`,
        ),
      ],
    },
  };
}

export function slowCase(good: string, rnd: () => number): RawCase {
  const body = '{"message":"a slowly sent alert"}';
  const head = `POST ${good} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  return {
    kind: 'slow-body',
    chunks: [Buffer.from(head), ...body.split('').map((c) => Buffer.from(c))],
    delayMs: int(rnd, 20, 80),
  };
}

export function sendHttp(
  target: Target,
  agent: https.Agent,
  c: HttpCase,
  extra: https.RequestOptions = {},
): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = https.request(
      {
        host: target.host,
        port: target.port,
        ca: target.ca,
        agent,
        method: c.method,
        path: c.path,
        headers: c.headers,
        ...extra,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          let code: string | undefined;
          try {
            code = JSON.parse(Buffer.concat(chunks).toString('utf8')).code;
          } catch {
            code = undefined;
          }
          resolve({ status: res.statusCode ?? 0, code, ms: performance.now() - started, kind: c.kind });
        });
        res.on('error', () => resolve({ status: 0, ms: performance.now() - started, kind: c.kind }));
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error('timeout')));
    req.on('error', (error) =>
      resolve({
        status: (error as Error).message === 'timeout' ? -1 : 0,
        ms: performance.now() - started,
        kind: c.kind,
      }),
    );
    if (c.body !== undefined) req.write(c.body);
    req.end();
  });
}

/** Writes raw bytes on a fresh connection and reads the status line of the answer, if any. */
export function sendRaw(target: Target, c: RawCase): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    let data = '';
    let settled = false;
    let written = 0;
    const finish = (ended: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      const code = /"code":"([a-z_]+)"/.exec(data)?.[1];
      resolve({
        status: m ? Number(m[1]) : 0,
        code,
        ms: performance.now() - started,
        kind: c.kind,
        ...(!m && { ended: `${ended} after ${written}/${c.chunks.length} chunks` }),
      });
    };
    const socket: net.Socket = c.plain
      ? net.connect({ host: target.host, port: target.port })
      : tls.connect({ host: target.host, port: target.port, ca: target.ca, servername: 'localhost' });
    const timer = setTimeout(() => finish('timer'), 20_000);
    socket.on(c.plain ? 'connect' : 'secureConnect', async () => {
      for (const chunk of c.chunks) {
        if (socket.destroyed) break;
        socket.write(chunk);
        written++;
        if (c.delayMs) await new Promise((r) => setTimeout(r, c.delayMs));
      }
      // A slow body is a client taking its time, which then waits for the answer: a half-close
      // right after the last byte would let Node's server drop the request before answering.
      if (!socket.destroyed && !c.delayMs) socket.end();
    });
    socket.on('data', (d: Buffer) => {
      data += d.toString('latin1');
      if (c.delayMs && data.includes('\r\n\r\n')) finish('answered');
    });
    socket.on('end', () => finish('end'));
    socket.on('close', () => finish('close'));
    socket.on('error', (error) => finish(`error ${error.message}`));
  });
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Runs `count` tasks with `concurrency` workers, stopping early at `deadline` (ms since epoch). */
export async function pool(
  count: number,
  concurrency: number,
  deadline: number,
  task: (i: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count && Date.now() < deadline) await task(next++);
    }),
  );
  return next;
}
