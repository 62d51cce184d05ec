// Ports for tests. Each test process (a vitest worker runs one file in its own process or thread)
// claims a block of ports for itself and hands out only ports from it: two files running at once can
// never be handed the same port, as they could when each asked the kernel for any free port and
// released it before its peer bound it. The claim is a listening socket on the block's first port,
// held while the process lives: it works across workers and across vitest runs on one machine, and
// a crashed process's block is free again at once. The blocks lie between 20000 and 29999: below
// the kernel's ephemeral range (32768 and up, where outgoing connections and "any port" binds land)
// and above ringhook's default RTP range (10000-20000), so nothing else on the machine takes them.
// Every port handed out is still checked free (TCP and UDP) first: a peer a previous file in this
// slot left behind, or a block's ports handed out again after the cursor went round, is skipped.
import { createSocket } from 'node:dgram';
import { createServer, type Server } from 'node:net';

const FIRST_PORT = 20_000;
const BLOCK_SIZE = 500;
const BLOCKS = 20;

interface Block {
  first: number;
  /** The next port to hand out (the block's first port is the claim itself). */
  next: number;
  claim: Server;
}

let block: Promise<Block> | undefined;

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}

async function claimBlock(): Promise<Block> {
  // Start at a place of this process's own, so that workers starting together rarely try the same block.
  const start = process.pid % BLOCKS;
  for (let i = 0; i < BLOCKS; i++) {
    const first = FIRST_PORT + ((start + i) % BLOCKS) * BLOCK_SIZE;
    try {
      const claim = await listenOn(first);
      claim.unref();
      return { first, next: first + 1, claim };
    } catch {
      // Another test process holds this block (or something else sits on its first port): the next.
    }
  }
  throw new Error(
    `no free block of test ports between ${FIRST_PORT} and ${FIRST_PORT + BLOCKS * BLOCK_SIZE - 1}: ${BLOCKS} test processes already run`,
  );
}

function tcpFree(port: number): Promise<boolean> {
  return listenOn(port).then(
    (server) => new Promise<boolean>((resolve) => server.close(() => resolve(true))),
    () => false,
  );
}

function udpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
  });
}

/**
 * `count` consecutive ports from this process's block, each free for TCP and UDP, the first even
 * when `even` (RTP/RTCP pairs), never handed out again until the block's cursor has gone round.
 */
export function freePortRun(count: number, even = false): Promise<number> {
  // One at a time: two peers started together (Promise.all) must not both be handed the ports the
  // cursor points at while the first one's check is still running.
  const run = queue.then(() => takeRun(count, even));
  queue = run.catch(() => undefined);
  return run;
}

let queue: Promise<unknown> = Promise.resolve();

async function takeRun(count: number, even: boolean): Promise<number> {
  block ??= claimBlock();
  const b = await block;
  const last = b.first + BLOCK_SIZE - 1;
  if (count > BLOCK_SIZE - 2) throw new Error(`${count} ports do not fit in a block of ${BLOCK_SIZE}`);
  let wrapped = false;
  for (;;) {
    let start = b.next;
    if (even && start % 2 === 1) start += 1;
    if (start + count - 1 > last) {
      if (wrapped) throw new Error(`no ${count} free ports in the test port block ${b.first}-${last}`);
      wrapped = true;
      b.next = b.first + 1;
      continue;
    }
    const ports = Array.from({ length: count }, (_, i) => start + i);
    const free = await Promise.all(ports.map(async (port) => (await tcpFree(port)) && (await udpFree(port))));
    const taken = ports[free.indexOf(false)] ?? -1;
    if (taken === -1) {
      b.next = start + count;
      return start;
    }
    b.next = taken + 1;
  }
}

export function freeTcpPort(): Promise<number> {
  return freePortRun(1);
}

export function freeUdpPort(): Promise<number> {
  return freePortRun(1);
}

/** An even UDP port p with p+1..p+3 free too (RTP + RTCP, and the next pair), as SIPp's media port wants. */
export function freeUdpPortPair(): Promise<number> {
  return freePortRun(4, true);
}

/** A range of `size` ports (even start) for one Asterisk's RTP: no other test process can bind them. */
export async function freeRtpRange(size = 100): Promise<{ start: number; end: number }> {
  const start = await freePortRun(size, true);
  return { start, end: start + size - 1 };
}
