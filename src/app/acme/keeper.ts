// ringhook's own certificate: served from the store at start, ordered when missing, renewed before
// it expires and swapped into the running HTTPS listener (no restart; open connections keep the
// old one). A failed order keeps the old certificate, logs one line, and backs off. Several nodes
// share one certificate: one orders (the store's lock), the others pick it up from the store.
import type { AcmeConfig } from '../../config/index.js';
import {
  backoffOutlivesRestart,
  challengePriority,
  coversNames,
  describeAcmeFault,
  nextAttemptAfterFailure,
  renewalTime,
} from '../../core/server/acme.js';
import type { TlsMaterial } from '../../http/tls.js';
import type { Logger } from '../../lib/log.js';
import type { CertificateState, StoredCertificate } from '../../core/server/certificate.js';
import type { CertificateRepo } from '../../store/index.js';
import { orderCertificate, plainOrderError, writeCertificateFiles } from './order.js';

/** How often a node looks in the store for a certificate another node renewed. */
const SYNC_EVERY_MS = { single: 3_600_000, shared: 60_000 } as const;
/** Another node holds the order lock: look again this soon. */
const LOCKED_RETRY_MS = 5_000;
/** setTimeout's limit is 2^31 ms; nothing waits longer than an hour anyway. */
const LONGEST_WAIT_MS = 3_600_000;

export interface CertificateKeeperDeps {
  config: AcmeConfig;
  dataDir: string;
  store: CertificateRepo;
  /** Several nodes share the store: look for their renewals more often. */
  shared: boolean;
  /** Is the plain-HTTP port (HTTP-01) listening? */
  plainHttp: boolean;
  logger: Logger;
  now: () => number;
}

export interface CertificateKeeper {
  /** The certificate to serve from the start (the store's, when it covers the names), or null. */
  readonly initial: TlsMaterial | null;
  /** The HTTP-01 answer for a token, from the store (any node may have placed it). */
  answer(token: string): Promise<string | undefined>;
  /** Starts ordering and renewing; `serve` swaps a new certificate in. */
  start(serve: (material: TlsMaterial) => void): void;
  /** Days until the served certificate expires (fractional), NaN when none is served yet. */
  daysLeft(): number;
  stop(): Promise<void>;
}

export async function prepareCertificate(deps: CertificateKeeperDeps): Promise<CertificateKeeper> {
  const stored = (await deps.store.state()).certificate;
  const served = stored && coversNames(stored.names, deps.config.domains) ? stored : null;
  if (served) writeCertificateFiles(deps.dataDir, served);
  return new Keeper(deps, served);
}

/** The keeper's state (the certificate served, the timer, an order in flight) and its steps. */
class Keeper implements CertificateKeeper {
  readonly initial: TlsMaterial | null;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private stopped = false;
  private serve: (material: TlsMaterial) => void = () => {};
  /** No order tried yet by this process: a backoff left by an earlier one may not apply (core/server/acme). */
  private firstTry = true;

  constructor(
    private readonly deps: CertificateKeeperDeps,
    private served: StoredCertificate | null,
  ) {
    this.initial = served ? { cert: served.certPem, key: served.keyPem } : null;
  }

  /** A property, not a method: the plain-HTTP port is handed it alone. */
  readonly answer = (token: string): Promise<string | undefined> => this.deps.store.challenge(token);

  start(serve: (material: TlsMaterial) => void): void {
    this.serve = serve;
    this.schedule(0);
  }

  daysLeft(): number {
    return this.served ? (this.served.notAfter - this.deps.now()) / 86_400_000 : Number.NaN;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // An order in flight is left to fail against the closed store; stopping does not wait minutes for it.
    if (this.running) await Promise.race([this.running, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  }

  private retryAt(state: CertificateState): number {
    return this.firstTry && !backoffOutlivesRestart(state.lastErrorKind) ? 0 : (state.nextAttemptAt ?? 0);
  }

  private swapIn(certificate: StoredCertificate, why: string): void {
    this.served = certificate;
    writeCertificateFiles(this.deps.dataDir, certificate);
    this.serve({ cert: certificate.certPem, key: certificate.keyPem });
    this.deps.logger.info(`serving the certificate ${why}`, {
      names: certificate.names,
      expires: new Date(certificate.notAfter).toISOString(),
    });
  }

  /** The store's certificate, when it covers the names. */
  private async current(): Promise<{ state: CertificateState; certificate: StoredCertificate | null }> {
    const state = await this.deps.store.state();
    const certificate =
      state.certificate && coversNames(state.certificate.names, this.deps.config.domains) ? state.certificate : null;
    return { state, certificate };
  }

  private async order(): Promise<void> {
    const { config, store, now } = this.deps;
    // Under the lock, looked at again: another node may have just renewed.
    const { state, certificate } = await this.current();
    if (certificate && now() < renewalTime(certificate)) {
      if (certificate.obtainedAt !== this.served?.obtainedAt) this.swapIn(certificate, 'another node obtained');
      return;
    }
    if (now() < this.retryAt(state)) return;
    this.firstTry = false;
    try {
      const obtained = await orderCertificate({
        config,
        dataDir: this.deps.dataDir,
        store,
        challenges: challengePriority(this.deps.plainHttp),
        now,
      });
      await store.save(obtained);
      if (!this.stopped)
        this.swapIn(obtained, this.served ? 'renewed from the ACME authority' : 'obtained from the ACME authority');
    } catch (error) {
      await this.recordFailure(state, error);
    }
  }

  /** A failed order: its fault and fix kept in the store (doctor shows them), one line logged, the next try backed off. */
  private async recordFailure(state: CertificateState, error: unknown): Promise<void> {
    const { config, now } = this.deps;
    const err = plainOrderError(error);
    const message = err.message.replace(/\s+/g, ' ').trim() || String(error);
    const fault = describeAcmeFault({ code: err.code, message }, config.domains, config.directory);
    const at = now();
    const nextAttemptAt = nextAttemptAfterFailure(at, state.failures + 1);
    await this.deps.store.recordFailure({ at, error: message, kind: fault.kind, fix: fault.fix, nextAttemptAt });
    this.deps.logger.error(
      `could not ${this.served ? 'renew' : 'obtain'} the certificate for ${config.domains.join(', ')}: ${message}; ${fault.fix}; ${this.served ? 'the current one is still served; ' : ''}next try at ${new Date(nextAttemptAt).toISOString()}`,
      { fault: fault.kind },
    );
  }

  /** What is due now, then when to look again. */
  private async tick(): Promise<number> {
    const { now } = this.deps;
    const { state, certificate } = await this.current();
    if (
      certificate &&
      certificate.obtainedAt !== this.served?.obtainedAt &&
      certificate.notAfter > (this.served?.notAfter ?? 0)
    ) {
      this.swapIn(certificate, 'another node obtained');
    }
    const renewAt = this.served ? renewalTime(this.served) : now();
    const dueAt = Math.max(renewAt, this.retryAt(state));
    if (now() >= dueAt) {
      const result = await this.deps.store.whileOrdering(() => this.order());
      if (!result.ran) return LOCKED_RETRY_MS;
      return 0;
    }
    return Math.min(dueAt - now(), this.deps.shared ? SYNC_EVERY_MS.shared : SYNC_EVERY_MS.single, LONGEST_WAIT_MS);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .then((next) => this.schedule(Math.max(next, 1_000)))
        .catch((error: Error) => {
          this.deps.logger.error('the certificate check failed; trying again in a minute', { error });
          this.schedule(60_000);
        })
        .finally(() => {
          this.running = null;
        });
    }, delayMs);
    this.timer.unref();
  }
}
