// Free loopback ports for tests: bind port 0, read the port, release it.
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

export function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

/** A UDP port p with p+1 also free (RTP + RTCP), even, as SIPp's media port wants. */
export async function freeUdpPortPair(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = (await freeUdpPort()) & ~1;
    if (p < 1024) continue;
    try {
      await Promise.all([bindRelease(p), bindRelease(p + 1), bindRelease(p + 2), bindRelease(p + 3)]);
      return p;
    } catch {
      // taken; try another
    }
  }
  throw new Error('no free UDP port pair');
}

function bindRelease(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', (e) => {
      socket.close();
      reject(e);
    });
    socket.bind(port, '127.0.0.1', () => socket.close(() => resolve()));
  });
}
