// The ARI client against a real Asterisk (managed, from the provisioned root fs) and a real SIPp
// phone on loopback. Each test's SIPp plays one scenario of test/e2e/sipp/.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AriClient, type AriEvent, type AriEventOf } from '../../src/pbx/ari.js';
import { startTestAsterisk, type TestAsterisk } from '../helpers/asterisk.js';
import { startSipp } from '../helpers/sipp.js';

let pbx: TestAsterisk;
let ari: AriClient;
const events: AriEvent[] = [];

beforeAll(async () => {
  pbx = await startTestAsterisk();
  ari = new AriClient({
    baseUrl: pbx.ariUrl,
    user: pbx.ariUser,
    password: pbx.ariPassword,
    app: 'ringhook-test',
    logger: pbx.logger,
  });
  ari.on('event', (e) => events.push(e));
  await ari.connect();
});

afterAll(async () => {
  await ari?.close();
  await pbx?.stop();
});

function channelEvents(channelId: string): Promise<AriEvent[]> {
  return new Promise((resolve) => {
    const seen: AriEvent[] = [];
    const off = ari.onChannel(channelId, (e) => {
      seen.push(e);
      if (e.type === 'ChannelDestroyed') {
        off();
        resolve(seen);
      }
    });
  });
}

describe('ARI with real Asterisk and SIPp', () => {
  it('reports Asterisk info', async () => {
    const info = await ari.asteriskInfo();
    expect(info.system.version).toMatch(/^2\d\./);
  });

  it('originates to an answering phone: StasisStart', async () => {
    const phone = await startSipp({ scenario: 'answer', port: pbx.trunkPort, keys: { rtp_sink_port: 40000 } });
    const channelId = `t-${randomUUID()}`;
    const all = channelEvents(channelId);
    const start = ari.waitFor((e): e is AriEventOf<'StasisStart'> => e.type === 'StasisStart' && e.channel.id === channelId, 10_000);
    const t0 = Date.now();
    const ch = await ari.originate({ channelId, endpoint: 'PJSIP/100@trunk', timeoutSec: 5, callerId: 'ringhook <100>' });
    expect(ch.id).toBe(channelId);
    const ss = await start;
    expect(ss.channel.state).toBe('Up');
    console.log('answer: originate → StasisStart ms', Date.now() - t0);
    await ari.hangup(channelId);
    const seen = await all;
    console.log(seen.map((e) => e.type + ('cause' in e ? ` ${e.cause} ${'tech_cause' in e ? e.tech_cause : ''}` : '') + ('dialstatus' in e ? ` ${e.dialstatus}` : '')));
    const result = await phone.done;
    expect(result.exitCode, result.output).toBe(0);
  });
});
