// doctor's look at ringhook's own certificate (ACME): the names, the expiry, the last renewal and
// the last error with its fix, as serve left them in the store (the same for every node).
import type { Config } from '../config/index.js';
import { coversNames, daysToExpiry, renewalTime } from '../core/acme.js';
import { openStores } from '../app/service.js';
import type { CertificateState } from '../core/certificate.js';
import { type CheckResult, fail, pass } from './doctor-result.js';

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export async function checkAcmeCertificate(config: Config, now = Date.now()): Promise<CheckResult> {
  const acme = config.acme!;
  const names = acme.domains.join(', ');
  let state: CertificateState;
  try {
    const stores = await openStores(config);
    try {
      state = await stores.certificates.state();
    } finally {
      await stores.close();
    }
  } catch (error) {
    return fail(
      'certificate',
      `cannot read the certificate's state: ${(error as Error).message}`,
      'see the database check',
    );
  }
  const certificate =
    state.certificate && coversNames(state.certificate.names, acme.domains) ? state.certificate : null;
  const error = state.lastError
    ? `; last error at ${iso(state.lastAttemptAt ?? now)}: ${state.lastError}${state.nextAttemptAt ? `; next try at ${iso(state.nextAttemptAt)}` : ''}`
    : '';
  if (!certificate) {
    const detail = `no certificate yet for ${names} from ${acme.directory}${error}`;
    return state.lastError
      ? fail('certificate', detail, state.lastErrorFix ?? 'see the error')
      : fail(
          'certificate',
          detail,
          'start ringhook serve with ports 80 and 443 reachable from the internet: it orders one at start',
        );
  }
  const days = daysToExpiry(certificate.notAfter, now);
  const detail =
    `${certificate.names.join(', ')} from ${acme.directory}: expires ${iso(certificate.notAfter)} (${days} days), ` +
    `last renewal ${iso(certificate.obtainedAt)}, next renewal from ${iso(renewalTime(certificate))}${error}`;
  if (certificate.notAfter <= now)
    return fail('certificate', `EXPIRED: ${detail}`, state.lastErrorFix ?? 'start ringhook serve: it renews at start');
  if (state.lastError) return fail('certificate', detail, state.lastErrorFix ?? 'see the error');
  return pass('certificate', detail);
}
