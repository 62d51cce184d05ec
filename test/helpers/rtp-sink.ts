// Counts the RTP a phone receives: the SIPp answer scenario points its SDP at this UDP port.
import { createSocket, type Socket } from 'node:dgram';

export interface RtpStats {
  packets: number;
  /** Audio packets (payload type 0/8) and their G.711 payload bytes: 8000 bytes = 1 s. */
  audioPackets: number;
  audioBytes: number;
  /** Audio packets whose payload is not silence (G.711 µ-law silence is 0xFF/0x7F). */
  loudPackets: number;
  firstAt: number | undefined;
  lastAt: number | undefined;
  payloadTypes: Record<number, number>;
}

export interface RtpSink {
  port: number;
  stats(): RtpStats;
  close(): Promise<void>;
}

export function startRtpSink(port: number): Promise<RtpSink> {
  const stats: RtpStats = {
    packets: 0,
    audioPackets: 0,
    audioBytes: 0,
    loudPackets: 0,
    firstAt: undefined,
    lastAt: undefined,
    payloadTypes: {},
  };
  const socket: Socket = createSocket('udp4');
  socket.on('message', (msg) => {
    if (msg.length < 12 || msg[0]! >> 6 !== 2) return;
    const now = Date.now();
    stats.packets++;
    stats.firstAt ??= now;
    stats.lastAt = now;
    const pt = msg[1]! & 0x7f;
    stats.payloadTypes[pt] = (stats.payloadTypes[pt] ?? 0) + 1;
    if (pt === 0 || pt === 8) {
      const payload = msg.subarray(12 + (msg[0]! & 0x0f) * 4);
      stats.audioPackets++;
      stats.audioBytes += payload.length;
      // µ-law: values far from 0xFF/0x7F mean a signal well above silence.
      let loud = 0;
      for (const b of payload) if ((b & 0x7f) < 0x60) loud++;
      if (loud > payload.length / 10) stats.loudPackets++;
    }
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, '127.0.0.1', () =>
      resolve({
        port,
        stats: () => ({ ...stats, payloadTypes: { ...stats.payloadTypes } }),
        close: () => new Promise((r) => socket.close(() => r())),
      }),
    );
  });
}
