// A SIPp phone that answers, its media sent to an RTP phone of the test's (test/helpers/rtp-phone):
// the phone of every real-peer test that hears the call and talks back (answered-call, languages,
// decision-keys). `media` waits for the INVITE and reads where Asterisk sends its audio.
import { freeUdpPort } from './ports.js';
import { asteriskMedia, startRtpPhone, type RtpPhone } from './rtp-phone.js';
import { startSipp } from './sipp.js';
import { waitFor } from './wait.js';

export interface AnsweringPhone {
  rtp: RtpPhone;
  /** Asterisk's media address, from the INVITE's SDP once it came. */
  media(timeoutMs?: number): Promise<{ host: string; port: number }>;
  /** Hangs the phone up (hushed first) and closes its RTP phone. */
  stop(): Promise<void>;
}

export async function startAnsweringPhone(
  trunkPort: number,
  { scenario = 'answer', timeoutSec = 90 }: { scenario?: 'answer' | 'answer-cn'; timeoutSec?: number } = {},
): Promise<AnsweringPhone> {
  const rtp = await startRtpPhone(await freeUdpPort());
  const phone = await startSipp({
    scenario,
    port: trunkPort,
    keys: { rtp_sink_port: rtp.port },
    timeoutSec,
    traceMessages: true,
  });
  return {
    rtp,
    media: (timeoutMs = 20_000) =>
      waitFor('the INVITE and its SDP at the phone', async () => asteriskMedia(await phone.messagesSoFar()), timeoutMs),
    async stop() {
      rtp.hush();
      await phone.stop();
      await rtp.close();
    },
  };
}
