// doctor's look at ringhook's own certificate (ACME): read through app/acme, judged by core/server/acme.
import type { Config } from '../config/index.js';
import { certificateVerdict } from '../core/server/acme.js';
import { readCertificateState } from '../app/acme/index.js';
import type { CertificateState } from '../core/server/certificate.js';
import { type CheckResult, fail, pass } from './doctor-result.js';

export async function checkAcmeCertificate(config: Config, now = Date.now()): Promise<CheckResult> {
  let state: CertificateState;
  try {
    state = await readCertificateState(config);
  } catch (error) {
    return fail(
      'certificate',
      `cannot read the certificate's state: ${(error as Error).message}`,
      'see the database check',
    );
  }
  const verdict = certificateVerdict(state, config.acme!, now);
  return verdict.ok ? pass('certificate', verdict.detail) : fail('certificate', verdict.detail, verdict.fix);
}
