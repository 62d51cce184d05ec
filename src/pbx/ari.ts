// A thin typed ARI client: the REST calls ringhook needs (node:http kept alive, Basic auth) and one
// event websocket (`ws`) that validates every event, pings to notice a dead socket within
// seconds, and reconnects forever with capped exponential backoff.
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { z } from 'zod';
import { basicAuth } from '../lib/basic-auth.js';
import { AriError, ErrorBody, plainText } from './ari-error.js';
import { type HttpReply, KeptAliveHttp } from './ari-http.js';
import type { AriClientEvents, AriClientOptions, OriginateParams } from './ari-types.js';
import {
  AsteriskInfo,
  Channel,
  Playback,
  RtpStatistics,
  eventChannelId,
  parseAriEvent,
  type AriEvent,
} from './ari-schema.js';

import { backoffDelay } from '../core/backoff.js';

const Endpoint = z.object({ technology: z.string(), resource: z.string(), state: z.string().optional() }).loose();
type Endpoint = z.infer<typeof Endpoint>;

/** One events socket's state: alive since the last heartbeat, ever opened, why it failed. */
interface SocketLink {
  ws: WebSocket;
  alive: boolean;
  opened: boolean;
  failure: string;
}

/** What call handling uses of the client (the dialer, and a stand-in in its unit tests). */
export interface AriCallControl
  extends Pick<
    AriClient,
    | 'isConnected'
    | 'originate'
    | 'hangup'
    | 'play'
    | 'stopPlayback'
    | 'getEndpoint'
    | 'channelsStillUp'
    | 'rtpStatistics'
  > {
  on<K extends keyof AriClientEvents>(event: K, listener: (...args: AriClientEvents[K]) => void): unknown;
  off<K extends keyof AriClientEvents>(event: K, listener: (...args: AriClientEvents[K]) => void): unknown;
}

export class AriClient extends EventEmitter<AriClientEvents> {
  private readonly opts: Required<Omit<AriClientOptions, 'events'>> & Pick<AriClientOptions, 'events'>;
  private readonly auth: string;
  private readonly http: KeptAliveHttp;
  private ws: WebSocket | undefined;
  private closed = false;
  private everConnected = false;
  private refusedCredentialsReported = false;
  private attempts = 0;
  private downSince = Date.now();
  private reconnectTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private firstOpen: { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } | undefined;

  constructor(options: AriClientOptions) {
    super();
    this.opts = {
      requestTimeoutMs: 5_000,
      heartbeatMs: 1_500,
      reconnect: { initialMs: 100, maxMs: 5_000 },
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
    };
    this.auth = basicAuth(options.user, options.password);
    this.http = new KeptAliveHttp(new URL(this.opts.baseUrl));
  }

  get isConnected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  // ---- events websocket ----

  /** Opens the event websocket; resolves once it is first open (retrying until then). */
  connect(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('ARI client closed'));
    if (this.isConnected) return Promise.resolve();
    if (!this.firstOpen) {
      let resolve!: () => void;
      let reject!: (e: Error) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.firstOpen = { promise, resolve, reject };
    }
    if (!this.ws && !this.reconnectTimer) this.openSocket();
    return this.firstOpen.promise;
  }

  /** Closes the websocket for good (no reconnect). */
  async close(): Promise<void> {
    this.closed = true;
    this.http.close();
    clearTimeout(this.reconnectTimer);
    clearInterval(this.heartbeatTimer);
    this.firstOpen?.reject(new Error('ARI client closed'));
    this.firstOpen = undefined;
    const ws = this.ws;
    this.ws = undefined;
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        ws.terminate();
      });
    }
  }

  private openSocket(): void {
    const url = new URL(`${this.opts.baseUrl.replace(/^http/, 'ws')}/ari/events`);
    url.searchParams.set('app', this.opts.app);
    url.searchParams.set('subscribeAll', 'false');
    const ws = new WebSocket(url, {
      headers: { authorization: this.auth },
      handshakeTimeout: this.opts.requestTimeoutMs,
    });
    this.ws = ws;
    const link: SocketLink = { ws, alive: true, opened: false, failure: '' };
    ws.on('open', () => this.onOpen(link));
    ws.on('pong', () => {
      link.alive = true;
    });
    ws.on('message', (data, isBinary) => this.onMessage(link, String(data), isBinary));
    ws.on('unexpected-response', (_req, res) => {
      link.failure = `HTTP ${res.statusCode}`;
      res.resume();
      ws.terminate();
    });
    ws.on('error', (error) => {
      link.failure ||= error.message;
    });
    ws.on('close', (code) => this.onClose(link, code));
  }

  private onOpen(link: SocketLink): void {
    link.opened = true;
    const downMs = Date.now() - this.downSince;
    const reconnect = this.everConnected;
    const attempts = this.attempts;
    this.everConnected = true;
    this.attempts = 0;
    this.refusedCredentialsReported = false;
    this.opts.logger.info('ARI events connected', { app: this.opts.app, reconnect, downMs });
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = setInterval(() => {
      if (!link.alive) {
        this.opts.logger.warn('ARI websocket silent; dropping it', { heartbeatMs: this.opts.heartbeatMs });
        link.ws.terminate();
        return;
      }
      link.alive = false;
      link.ws.ping();
    }, this.opts.heartbeatMs);
    this.filterEvents();
    this.firstOpen?.resolve();
    this.firstOpen = undefined;
    this.emit('connected', { reconnect, downMs });
    if (reconnect) this.emit('reconnected', { downMs, attempts });
  }

  private onMessage(link: SocketLink, data: string, isBinary: boolean): void {
    const log = this.opts.logger;
    link.alive = true;
    if (isBinary) {
      log.warn('ARI sent a binary websocket message; dropped');
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      log.warn('ARI sent malformed JSON; dropped', { bytes: data.slice(0, 200) });
      return;
    }
    const event = parseAriEvent(json);
    if (event.type === 'Unknown' && event.issues) {
      log.warn('ARI event failed validation', { type: event.originalType, issues: event.issues });
    }
    this.emit('event', event);
    if (event.type === 'ApplicationReplaced') {
      log.error('ARI application replaced by another client; not reconnecting', {
        app: this.opts.app,
      });
      this.closed = true;
      this.emit('replaced');
      link.ws.close();
    }
  }

  private onClose(link: SocketLink, code: number): void {
    clearInterval(this.heartbeatTimer);
    if (this.ws === link.ws) this.ws = undefined;
    if (link.opened) this.downSince = Date.now();
    const reason = link.failure || `closed (${code})`;
    if (this.closed) return;
    if (link.failure === 'HTTP 401' && !this.refusedCredentialsReported) {
      // A wrong password never fixes itself: said once as an error, then retried quietly.
      this.refusedCredentialsReported = true;
      this.opts.logger.error(
        `Asterisk refused ringhook's ARI credentials (HTTP 401): check RINGHOOK_ARI_USER and RINGHOOK_ARI_PASSWORD against the user in Asterisk's ari.conf; calls wait in the queue meanwhile`,
        { url: this.opts.baseUrl, user: this.opts.user },
      );
    }
    this.emit('disconnected', { reason });
    this.scheduleReconnect(reason);
  }

  /** Asks Asterisk to send only the events we read (Asterisk 16.3 and later; older ones send all). */
  private filterEvents(): void {
    const { events, app, logger } = this.opts;
    if (!events) return;
    const allowed = [...events, 'ApplicationReplaced'].map((type) => ({ type }));
    this.request('PUT', `/applications/${encodeURIComponent(app)}/eventFilter`, undefined, {}, { allowed }).catch(
      (error: Error) => logger.info('Asterisk did not take the event filter; it sends every event', { error }),
    );
  }

  private scheduleReconnect(reason: string): void {
    this.attempts++;
    const delay = backoffDelay(this.attempts, this.opts.reconnect);
    const level = this.attempts === 1 || this.attempts % 10 === 0 ? 'warn' : 'debug';
    this.opts.logger[level]('ARI events down; reconnecting', {
      reason,
      attempt: this.attempts,
      delayMs: delay,
    });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closed) this.openSocket();
    }, delay);
  }

  /** Resolves with the first event matching `predicate` (rejects after `timeoutMs`). */
  waitFor<E extends AriEvent>(predicate: (e: AriEvent) => e is E, timeoutMs: number): Promise<E>;
  waitFor(predicate: (e: AriEvent) => boolean, timeoutMs: number): Promise<AriEvent>;
  waitFor(predicate: (e: AriEvent) => boolean, timeoutMs: number): Promise<AriEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('event', listener);
        reject(new Error(`no matching ARI event within ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = (e: AriEvent) => {
        if (!predicate(e)) return;
        clearTimeout(timer);
        this.off('event', listener);
        resolve(e);
      };
      this.on('event', listener);
    });
  }

  /** Calls `listener` for every event about one channel; returns the unsubscribe function. */
  onChannel(channelId: string, listener: (e: AriEvent) => void): () => void {
    const wrapped = (e: AriEvent) => {
      if (eventChannelId(e) === channelId) listener(e);
    };
    this.on('event', wrapped);
    return () => this.off('event', wrapped);
  }

  // ---- REST ----

  private async request<T>(
    method: string,
    path: string,
    schema: z.ZodType<T> | undefined,
    query: Record<string, string | number | undefined> = {},
    body?: unknown,
  ): Promise<T> {
    const url = new URL(`${this.opts.baseUrl}/ari${path}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    let res: HttpReply;
    try {
      const headers: Record<string, string> = { authorization: this.auth };
      if (body !== undefined) headers['content-type'] = 'application/json';
      res = await this.http.request(
        method,
        url,
        headers,
        body === undefined ? undefined : JSON.stringify(body),
        this.opts.requestTimeoutMs,
      );
    } catch (error) {
      const timeout = error instanceof Error && error.name === 'TimeoutError';
      throw new AriError(timeout ? 'timeout' : 'network', method, path, undefined, undefined, {
        cause: error,
      });
    }
    const { text } = res;
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (res.status < 200 || res.status > 299) {
      const parsed = ErrorBody.safeParse(json);
      const explained = parsed.success ? parsed.data : undefined;
      throw new AriError('http', method, path, res.status, explained ?? (plainText(text).slice(0, 200) || undefined));
    }
    if (!schema) return undefined as T;
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new AriError('invalid_reply', method, path, res.status, z.prettifyError(parsed.error));
    }
    return parsed.data;
  }

  /** Originates a channel into our Stasis app with an id we choose. */
  originate(p: OriginateParams): Promise<Channel> {
    return this.request(
      'POST',
      `/channels/${encodeURIComponent(p.channelId)}`,
      Channel,
      {
        endpoint: p.endpoint,
        app: this.opts.app,
        appArgs: p.appArgs?.join(','),
        callerId: p.callerId,
        timeout: p.timeoutSec,
      },
      p.variables && { variables: p.variables },
    );
  }

  /** Hangs a channel up; `reason` is an ARI reason name (normal, busy, congestion, no_answer…). */
  hangup(channelId: string, reason?: string): Promise<void> {
    return this.request('DELETE', `/channels/${encodeURIComponent(channelId)}`, undefined, { reason });
  }

  /** Plays media (e.g. `sound:/abs/path/without-ext`) with a playback id we choose. */
  play(channelId: string, playbackId: string, media: string | string[]): Promise<Playback> {
    return this.request(
      'POST',
      `/channels/${encodeURIComponent(channelId)}/play/${encodeURIComponent(playbackId)}`,
      Playback,
      {
        media: Array.isArray(media) ? media.join(',') : media,
      },
    );
  }

  /** What the channel's RTP has received so far; read on Asterisk's ARI thread, not the channel's (works while it plays). */
  rtpStatistics(channelId: string): Promise<RtpStatistics> {
    return this.request('GET', `/channels/${encodeURIComponent(channelId)}/rtp_statistics`, RtpStatistics);
  }

  stopPlayback(playbackId: string): Promise<void> {
    return this.request('DELETE', `/playbacks/${encodeURIComponent(playbackId)}`, undefined);
  }

  listChannels(): Promise<Channel[]> {
    return this.request('GET', '/channels', z.array(Channel));
  }

  /** After a reconnect: which of these channels does Asterisk still have, each with its state (Up: answered). */
  async channelsStillUp(channelIds: Iterable<string>): Promise<Map<string, string>> {
    const live = new Map((await this.listChannels()).map((c) => [c.id, c.state]));
    return new Map([...channelIds].flatMap((id) => (live.has(id) ? [[id, live.get(id)!] as const] : [])));
  }

  /** An endpoint and its state (online, offline, unknown), e.g. getEndpoint('PJSIP', 'trunk'). */
  getEndpoint(tech: string, resource: string): Promise<Endpoint> {
    return this.request('GET', `/endpoints/${encodeURIComponent(tech)}/${encodeURIComponent(resource)}`, Endpoint);
  }

  asteriskInfo(): Promise<AsteriskInfo> {
    return this.request('GET', '/asterisk/info', AsteriskInfo);
  }
}
