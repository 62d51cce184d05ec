// Asks a STUN server which address this network's traffic comes from: behind NAT, the router's
// public address. A few tries over UDP, each bounded in time.
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { stunBindingRequest, stunMappedAddress } from '../core/connections/stun.js';

export async function publicAddressFromStun(
  server: { host: string; port: number },
  options: { tries?: number; timeoutMs?: number } = {},
): Promise<string> {
  const tries = options.tries ?? 3;
  const timeoutMs = options.timeoutMs ?? 1_000;
  const socket = createSocket('udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, () => resolve());
    });
    for (let attempt = 1; attempt <= tries; attempt++) {
      const id = randomBytes(12);
      const answer = new Promise<string | undefined>((resolve) => {
        const timer = setTimeout(() => done(undefined), timeoutMs);
        const onMessage = (message: Buffer) => {
          const address = stunMappedAddress(message, id);
          if (address !== undefined) done(address);
        };
        const done = (address: string | undefined) => {
          clearTimeout(timer);
          socket.off('message', onMessage);
          resolve(address);
        };
        socket.on('message', onMessage);
      });
      await new Promise<void>((resolve, reject) =>
        socket.send(stunBindingRequest(id), server.port, server.host, (error) => (error ? reject(error) : resolve())),
      );
      const address = await answer;
      if (address !== undefined) return address;
    }
    throw new Error(
      `no answer from the STUN server ${server.host}:${server.port} (${tries} tries, ${timeoutMs} ms each)`,
    );
  } finally {
    socket.close();
  }
}
