// ringhook's own certificate: served from the store at start, ordered when missing, renewed before
// it expires and swapped into the running HTTPS listener (no restart; open connections keep the
// old one). A failed order keeps the old certificate, logs one line, and backs off. Several nodes
// share one certificate: one orders (the store's lock), the others pick it up from the store.
import type { AcmeConfig } from '../config/acme.js';
import {
  backoffOutlivesRestart,
  challengePriority,
  coversNames,
  describeAcmeFault,
  nextAttemptAfterFailure,
  renewalTime,
} from '../core/acme.js';
import type { TlsMaterial } from '../http/tls.js';
import type { Logger } from '../lib/log.js';
import type { CertificateState, StoredCertificate } from '../core/certificate.js';
import type { CertificateRepo } from '../store/contract/index.js';
import { orderCertificate, plainOrderError, writeCertificateFiles } from './acme-order.js';

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
  const { config, store, logger, now } = deps;
  const stored = (await store.state()).certificate;
  let served: StoredCertificate | null = stored && coversNames(stored.names, config.domains) ? stored : null;
  if (served) writeCertificateFiles(deps.dataDir, served);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let stopped = false;
  let serve: (material: TlsMaterial) => void = () => {};
  /** No order tried yet by this process: a backoff left by an earlier one may not apply (core/acme). */
  let firstTry = true;
  const retryAt = (state: CertificateState) =>
    firstTry && !backoffOutlivesRestart(state.lastErrorKind) ? 0 : (state.nextAttemptAt ?? 0);

  const swapIn = (certificate: StoredCertificate, why: string) => {
    served = certificate;
    writeCertificateFiles(deps.dataDir, certificate);
    serve({ cert: certificate.certPem, key: certificate.keyPem });
    logger.info(`serving the certificate ${why}`, {
      names: certificate.names,
      expires: new Date(certificate.notAfter).toISOString(),
    });
  };

  /** The store's certificate, when it covers the names. */
  const current = async () => {
    const state = await store.state();
    const certificate =
      state.certificate && coversNames(state.certificate.names, config.domains) ? state.certificate : null;
    return { state, certificate };
  };

  const order = async (): Promise<void> => {
    // Under the lock, looked at again: another node may have just renewed.
    const { state, certificate } = await current();
    if (certificate && now() < renewalTime(certificate)) {
      if (certificate.obtainedAt !== served?.obtainedAt) swapIn(certificate, 'another node obtained');
      return;
    }
    if (now() < retryAt(state)) return;
    firstTry = false;
    try {
      const obtained = await orderCertificate({
        config,
        dataDir: deps.dataDir,
        store,
        challenges: challengePriority(deps.plainHttp),
        now,
      });
      await store.save(obtained);
      if (!stopped) swapIn(obtained, served ? 'renewed from the ACME authority' : 'obtained from the ACME authority');
    } catch (error) {
      const err = plainOrderError(error);
      const message = err.message.replace(/\s+/g, ' ').trim() || String(error);
      const fault = describeAcmeFault({ code: err.code, message }, config.domains, config.directory);
      const at = now();
      const nextAttemptAt = nextAttemptAfterFailure(at, state.failures + 1);
      await store.recordFailure({ at, error: message, kind: fault.kind, fix: fault.fix, nextAttemptAt });
      logger.error(
        `could not ${served ? 'renew' : 'obtain'} the certificate for ${config.domains.join(', ')}: ${message}; ${fault.fix}; ${served ? 'the current one is still served; ' : ''}next try at ${new Date(nextAttemptAt).toISOString()}`,
        { fault: fault.kind },
      );
    }
  };

  /** What is due now, then when to look again. */
  const tick = async (): Promise<number> => {
    const { state, certificate } = await current();
    if (
      certificate &&
      certificate.obtainedAt !== served?.obtainedAt &&
      certificate.notAfter > (served?.notAfter ?? 0)
    ) {
      swapIn(certificate, 'another node obtained');
    }
    const renewAt = served ? renewalTime(served) : now();
    const dueAt = Math.max(renewAt, retryAt(state));
    if (now() >= dueAt) {
      const result = await store.whileOrdering(order);
      if (!result.ran) return LOCKED_RETRY_MS;
      return 0;
    }
    return Math.min(dueAt - now(), deps.shared ? SYNC_EVERY_MS.shared : SYNC_EVERY_MS.single, LONGEST_WAIT_MS);
  };

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick()
        .then((next) => schedule(Math.max(next, 1_000)))
        .catch((error: Error) => {
          logger.error('the certificate check failed; trying again in a minute', { error });
          schedule(60_000);
        })
        .finally(() => {
          running = null;
        });
    }, delayMs);
    timer.unref();
  };

  return {
    initial: served ? { cert: served.certPem, key: served.keyPem } : null,
    answer: (token) => store.challenge(token),
    start(swap) {
      serve = swap;
      schedule(0);
    },
    daysLeft() {
      return served ? (served.notAfter - now()) / 86_400_000 : Number.NaN;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      // An order in flight is left to fail against the closed store; stopping does not wait minutes for it.
      if (running) await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    },
  };
}
