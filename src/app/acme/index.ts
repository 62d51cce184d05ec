// ringhook's own certificate (ACME), its I/O in one folder: the keeper that serves, orders and renews
// it (keeper.ts), one order through acme-client (order.ts), and the state doctor reads. The
// decisions are core/server/acme.ts; the plain-HTTP port that answers HTTP-01 is http/acme-challenge.ts
// (a listener's job, below app/); the variables are config/acme.ts; the rows store/certificates.
import type { Config } from '../../config/index.js';
import type { CertificateState } from '../../core/server/certificate.js';
import { openStores } from '../open-stores.js';

export { type CertificateKeeper, type CertificateKeeperDeps, prepareCertificate } from './keeper.js';

/** The certificate's state as serve left it in the store, for doctor (it opens and closes the store). */
export async function readCertificateState(config: Config): Promise<CertificateState> {
  const stores = await openStores(config);
  try {
    return await stores.certificates.state();
  } finally {
    await stores.close();
  }
}
