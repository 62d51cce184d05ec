// Rewrites the RTP sequence numbers and timestamps of a pcap capture (classic pcap, Ethernet +
// IPv4 + UDP + RTP), so Debian's DTMF captures can be played one after another: Asterisk ignores
// an RFC 2833 event whose sequence number is behind the last one it saw, and all of the
// captures share one SSRC with unrelated sequence numbers.
import { readFile } from 'node:fs/promises';

export async function shiftedRtpPcap(path: string, seqOffset: number, tsOffset: number): Promise<Buffer> {
  const pcap = Buffer.from(await readFile(path));
  if (pcap.readUInt32LE(0) !== 0xa1b2c3d4) throw new Error(`${path}: not a little-endian pcap file`);
  if (pcap.readUInt32LE(20) !== 1) throw new Error(`${path}: not an Ethernet capture`);
  let off = 24;
  while (off + 16 <= pcap.length) {
    const caplen = pcap.readUInt32LE(off + 8);
    const frame = off + 16;
    const ihl = (pcap[frame + 14]! & 0x0f) * 4;
    const rtp = frame + 14 + ihl + 8;
    pcap.writeUInt16BE((pcap.readUInt16BE(rtp + 2) + seqOffset) & 0xffff, rtp + 2);
    pcap.writeUInt32BE((pcap.readUInt32BE(rtp + 4) + tsOffset) >>> 0, rtp + 4);
    off = frame + caplen;
  }
  return pcap;
}

export interface Packet {
  /** When it was captured (ms since the epoch). */
  at: number;
  protocol: 'udp' | 'tcp';
  src: string;
  dst: string;
  sport: number;
  dport: number;
  payload: Buffer;
}

/** The IPv4 UDP and TCP packets of a classic pcap capture of an Ethernet interface. */
export function readPackets(pcap: Buffer): Packet[] {
  if (pcap.length < 24) return [];
  if (pcap.readUInt32LE(0) !== 0xa1b2c3d4) throw new Error('not a little-endian pcap file');
  const packets: Packet[] = [];
  const address = (at: number) => [...pcap.subarray(at, at + 4)].join('.');
  for (let off = 24; off + 16 <= pcap.length; ) {
    const caplen = pcap.readUInt32LE(off + 8);
    const at = pcap.readUInt32LE(off) * 1000 + pcap.readUInt32LE(off + 4) / 1000;
    const ip = off + 16 + 14;
    off += 16 + caplen;
    if (off > pcap.length || pcap.readUInt16BE(ip - 2) !== 0x0800) continue;
    const ihl = (pcap[ip]! & 0x0f) * 4;
    const total = pcap.readUInt16BE(ip + 2);
    const proto = pcap[ip + 9];
    const l4 = ip + ihl;
    const base = {
      at,
      src: address(ip + 12),
      dst: address(ip + 16),
      sport: pcap.readUInt16BE(l4),
      dport: pcap.readUInt16BE(l4 + 2),
    };
    if (proto === 17) packets.push({ protocol: 'udp', ...base, payload: pcap.subarray(l4 + 8, ip + total) });
    if (proto === 6)
      packets.push({ protocol: 'tcp', ...base, payload: pcap.subarray(l4 + (pcap[l4 + 12]! >> 4) * 4, ip + total) });
  }
  return packets;
}

/** Shannon entropy of the bytes, in bits a byte: about 8 for ciphertext, well below for G.711 speech. */
export function byteEntropy(data: Buffer): number {
  const counts = new Array<number>(256).fill(0);
  for (const b of data) counts[b]!++;
  let h = 0;
  for (const c of counts) if (c > 0) h -= (c / data.length) * Math.log2(c / data.length);
  return h;
}

/** One RTP packet to write: when it is sent (ms from the first), its payload type, and its payload. */
export interface RtpFrame {
  atMs: number;
  payloadType: number;
  marker?: boolean;
  /** RTP timestamp (8 kHz units); DTMF events keep their start's. */
  timestamp: number;
  payload: Buffer;
}

/** A classic pcap (Ethernet + IPv4 + UDP + RTP) of `frames`, for SIPp's play_pcap_audio: one stream, sequence numbers in order. */
export function rtpPcap(frames: readonly RtpFrame[], ssrc = 0x4c414221): Buffer {
  const parts: Buffer[] = [];
  const global = Buffer.alloc(24);
  global.writeUInt32LE(0xa1b2c3d4, 0);
  global.writeUInt16LE(2, 4);
  global.writeUInt16LE(4, 6);
  global.writeUInt32LE(65535, 16);
  global.writeUInt32LE(1, 20);
  parts.push(global);
  for (const [seq, f] of frames.entries()) {
    const rtp = Buffer.alloc(12);
    rtp[0] = 0x80;
    rtp[1] = (f.marker ? 0x80 : 0) | f.payloadType;
    rtp.writeUInt16BE(seq & 0xffff, 2);
    rtp.writeUInt32BE(f.timestamp >>> 0, 4);
    rtp.writeUInt32BE(ssrc, 8);
    const udpLength = 8 + rtp.length + f.payload.length;
    const ip = Buffer.alloc(20);
    ip[0] = 0x45;
    ip.writeUInt16BE(20 + udpLength, 2);
    ip[8] = 64;
    ip[9] = 17;
    Buffer.from([192, 0, 2, 1]).copy(ip, 12);
    Buffer.from([192, 0, 2, 2]).copy(ip, 16);
    const udp = Buffer.alloc(8);
    udp.writeUInt16BE(6000, 0);
    udp.writeUInt16BE(6002, 2);
    udp.writeUInt16BE(udpLength, 4);
    const ethernet = Buffer.alloc(14);
    ethernet.writeUInt16BE(0x0800, 12);
    const frame = Buffer.concat([ethernet, ip, udp, rtp, f.payload]);
    const header = Buffer.alloc(16);
    header.writeUInt32LE(Math.floor(f.atMs / 1000), 0);
    header.writeUInt32LE(Math.round((f.atMs % 1000) * 1000), 4);
    header.writeUInt32LE(frame.length, 8);
    header.writeUInt32LE(frame.length, 12);
    parts.push(header, frame);
  }
  return Buffer.concat(parts);
}
