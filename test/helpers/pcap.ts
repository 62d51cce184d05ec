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
