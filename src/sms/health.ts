// The SMS gateway's health for /healthz: the sender's own check (SMPP enquire_link, an HTTP
// gateway answering), at most once per `maxAgeMs` however often /healthz is asked, bounded in time.
import type { SmsSender } from './types.js';

export type SmsHealthState = 'ok' | 'down' | 'off';

export class SmsHealth {
  private last: { state: SmsHealthState; detail: string; at: number } | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly sender: SmsSender,
    private readonly options: { maxAgeMs?: number; timeoutMs?: number; now?: () => number } = {},
  ) {}

  /** The gateway's state, checked again first when the last check is older than maxAgeMs. */
  async current(): Promise<{ state: SmsHealthState; detail: string }> {
    if (this.sender.kind === 'none') return { state: 'off', detail: 'SMS backup is off' };
    if (!this.last || (this.options.now ?? Date.now)() - this.last.at > (this.options.maxAgeMs ?? 10_000))
      await this.refresh();
    return this.last!;
  }

  /** A message the gateway just accepted proves it up, whatever the last check said. */
  noteAccepted(): void {
    this.last = { state: 'ok', detail: 'the gateway accepted a message', at: (this.options.now ?? Date.now)() };
  }

  private refresh(): Promise<void> {
    this.running ??= (async () => {
      const timeoutMs = this.options.timeoutMs ?? 3_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<{ ok: false; detail: string }>((resolve) => {
        timer = setTimeout(
          () => resolve({ ok: false, detail: `no answer from the gateway within ${timeoutMs} ms` }),
          timeoutMs,
        );
      });
      const result = await Promise.race([
        this.sender.check().catch((error: Error) => ({ ok: false, detail: error.message })),
        timedOut,
      ]);
      clearTimeout(timer);
      this.last = { state: result.ok ? 'ok' : 'down', detail: result.detail, at: (this.options.now ?? Date.now)() };
    })().finally(() => (this.running = undefined));
    return this.running;
  }
}
