// A service that really calls: its managed Asterisk on free ports, a trunk to the SIPp phone that
// tests start on `trunkPort`, a 5 s ring timeout, and SMS backup through a real Kannel.
import { CallProgressStore } from '../../src/db/call-progress.js';
import { provisionAsterisk } from './asterisk.js';
import { startKannel, type KannelPeer } from './kannel.js';
import { freeUdpPort } from './ports.js';
import { managedTelephonyEnv, realClock, startTestService, type TestService } from './service.js';
import { stopAllSipp } from './sipp.js';

export interface CallingService {
  t: TestService;
  kannel: KannelPeer;
  trunkPort: number;
  progress: CallProgressStore;
  stop(): Promise<void>;
}

export async function startCallingService(): Promise<CallingService> {
  await provisionAsterisk();
  const kannel = await startKannel();
  const trunkPort = await freeUdpPort();
  const t = await startTestService(
    {
      ...(await managedTelephonyEnv(trunkPort)),
      RINGHOOK_RING_TIMEOUT: '5',
      RINGHOOK_SMS_GATEWAY: 'http',
      RINGHOOK_SMS_HTTP_PRESET: 'kannel',
      RINGHOOK_SMS_HTTP_URL: kannel.sendsmsUrl(),
      RINGHOOK_SMS_FROM: 'ringhook',
    },
    realClock(),
  );
  return {
    t,
    kannel,
    trunkPort,
    progress: new CallProgressStore(t.service.stores.db),
    async stop() {
      await stopAllSipp();
      await t.stop();
      await kannel.stop();
    },
  };
}
