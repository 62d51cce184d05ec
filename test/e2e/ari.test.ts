// The ARI client against a real Asterisk (managed, from the provisioned root fs or the host) and
// real SIPp phones on loopback. Each call test plays one scenario of test/e2e/sipp/.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AriClient } from '../../src/pbx/ari.js';
import { AriError } from '../../src/pbx/ari-error.js';
import type { AriEvent, AriEventOf } from '../../src/pbx/ari-schema.js';
import { createTts } from '../../src/speech/tts.js';
import { connectTestAri, startTestAsterisk, type TestAsterisk } from '../helpers/asterisk.js';
import { shiftedRtpPcap } from '../helpers/pcap.js';
import { freeUdpPort, freeUdpPortPair } from '../helpers/ports.js';
import { startRtpSink } from '../helpers/rtp-sink.js';
import { startSipp, stopAllSipp, type SippScenario } from '../helpers/sipp.js';

let pbx: TestAsterisk;
let ari: AriClient;
const observed: string[] = [];

beforeAll(async () => {
  pbx = await startTestAsterisk();
  ari = await connectTestAri(pbx);
});

afterEach(() => stopAllSipp());

afterAll(async () => {
  await ari?.close();
  await pbx?.stop();
  if (observed.length) console.log(['observed:', ...observed].join('\n'));
});

interface CallRecord {
  channelId: string;
  events: AriEvent[];
  startedAt: number;
  /** ms from originate to each event type's first occurrence */
  at: Record<string, number>;
  destroyed: Promise<AriEventOf<'ChannelDestroyed'>>;
}

/** Watches a channel id before it exists, so no event is missed. */
function watch(channelId: string): CallRecord {
  const rec: CallRecord = { channelId, events: [], startedAt: Date.now(), at: {}, destroyed: undefined! };
  rec.destroyed = new Promise((resolve) => {
    const off = ari.onChannel(channelId, (e) => {
      rec.events.push(e);
      rec.at[e.type] ??= Date.now() - rec.startedAt;
      if (e.type === 'ChannelDestroyed') {
        off();
        resolve(e);
      }
    });
  });
  return rec;
}

function summary(rec: CallRecord): string {
  return rec.events
    .map((e) => {
      if (e.type === 'Dial') return `Dial(${e.dialstatus || '""'})`;
      if (e.type === 'ChannelDestroyed')
        return `ChannelDestroyed(cause ${e.cause} "${e.cause_txt}", tech_cause ${e.tech_cause ?? '-'})`;
      if (e.type === 'ChannelHangupRequest')
        return `ChannelHangupRequest(${e.cause ?? '-'}${e.tech_cause ? `/${e.tech_cause}` : ''})`;
      if (e.type === 'ChannelStateChange') return `State(${e.channel.state})`;
      if (e.type === 'ChannelDtmfReceived') return `DTMF(${e.digit})`;
      return e.type;
    })
    .join(', ');
}

function originate(channelId: string, port: number, timeoutSec = 10) {
  return ari.originate({
    channelId,
    // Dialing a URI through the trunk endpoint lets each test pick its phone's port.
    endpoint: `PJSIP/trunk/sip:100@127.0.0.1:${port}`,
    timeoutSec,
    callerId: 'ringhook <100>',
  });
}

async function failedCall(scenario: SippScenario, timeoutSec = 10) {
  const port = await freeUdpPort();
  const phone = await startSipp({ scenario, port });
  const rec = watch(`t-${randomUUID()}`);
  await originate(rec.channelId, port, timeoutSec);
  const destroyed = await rec.destroyed;
  const result = await phone.done;
  observed.push(`${scenario}: ${summary(rec)} at ${rec.at.ChannelDestroyed} ms`);
  return { rec, destroyed, result };
}

describe('ARI client with real Asterisk and SIPp', () => {
  it('reads Asterisk info', async () => {
    const info = await ari.asteriskInfo();
    expect(info.system.version).toMatch(/^\d+\./);
  });

  it('answered call: StasisStart, speech played (PlaybackFinished) and received as RTP by the phone', async () => {
    const tts = createTts({ cacheDir: `${pbx.mediaDir}/tts` });
    const speech = await tts.synthesize('Alert. Bitcoin crossed fifty thousand dollars. Press 1 to confirm.');
    const sink = await startRtpSink(await freeUdpPort());
    const port = await freeUdpPort();
    const phone = await startSipp({ scenario: 'answer', port, keys: { rtp_sink_port: sink.port } });
    const rec = watch(`t-${randomUUID()}`);
    const ch = await originate(rec.channelId, port);
    expect(ch.id).toBe(rec.channelId);

    const start = (await ari.waitFor(
      (e): e is AriEventOf<'StasisStart'> => e.type === 'StasisStart' && e.channel.id === rec.channelId,
      10_000,
    )) as AriEventOf<'StasisStart'>;
    expect(start.channel.state).toBe('Up');
    const playbackId = `p-${randomUUID()}`;
    const finished = ari.waitFor((e) => e.type === 'PlaybackFinished' && e.playback.id === playbackId, 20_000);
    const playStarted = Date.now();
    const playback = await ari.play(rec.channelId, playbackId, speech.media);
    expect(playback.id).toBe(playbackId);
    await finished;
    const playedMs = Date.now() - playStarted;
    await new Promise((r) => setTimeout(r, 200)); // last packets in flight
    await ari.hangup(rec.channelId);
    const destroyed = await rec.destroyed;
    const result = await phone.done;
    const rtp = sink.stats();
    await sink.close();

    expect(result.exitCode, result.output.slice(-2000)).toBe(0);
    expect(rec.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['Dial', 'StasisStart', 'PlaybackStarted', 'PlaybackFinished', 'StasisEnd']),
    );
    expect(destroyed.cause).toBe(16);
    expect(Math.abs(playedMs - speech.durationMs)).toBeLessThan(600);
    const rtpAudioMs = (rtp.audioBytes / 8000) * 1000; // PCMU: 8000 bytes a second
    expect(rtpAudioMs).toBeGreaterThan(speech.durationMs - 300);
    expect(rtp.loudPackets).toBeGreaterThan(speech.durationMs / 20 / 3);
    observed.push(
      `answer + playback: ${summary(rec)}; speech ${speech.durationMs} ms, PlaybackFinished after ${playedMs} ms, ` +
        `RTP at phone ${rtp.audioPackets} packets = ${Math.round(rtpAudioMs)} ms (${rtp.loudPackets} non-silent); ` +
        `StasisStart at ${rec.at.StasisStart} ms`,
    );
  });

  it('DTMF 1 pressed by the phone arrives as ChannelDtmfReceived', async () => {
    const port = await freeUdpPort();
    const phone = await startSipp({ scenario: 'dtmf-1', port, mediaPort: await freeUdpPortPair() });
    const rec = watch(`t-${randomUUID()}`);
    await originate(rec.channelId, port);
    const dtmf = (await ari.waitFor(
      (e) => e.type === 'ChannelDtmfReceived' && e.channel.id === rec.channelId,
      10_000,
    )) as AriEventOf<'ChannelDtmfReceived'>;
    expect(dtmf.digit).toBe('1');
    await ari.hangup(rec.channelId);
    const destroyed = await rec.destroyed;
    expect(destroyed.cause).toBe(16);
    const result = await phone.done;
    expect(result.exitCode, result.output.slice(-2000)).toBe(0);
    observed.push(
      `dtmf-1: ${summary(rec)}; digit ${rec.at.ChannelDtmfReceived! - rec.at.StasisStart!} ms after StasisStart`,
    );
  });

  it('DTMF 2 then 1 arrive in order', async () => {
    const port = await freeUdpPort();
    const late1 = await shiftedRtpPcap('/usr/share/sip-tester/dtmf_2833_1.pcap', 1000, 80_000);
    const phone = await startSipp({
      scenario: 'dtmf-2-then-1',
      port,
      mediaPort: await freeUdpPortPair(),
      files: { 'dtmf_2833_1_after_2.pcap': late1 },
    });
    const rec = watch(`t-${randomUUID()}`);
    await originate(rec.channelId, port);
    const digits: string[] = [];
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, 8_000);
      const off = ari.onChannel(rec.channelId, (e) => {
        if (e.type !== 'ChannelDtmfReceived') return;
        digits.push(e.digit);
        if (digits.length === 2) done();
      });
      function done() {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
    expect(digits, summary(rec)).toEqual(['2', '1']);
    await ari.hangup(rec.channelId);
    await rec.destroyed;
    expect((await phone.done).exitCode).toBe(0);
    observed.push(`dtmf-2-then-1: ${summary(rec)}`);
  });

  it('busy (486): no StasisStart, Dial BUSY, ChannelDestroyed cause 17', async () => {
    const { rec, destroyed, result } = await failedCall('busy');
    expect(rec.events.some((e) => e.type === 'StasisStart')).toBe(false);
    expect(rec.events.some((e) => e.type === 'Dial' && e.dialstatus === 'BUSY')).toBe(true);
    expect(destroyed.cause).toBe(17);
    if (destroyed.tech_cause !== undefined) expect(destroyed.tech_cause).toBe(486);
    expect(result.exitCode, result.output.slice(-2000)).toBe(0);
  });

  it('decline (603): ChannelDestroyed cause 21', async () => {
    const { rec, destroyed } = await failedCall('decline');
    expect(rec.events.some((e) => e.type === 'StasisStart')).toBe(false);
    expect(destroyed.cause).toBe(21);
    if (destroyed.tech_cause !== undefined) expect(destroyed.tech_cause).toBe(603);
  });

  it('unavailable (480): no StasisStart, cause 19 like a ring timeout (only tech_cause tells them apart)', async () => {
    const { rec, destroyed } = await failedCall('unavailable');
    expect(rec.events.some((e) => e.type === 'StasisStart')).toBe(false);
    expect(destroyed.cause).toBe(19);
    if (destroyed.tech_cause !== undefined) expect(destroyed.tech_cause).toBe(480);
  });

  it('service unavailable (503): no StasisStart; cause recorded', async () => {
    const { rec, destroyed } = await failedCall('service-unavailable');
    expect(rec.events.some((e) => e.type === 'StasisStart')).toBe(false);
    expect(destroyed.cause).toBe(34);
  });

  it('ring forever with a 3 s timeout: cause 19 at the timeout, the phone gets CANCEL', async () => {
    const { rec, destroyed, result } = await failedCall('ring-forever', 3);
    expect(rec.events.some((e) => e.type === 'StasisStart')).toBe(false);
    expect(rec.events.some((e) => e.type === 'Dial' && e.dialstatus === 'RINGING')).toBe(true);
    expect(destroyed.cause).toBe(19);
    expect(rec.at.ChannelDestroyed).toBeGreaterThan(2_900);
    expect(rec.at.ChannelDestroyed).toBeLessThan(4_500);
    expect(result.exitCode, result.output.slice(-2000)).toBe(0);
  });

  it('nothing listening on the port: no StasisStart; what Asterisk reports', async () => {
    const port = await freeUdpPort();
    const rec = watch(`t-${randomUUID()}`);
    await originate(rec.channelId, port, 3);
    const destroyed = await rec.destroyed;
    expect(rec.events.some((e) => e.type === 'StasisStart')).toBe(false);
    observed.push(`nothing listening: ${summary(rec)} at ${rec.at.ChannelDestroyed} ms`);
    expect([18, 19, 27, 34, 38]).toContain(destroyed.cause);
  });

  it('REST errors carry the status and Asterisk message', async () => {
    const e1 = await ari.hangup('no-such-channel').catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(AriError);
    expect(e1).toMatchObject({ kind: 'http', status: 404 });
    const e2 = await ari
      .originate({ channelId: `t-${randomUUID()}`, endpoint: 'PJSIP/nobody' })
      .catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(AriError);
    observed.push(`hangup unknown channel: ${(e1 as AriError).message}`);
    expect((e2 as AriError).ariMessage).toBe('Allocation failed');
    observed.push(`originate to an unknown endpoint: ${(e2 as AriError).message}`);
  });

  it('ApplicationReplaced: a second client taking the app name; the first stops reconnecting', async () => {
    const mk = () =>
      new AriClient({
        baseUrl: pbx.ariUrl,
        user: pbx.ariUser,
        password: pbx.ariPassword,
        app: 'ringhook-replace',
        logger: pbx.logger,
      });
    const first = mk();
    const second = mk();
    try {
      await first.connect();
      const replaced = new Promise<void>((resolve) => first.once('replaced', resolve));
      const event = first.waitFor((e) => e.type === 'ApplicationReplaced', 5_000);
      await second.connect();
      await event;
      await replaced;
      await new Promise((r) => setTimeout(r, 500));
      expect(first.isConnected).toBe(false);
      expect(second.isConnected).toBe(true);
      observed.push('second client on the same app: first got ApplicationReplaced');
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('an event filter: Asterisk sends only the types asked for (and ApplicationReplaced)', async () => {
    const allowed = ['Dial', 'ChannelDestroyed'];
    const filtered = new AriClient({
      baseUrl: pbx.ariUrl,
      user: pbx.ariUser,
      password: pbx.ariPassword,
      app: 'ringhook-filtered',
      logger: pbx.logger,
      events: allowed,
    });
    const appliedFilter = async () => {
      const res = await fetch(`${pbx.ariUrl}/ari/applications/ringhook-filtered`, {
        headers: { authorization: `Basic ${Buffer.from(`${pbx.ariUser}:${pbx.ariPassword}`).toString('base64')}` },
      });
      return ((await res.json()) as { events_allowed?: Array<{ type: string }> }).events_allowed
        ?.map((e) => e.type)
        .sort();
    };
    try {
      await filtered.connect();
      await expect.poll(appliedFilter, { timeout: 5_000 }).toEqual([...allowed, 'ApplicationReplaced'].sort());
      const port = await freeUdpPort();
      const phone = await startSipp({ scenario: 'busy', port });
      const channelId = `t-${randomUUID()}`;
      const types: string[] = [];
      const destroyed = new Promise<void>((resolve) =>
        filtered.onChannel(channelId, (e) => {
          types.push(e.type);
          if (e.type === 'ChannelDestroyed') resolve();
        }),
      );
      await filtered.originate({
        channelId,
        endpoint: `PJSIP/trunk/sip:100@127.0.0.1:${port}`,
        timeoutSec: 10,
        callerId: 'ringhook <100>',
      });
      await destroyed;
      await phone.done;
      // The same busy call unfiltered brings more (ChannelStateChange, ChannelHangupRequest: the "busy" test above).
      expect(new Set(types)).toEqual(new Set(allowed));
      observed.push(`busy call with the filter ${allowed.join(', ')}: ${types.join(', ')}`);
    } finally {
      await filtered.close();
    }
  });

  it('Asterisk killed: restarted by the supervisor, the client reconnects and emits reconnected', async () => {
    const reconnected = new Promise<{ downMs: number }>((resolve) => ari.once('reconnected', resolve));
    const ready = new Promise<{ restarts: number; startedInMs: number }>((resolve) =>
      pbx.asterisk.once('ready', resolve),
    );
    const killedAt = Date.now();
    process.kill(pbx.asterisk.pid!, 'SIGKILL');
    const r = await ready;
    expect(r.restarts).toBe(1);
    const { downMs } = await reconnected;
    expect(ari.isConnected).toBe(true);
    expect(await ari.listChannels()).toEqual([]);
    observed.push(
      `Asterisk SIGKILLed: ARI ready again after ${r.startedInMs} ms of start, client reconnected ` +
        `${Date.now() - killedAt} ms after the kill (down ${downMs} ms)`,
    );
    // And calls work again.
    const { destroyed } = await failedCall('busy');
    expect(destroyed.cause).toBe(17);
  });
});
