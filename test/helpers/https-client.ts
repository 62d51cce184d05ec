// A small HTTPS/HTTP client for the contract tests: real TLS, the server's certificate pinned as CA.
import http from 'node:http';
import https from 'node:https';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  ca?: string;
  /** Use plain HTTP instead of TLS. */
  plain?: boolean;
  localAddress?: string;
  agent?: http.Agent | https.Agent;
}

export function request(url: string, options: RequestOptions = {}): Promise<Reply> {
  const target = new URL(url);
  const lib = options.plain ? http : https;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      target,
      {
        method: options.method ?? 'POST',
        headers: options.headers,
        ...(options.ca && { ca: options.ca }),
        ...(options.localAddress && { localAddress: options.localAddress }),
        ...(options.agent && { agent: options.agent }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
