// A tiny SIP phone of our own on UDP (loopback), exact about time: it timestamps each INVITE the
// moment it arrives, and either refuses it with 486 Busy Here at once, or answers 200 OK with a
// PCMU SDP, timestamps the answer, listens for RTP and timestamps the first packet that is not
// silence (µ-law: the same rule as test/helpers/rtp-sink.ts), then reads no more of it, and
// answers BYE with 200. A phone given a `voice` talks as a real one does: from its ACK it sends
// what the voice says (a person's "Hello?", a voicemail's greeting), then a microphone's low noise,
// until the BYE.
import { createSocket } from 'node:dgram';

const now = () => performance.timeOrigin + performance.now();

function parse(text) {
  const [head] = text.split('\r\n\r\n');
  const lines = head.split('\r\n');
  const headers = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i < 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    (headers[name] ??= []).push(line.slice(i + 1).trim());
  }
  return { start: lines[0], headers };
}

/**
 * Nothing more is read once the first sound is timed: the provider stands in for a remote party, and
 * reading every packet of 300 calls (15,000 a second) would take this machine's CPU from ringhook.
 * The socket stays bound, so the kernel queues, then drops, what follows without an ICMP reply.
 * dgram has no public pause; its handle's recvStop is what close() calls first.
 */
function stopReading(socket) {
  const state = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'state symbol');
  socket[state]?.handle?.recvStop?.();
}

/** µ-law of one 16-bit sample (G.711). */
function ulaw(sample) {
  const sign = sample < 0 ? 0x80 : 0;
  const x = Math.min(32635, Math.abs(sample)) + 0x84;
  let exponent = 7;
  for (let mask = 0x4000; (x & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (x >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** A quiet room through a phone's microphone: noise of average level ~16 of 32768, far below talk (256). */
export function lowNoise(ms) {
  const out = Buffer.alloc(ms * 8);
  for (let i = 0; i < out.length; i++)
    out[i] = ulaw(Math.round((Math.random() + Math.random() + Math.random() - 1.5) * 40));
  return out;
}

/** Where the INVITE's SDP asks for the audio. */
function mediaOf(text) {
  const host = /^c=IN IP4 ([0-9.]+)/m.exec(text)?.[1];
  const port = /^m=audio (\d+) /m.exec(text)?.[1];
  return host && port ? { host, port: Number(port) } : undefined;
}

/** Sends `samples` then low noise as 20 ms PCMU packets, paced against the clock, until `call.byeAt` or close. */
function talk(socket, to, samples, call, isClosed) {
  const noise = lowNoise(1000);
  const started = performance.now();
  let n = 0;
  const tick = () => {
    if (call.byeAt !== undefined || isClosed()) return;
    const at = n * 160;
    const payload = at < samples.length ? samples.subarray(at, at + 160) : noise.subarray(at % 8000, (at % 8000) + 160);
    const header = Buffer.alloc(12);
    header[0] = 0x80;
    header[1] = n === 0 ? 0x80 : 0;
    header.writeUInt16BE(n & 0xffff, 2);
    header.writeUInt32BE((n * 160) >>> 0, 4);
    header.writeUInt32BE(0x0bea0000 + call.tag, 8);
    socket.send(Buffer.concat([header, payload]), to.port, to.host);
    n++;
    setTimeout(tick, Math.max(0, started + n * 20 - performance.now()));
  };
  tick();
}

function isLoud(payload) {
  let loud = 0;
  for (const b of payload) if ((b & 0x7f) < 0x60) loud++;
  return loud > payload.length / 10;
}

/**
 * @param {{ port: number, mode: 'busy' | 'answer' | ((user: string) => 'busy' | 'answer' | 'no-answer'), ringMs?: number, rtpPortBase?: number, voice?: Buffer }} options
 * `mode` as a function decides per called number; 'answer' then rings `ringMs` first (180, then
 * 200), 'no-answer' rings until the caller cancels (487).
 * `voice`: µ-law samples an answered phone sends from its ACK (then low noise); unset: it sends nothing.
 * calls: Map of SIP Call-ID → { user, mode, inviteAt, answeredAt, ackAt, firstRtpAt, firstLoudAt, byeAt, cancelledAt }
 */
export async function startUas({ port, mode, ringMs = 0, rtpPortBase = 0, voice }) {
  const sip = createSocket('udp4');
  const calls = new Map();
  const rtpSockets = [];
  let nextRtp = rtpPortBase;
  let active = 0;
  let maxActive = 0;
  let closed = false;

  function reply(msg, rinfo, status, extra = [], body = '') {
    const h = msg.headers;
    const toTag = h.to[0].includes(';tag=') ? '' : `;tag=uas${calls.get(h['call-id'][0])?.tag ?? '0'}`;
    const lines = [
      `SIP/2.0 ${status}`,
      ...h.via.map((v) => `Via: ${v}`),
      `From: ${h.from[0]}`,
      `To: ${h.to[0]}${toTag}`,
      `Call-ID: ${h['call-id'][0]}`,
      `CSeq: ${h.cseq[0]}`,
      `Contact: <sip:127.0.0.1:${port}>`,
      ...extra,
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ];
    // A reply timed after close (a ring timer) is dropped.
    if (!closed) sip.send(lines.join('\r\n'), rinfo.port, rinfo.address);
  }

  async function rtpSocket(call) {
    const socket = createSocket('udp4');
    socket.on('message', (m) => {
      if (m.length < 12 || m[0] >> 6 !== 2) return;
      const at = now();
      call.firstRtpAt ??= at;
      const pt = m[1] & 0x7f;
      if (call.firstLoudAt === undefined && (pt === 0 || pt === 8) && isLoud(m.subarray(12 + (m[0] & 0x0f) * 4))) {
        call.firstLoudAt = at;
        stopReading(socket);
      }
    });
    for (let tries = 0; tries < 200; tries++) {
      const p = nextRtp;
      nextRtp += 2;
      try {
        await new Promise((resolve, reject) => {
          socket.once('error', reject);
          socket.bind(p, '127.0.0.1', () => {
            socket.off('error', reject);
            resolve();
          });
        });
        rtpSockets.push(socket);
        return { socket, port: p };
      } catch {
        // taken; next
      }
    }
    throw new Error('no free RTP port');
  }

  sip.on('message', async (buf, rinfo) => {
    const at = now();
    const msg = parse(buf.toString('utf8'));
    if (msg.start.startsWith('SIP/2.0')) return; // responses to nothing we sent
    const method = msg.start.split(' ')[0];
    const callId = msg.headers['call-id']?.[0];
    if (!callId) return;
    if (method === 'INVITE') {
      let call = calls.get(callId);
      if (call) {
        // a retransmission: answer again with what we answered
        if (call.lastStatus) reply(msg, rinfo, call.lastStatus, call.lastExtra, call.lastBody);
        return;
      }
      const user = /sip:([^@>;]+)@/.exec(msg.start)?.[1] ?? '';
      const callMode = typeof mode === 'function' ? mode(user) : mode;
      call = {
        user,
        mode: callMode,
        inviteAt: at,
        tag: calls.size + 1,
        invite: msg,
        from: rinfo,
        media: mediaOf(buf.toString('utf8')),
      };
      calls.set(callId, call);
      if (callMode !== 'busy' && (ringMs > 0 || callMode === 'no-answer')) reply(msg, rinfo, '180 Ringing');
      if (callMode === 'no-answer') return;
      if (ringMs > 0) await new Promise((r) => setTimeout(r, ringMs));
      if (call.cancelledAt !== undefined) return;
      if (callMode === 'busy') {
        call.lastStatus = '486 Busy Here';
        call.lastExtra = [];
        call.lastBody = '';
        reply(msg, rinfo, call.lastStatus);
        call.answerSentAt = now();
        return;
      }
      const { port: rtpPort, socket: rtp } = await rtpSocket(call);
      call.rtp = rtp;
      const sdp = [
        'v=0',
        `o=bench 1 1 IN IP4 127.0.0.1`,
        's=bench',
        'c=IN IP4 127.0.0.1',
        't=0 0',
        `m=audio ${rtpPort} RTP/AVP 0 101`,
        'a=rtpmap:0 PCMU/8000',
        'a=rtpmap:101 telephone-event/8000',
        'a=fmtp:101 0-16',
        'a=sendrecv',
        '',
      ].join('\r\n');
      call.lastStatus = '200 OK';
      call.lastExtra = ['Content-Type: application/sdp'];
      call.lastBody = sdp;
      reply(msg, rinfo, call.lastStatus, call.lastExtra, call.lastBody);
      call.answeredAt = now();
      active++;
      maxActive = Math.max(maxActive, active);
    } else if (method === 'BYE') {
      reply(msg, rinfo, '200 OK');
      const call = calls.get(callId);
      if (call && call.byeAt === undefined) {
        call.byeAt = at;
        if (call.answeredAt !== undefined) active--;
      }
    } else if (method === 'CANCEL') {
      reply(msg, rinfo, '200 OK');
      const call = calls.get(callId);
      if (call && call.answeredAt === undefined && call.cancelledAt === undefined) {
        call.cancelledAt = at;
        reply(call.invite, call.from, '487 Request Terminated');
      }
    } else if (method === 'OPTIONS') {
      reply(msg, rinfo, '200 OK');
    } else if (method === 'ACK') {
      const call = calls.get(callId);
      if (call && call.answeredAt !== undefined && call.ackAt === undefined) {
        call.ackAt = at;
        if (voice && call.media) talk(call.rtp, call.media, voice, call, () => closed);
      }
    }
  });

  await new Promise((resolve, reject) => {
    sip.once('error', reject);
    sip.bind(port, '127.0.0.1', resolve);
  });
  return {
    calls,
    active: () => active,
    maxActive: () => maxActive,
    async close() {
      closed = true;
      for (const s of rtpSockets) s.close();
      await new Promise((r) => sip.close(r));
    },
  };
}
