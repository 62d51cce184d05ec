// A one-request SIP client over UDP: sends an INVITE from a chosen loopback address, as any SIP
// peer on the internet could, and returns the final status Asterisk answered (ACKing it).
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';

export interface InviteProbe {
  /** Source address, e.g. 127.0.0.2 (any 127/8 address is this machine). */
  from: string;
  /** The user part of the From header, e.g. `trunk` to pose as the trunk endpoint. */
  fromUser: string;
  /** Asterisk's SIP address. */
  to: { host: string; port: number };
  timeoutMs?: number;
}

export async function sendInvite(o: InviteProbe): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, o.from, resolve));
  const { port } = socket.address();
  const callId = randomBytes(8).toString('hex');
  const branch = `z9hG4bK${randomBytes(6).toString('hex')}`;
  const tag = randomBytes(4).toString('hex');
  const target = `sip:+14155550123@${o.to.host}:${o.to.port}`;
  const headers = (method: string, toTag = '') => [
    `Via: SIP/2.0/UDP ${o.from}:${port};branch=${branch};rport`,
    `From: <sip:${o.fromUser}@${o.from}:${port}>;tag=${tag}`,
    `To: <${target}>${toTag}`,
    `Call-ID: ${callId}`,
    `CSeq: 1 ${method}`,
    'Max-Forwards: 70',
  ];
  const sdp = `v=0\r\no=- 1 1 IN IP4 ${o.from}\r\ns=-\r\nc=IN IP4 ${o.from}\r\nt=0 0\r\nm=audio ${port + 2} RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n`;
  const invite = [
    `INVITE ${target} SIP/2.0`,
    ...headers('INVITE'),
    `Contact: <sip:${o.fromUser}@${o.from}:${port}>`,
    'Content-Type: application/sdp',
    `Content-Length: ${Buffer.byteLength(sdp)}`,
    '',
    sdp,
  ].join('\r\n');
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no final answer to the INVITE from ${o.from} in ${o.timeoutMs ?? 5_000} ms`)),
        o.timeoutMs ?? 5_000,
      );
      socket.on('message', (message) => {
        const text = message.toString('utf8');
        const status = Number(/^SIP\/2\.0 (\d{3})/.exec(text)?.[1]);
        if (!status || status < 200) return;
        clearTimeout(timer);
        const toTag = /^To:.*?(;tag=[^;\s]+)/im.exec(text)?.[1] ?? '';
        const ack = [`ACK ${target} SIP/2.0`, ...headers('ACK', toTag), 'Content-Length: 0', '', ''].join('\r\n');
        socket.send(ack, o.to.port, o.to.host, () => resolve(status));
      });
      socket.send(invite, o.to.port, o.to.host);
    });
  } finally {
    socket.close();
  }
}
