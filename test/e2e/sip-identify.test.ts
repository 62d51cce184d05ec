// Who Asterisk takes for the trunk: only requests from the trunk's address. An INVITE whose From
// user is "trunk" sent from another address is not identified (Asterisk challenges it with 401, as
// any unknown peer) instead of being let into the trunk's context; from the trunk's own address it
// is the trunk, whose inbound calls are refused (403, the dial plan's Hangup(21)).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { provisionAsterisk } from '../helpers/asterisk.js';
import { freeUdpPort } from '../helpers/ports.js';
import { managedTelephonyEnv, realClock, startTestService, type TestService } from '../helpers/service.js';
import { sendInvite } from '../helpers/sip-probe.js';

let t: TestService;

beforeAll(async () => {
  await provisionAsterisk();
  // The trunk is at 127.0.0.1; 127.0.0.2 is another address of this machine.
  t = await startTestService(await managedTelephonyEnv(await freeUdpPort()), realClock());
}, 300_000);

afterAll(async () => {
  await t?.stop();
});

const asterisk = () => ({ host: '127.0.0.1', port: t.config.telephony.sip.port });

it('an INVITE posing as the trunk from another address is not taken for the trunk', async () => {
  expect(await sendInvite({ from: '127.0.0.2', fromUser: 'trunk', to: asterisk() })).toBe(401);
});

it("an INVITE from the trunk's own address is the trunk's, and inbound calls are refused", async () => {
  expect(await sendInvite({ from: '127.0.0.1', fromUser: 'someone', to: asterisk() })).toBe(403);
});
