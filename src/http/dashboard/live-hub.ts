// The open live-history streams, all served by one timer and one subscription to call changes:
// the timer checks each session once per tick (however many streams it has), sends heartbeats,
// and ends streams whose session ended, that are too old, or whose server stops.
import type { Server } from 'node:net';
import type { CallChange, CallEvents } from '../../core/calls/call-events.js';
import type { Logger } from '../../lib/log.js';
import { streamRefusal, type LiveLimits, type OpenStreams } from './live-caps.js';

const HEARTBEAT_MS = 20_000;
/** How often sessions and servers are checked. */
const CHECK_MS = 1_000;
/** A stream ends after this long; the browser reconnects by itself (and so re-checks the session). */
const MAX_STREAM_MS = 10 * 60_000;

export interface LiveViewer {
  /** The session's cookie token: streams are counted, and checked, per session. */
  token: string;
  userId: string;
}

interface Stream {
  viewer: LiveViewer;
  server: Server | undefined;
  started: number;
  send(text: string): void;
  close(): void;
}

export interface LiveHubDeps {
  events: CallEvents;
  /** Whether the session is still live (one database read). */
  sessionLive(token: string): boolean | Promise<boolean>;
  limits: LiveLimits;
  shutdown?: AbortSignal | undefined;
  /** Where a look at the streams that failed is told (at debug: it is tried again on the next tick). */
  logger?: Logger | undefined;
}

const encoder = new TextEncoder();

export class LiveHub {
  private readonly streams = new Set<Stream>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private lastHeartbeat = Date.now();

  constructor(private readonly deps: LiveHubDeps) {
    deps.shutdown?.addEventListener('abort', () => this.closeAll(), { once: true });
  }

  get size(): number {
    return this.streams.size;
  }

  /** A new stream for the viewer, or which cap refuses it. */
  open(
    viewer: LiveViewer,
    server: Server | undefined,
    aborted: AbortSignal | undefined,
  ): ReadableStream<Uint8Array> | { refused: keyof LiveLimits } {
    const refused = this.deps.shutdown?.aborted ? 'total' : streamRefusal(this.count(viewer), this.deps.limits);
    if (refused) return { refused };
    let stream: Stream | undefined;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        let closed = false;
        const entry: Stream = {
          viewer,
          server,
          started: Date.now(),
          send: (text) => {
            if (closed) return;
            try {
              controller.enqueue(encoder.encode(text));
            } catch {
              entry.close();
            }
          },
          close: () => {
            if (closed) return;
            closed = true;
            this.remove(entry);
            aborted?.removeEventListener('abort', entry.close);
            try {
              controller.close();
            } catch {
              // already closed by the client going away
            }
          },
        };
        stream = entry;
        this.add(entry);
        aborted?.addEventListener('abort', entry.close);
        entry.send('retry: 2000\n: connected\n\n');
      },
      cancel: () => stream?.close(),
    });
    return body;
  }

  private count(viewer: LiveViewer): OpenStreams {
    let session = 0;
    let account = 0;
    for (const s of this.streams) {
      if (s.viewer.token === viewer.token) session++;
      if (s.viewer.userId === viewer.userId) account++;
    }
    return { session, account, total: this.streams.size };
  }

  private add(stream: Stream): void {
    this.streams.add(stream);
    this.unsubscribe ??= this.deps.events.subscribe((change) => this.dispatch(change));
    if (!this.timer) {
      this.timer = setInterval(() => void this.tick(), CHECK_MS);
      this.timer.unref();
    }
  }

  private remove(stream: Stream): void {
    this.streams.delete(stream);
    if (this.streams.size > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private dispatch(change: CallChange): void {
    const text = `event: call\ndata: ${JSON.stringify({ callId: change.callId, status: change.status })}\n\n`;
    for (const s of this.streams) if (s.viewer.userId === change.userId) s.send(text);
  }

  private ticking = false;

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await this.checkStreams();
    } catch (error) {
      // The store did not answer: the streams are looked at again on the next tick.
      this.deps.logger?.debug('could not look at the live streams; looked at again shortly', { error });
    } finally {
      this.ticking = false;
    }
  }

  private async checkStreams(): Promise<void> {
    const now = Date.now();
    const live = new Map<string, boolean>();
    for (const s of [...this.streams]) {
      let sessionLive = live.get(s.viewer.token);
      if (sessionLive === undefined) {
        sessionLive = await this.deps.sessionLive(s.viewer.token);
        live.set(s.viewer.token, sessionLive);
      }
      const serverGone = s.server !== undefined && !s.server.listening;
      if (!sessionLive || serverGone || now - s.started > MAX_STREAM_MS) s.close();
    }
    if (now - this.lastHeartbeat >= HEARTBEAT_MS) {
      this.lastHeartbeat = now;
      for (const s of this.streams) s.send(': keep-alive\n\n');
    }
  }

  private closeAll(): void {
    for (const s of [...this.streams]) s.close();
  }
}
