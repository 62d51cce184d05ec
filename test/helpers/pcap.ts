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
    const ip = off + 16 + 14;
    off += 16 + caplen;
    if (off > pcap.length || pcap.readUInt16BE(ip - 2) !== 0x0800) continue;
    const ihl = (pcap[ip]! & 0x0f) * 4;
    const total = pcap.readUInt16BE(ip + 2);
    const proto = pcap[ip + 9];
    const l4 = ip + ihl;
    const base = { src: address(ip + 12), dst: address(ip + 16), sport: pcap.readUInt16BE(l4), dport: pcap.readUInt16BE(l4 + 2) };
    if (proto === 17) packets.push({ protocol: 'udp', ...base, payload: pcap.subarray(l4 + 8, ip + total) });
    if (proto === 6) packets.push({ protocol: 'tcp', ...base, payload: pcap.subarray(l4 + (pcap[l4 + 12]! >> 4) * 4, ip + total) });
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
