// Operator routes: /healthz (is every part up?), /metrics (Prometheus), and the SMS gateway's
// delivery-report callback.
import { getRequestIP, type H3 } from 'h3';
import type { AddressMatcher } from '../core/connections/address-match.js';
import type { ClusterView } from '../core/server/cluster-view.js';
import { metricsAllowed } from '../core/server/metrics-access.js';
import type { Store } from '../store/index.js';
import type { MetricsRegistry } from '../lib/metrics.js';
import { json } from './respond.js';
import { sameToken } from './same-token.js';
import { mountSmsReceipts, type SmsReceiptDeps } from './sms-receipts.js';

export type CheckState = 'ok' | 'down' | 'off';

export interface HealthSources {
  store: Pick<Store, 'ping'>;
  /** The nodes sharing the store, when there are several (PostgreSQL). */
  nodes?: () => Promise<ClusterView>;
  /** Other parts (asterisk, ari, sms): each says ok, down or off. */
  checks?: () => Record<string, CheckState> | Promise<Record<string, CheckState>>;
}

/**
 * Parts whose failure is reported but does not make the service unhealthy (503): alerts are still
 * taken and calls placed without the SMS backup, and a restart would not bring the gateway back.
 */
const DEGRADING_ONLY = new Set(['sms']);

export interface OperationsDeps {
  health: HealthSources;
  metrics?: Pick<MetricsRegistry, 'render'>;
  /** When set, /metrics wants "Authorization: Bearer <token>"; unset, it answers this machine only (core/server/metrics-access.ts). */
  metricsToken?: string;
  /** Proxies whose X-Forwarded-For names the client. */
  trustProxy?: AddressMatcher;
  /** The SMS gateway's delivery-report route, when RINGHOOK_SMS_DLR_URL is set. */
  smsDelivery?: SmsReceiptDeps;
}

export function mountOperations(app: H3, deps: OperationsDeps): void {
  app.get('/healthz', async () => {
    const checks: Record<string, CheckState> = { process: 'ok' };
    try {
      await deps.health.store.ping();
      checks.database = 'ok';
    } catch {
      checks.database = 'down';
    }
    Object.assign(checks, (await deps.health.checks?.()) ?? {});
    const down = Object.keys(checks).filter((part) => checks[part] === 'down');
    const ok = down.every((part) => DEGRADING_ONLY.has(part));
    // With several nodes: this one and the others, unless the store could not say.
    const cluster = checks.database === 'ok' ? await deps.health.nodes?.().catch(() => undefined) : undefined;
    return json(ok ? 200 : 503, { ok, checks, ...(down.length > 0 && { down }), ...(cluster && { cluster }) });
  });

  if (deps.metrics) {
    const metrics = deps.metrics;
    app.get('/metrics', (event) => {
      const headers = event.req.headers;
      const peer = getRequestIP(event) ?? '';
      const trusted = deps.trustProxy?.matches(peer) === true;
      const allowed = metricsAllowed({
        tokenSet: deps.metricsToken !== undefined,
        tokenGiven:
          deps.metricsToken !== undefined &&
          sameToken(headers.get('authorization')?.replace(/^Bearer\s+/i, ''), deps.metricsToken),
        client: trusted ? (headers.get('x-forwarded-for')?.split(',').pop()?.trim() ?? peer) : peer,
        forwardedByUntrusted: !trusted && ['x-forwarded-for', 'x-real-ip', 'forwarded'].some((h) => headers.has(h)),
      });
      if (!allowed) {
        const error = deps.metricsToken
          ? 'metrics need Authorization: Bearer <RINGHOOK_METRICS_TOKEN>'
          : 'metrics are served to this machine only: set RINGHOOK_METRICS_TOKEN to read them from elsewhere';
        return json(401, { success: false, error, code: 'unauthorized' });
      }
      return new Response(metrics.render(), {
        headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' },
      });
    });
  }

  if (deps.smsDelivery) mountSmsReceipts(app, deps.smsDelivery);
}
