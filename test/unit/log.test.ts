// Structured logs: an api_key never reaches a log line (DESIGN: the webhook URL is secret), levels filter.
import { describe, expect, it } from 'vitest';
import { newApiKey, newUserId } from '../../src/core/ids.js';
import { createLogger, redact, silentLogger, type LogLevel } from '../../src/lib/log.js';

const userId = newUserId();
const apiKey = newApiKey();
const hook = `/webhook/${userId}/${apiKey}`;

function capture(level?: LogLevel) {
  const lines: string[] = [];
  const logger = createLogger({ ...(level ? { level } : {}), write: (line) => lines.push(line) });
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('redact', () => {
  it('replaces the api_key of a webhook path and keeps the user_id', () => {
    expect(redact(hook)).toBe(`/webhook/${userId}/[redacted]`);
  });

  it.each([
    [
      'a full URL',
      `https://alerts.example.com:8443${hook}`,
      `https://alerts.example.com:8443/webhook/${userId}/[redacted]`,
    ],
    ['a query string', `${hook}?x=1`, `/webhook/${userId}/[redacted]?x=1`],
    ['a fragment', `${hook}#top`, `/webhook/${userId}/[redacted]#top`],
    ['a trailing slash', `${hook}/`, `/webhook/${userId}/[redacted]/`],
    ['a request line', `POST ${hook} HTTP/1.1`, `POST /webhook/${userId}/[redacted] HTTP/1.1`],
    ['quotes around it', `url="${hook}"`, `url="/webhook/${userId}/[redacted]"`],
    ['JSON text', JSON.stringify({ url: hook }), JSON.stringify({ url: `/webhook/${userId}/[redacted]` })],
    ['two URLs', `${hook} and ${hook}`, `/webhook/${userId}/[redacted] and /webhook/${userId}/[redacted]`],
    ['a malformed key', '/webhook/someone/not-a-real-key', '/webhook/someone/[redacted]'],
  ])('in %s', (_label, text, expected) => {
    expect(redact(text)).toBe(expected);
    expect(redact(text)).not.toContain(apiKey);
  });

  it('leaves other text alone', () => {
    for (const text of [
      '',
      'no url here',
      '/webhook/',
      `/webhook/${userId}`,
      '/dashboard/calls/call_abc',
      'GET /health',
    ]) {
      expect(redact(text)).toBe(text);
    }
  });
});

describe('createLogger', () => {
  it('writes one JSON object a line with time, level, msg and the fields', () => {
    const { logger, lines, records } = capture();
    logger.info('alert accepted', { call_id: 'call_x', ms: 3 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    expect(records()[0]).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: 'info',
      msg: 'alert accepted',
      call_id: 'call_x',
      ms: 3,
    });
  });

  it('redacts the api_key in the message and in string fields at any depth', () => {
    const { logger, lines } = capture('debug');
    logger.info(`request ${hook}`, {
      url: `https://h${hook}?a=1`,
      nested: { deeper: { path: hook, list: [hook, { again: hook }] } },
      error: new Error(`fetch ${hook} failed`),
    });
    expect(lines.join('\n')).not.toContain(apiKey);
    expect(lines[0]).toContain(`/webhook/${userId}/[redacted]`);
    const record = JSON.parse(lines[0]!) as Record<string, any>;
    expect(record.msg).toBe(`request /webhook/${userId}/[redacted]`);
    expect(record.nested.deeper.list[1].again).toBe(`/webhook/${userId}/[redacted]`);
    expect(record.error).toEqual({ name: 'Error', message: `fetch /webhook/${userId}/[redacted] failed` });
  });

  it('redacts fields named api_key at any depth', () => {
    const { logger, lines, records } = capture();
    logger.warn('auth', {
      api_key: apiKey,
      account: { user_id: userId, api_key: apiKey },
      list: [{ api_key: apiKey }],
    });
    expect(lines.join('\n')).not.toContain(apiKey);
    expect(records()[0]).toMatchObject({
      api_key: '[redacted]',
      account: { user_id: userId, api_key: '[redacted]' },
      list: [{ api_key: '[redacted]' }],
    });
  });

  it('redacts in the base fields of a child logger', () => {
    const { logger, lines, records } = capture();
    const child = logger.child({ url: hook, api_key: apiKey });
    child.info('hello', { extra: 1 });
    expect(lines.join('\n')).not.toContain(apiKey);
    expect(records()[0]).toMatchObject({
      msg: 'hello',
      extra: 1,
      url: `/webhook/${userId}/[redacted]`,
      api_key: '[redacted]',
    });
  });

  // The stores hand out Account objects whose key is `apiKey`: logging one must not leak it.
  it('redacts an account object as the stores return it (apiKey)', () => {
    const { logger, lines } = capture();
    logger.info('account created', { account: { userId, apiKey, plan: 'free' } });
    expect(lines.join('\n')).not.toContain(apiKey);
  });

  it('filters by level', () => {
    const levels: LogLevel[] = ['debug', 'info', 'warn', 'error'];
    const expected: Record<LogLevel, LogLevel[]> = {
      debug: ['debug', 'info', 'warn', 'error'],
      info: ['info', 'warn', 'error'],
      warn: ['warn', 'error'],
      error: ['error'],
    };
    for (const threshold of levels) {
      const { logger, records } = capture(threshold);
      for (const level of levels) logger[level](`at ${level}`);
      expect(records().map((r) => r.level)).toEqual(expected[threshold]);
    }
  });

  it('logs at info and above by default, and a child keeps its parent level', () => {
    const { logger, records } = capture();
    logger.debug('hidden');
    logger.info('shown');
    const child = logger.child({ component: 'dialer' });
    child.debug('hidden too');
    child.error('shown too');
    expect(records().map((r) => r.msg)).toEqual(['shown', 'shown too']);
    expect(records()[1]).toMatchObject({ component: 'dialer', level: 'error' });
  });

  it('the silent logger writes nothing and never throws', () => {
    expect(() => silentLogger.error('x', { api_key: apiKey })).not.toThrow();
  });

  // A log call must never take the caller down: the webhook logs request data it does not control.
  it('never throws, even on a circular field', () => {
    const { logger, lines } = capture();
    const circular: Record<string, unknown> = { url: hook };
    circular.self = circular;
    expect(() => logger.info('circular', { circular })).not.toThrow();
    expect(lines.join('\n')).not.toContain(apiKey);
  });
});
