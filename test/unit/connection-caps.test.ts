// The connection caps' decisions (whom to close, whom to refuse, how long keep-alive lasts) and the
// shared descriptor budget. Pure.
import { expect, it } from 'vitest';
import {
  admission,
  connectionRefusal,
  defaultMaxConnections,
  descriptorHeadroom,
  descriptorsExhausted,
  KEEP_ALIVE_MS,
  KEEP_ALIVE_UNDER_PRESSURE_MS,
  keepAliveMs,
  MAX_REQUESTS_UNDER_WAY,
  pipelinedTooDeep,
  SLOW_READER_MS,
  sendState,
  tookSome,
} from '../../src/core/connections/connection-caps.js';

const limits = { total: 100, perAddress: 10 };

it('refuses beyond the total (trusted proxies too) and beyond one address (trusted proxies exempt)', () => {
  expect(connectionRefusal({ total: 99, fromAddress: 9 }, false, limits)).toBeUndefined();
  expect(connectionRefusal({ total: 99, fromAddress: 10 }, false, limits)).toBe('perAddress');
  expect(connectionRefusal({ total: 99, fromAddress: 50 }, true, limits)).toBeUndefined();
  expect(connectionRefusal({ total: 100, fromAddress: 0 }, false, limits)).toBe('total');
  expect(connectionRefusal({ total: 100, fromAddress: 0 }, true, limits)).toBe('total');
  // An address over its own cap is refused, never let in at another's expense.
  expect(connectionRefusal({ total: 100, fromAddress: 10 }, false, limits)).toBe('perAddress');
});

it('at the total cap closes the connection idle the longest, kept alive or not yet served, to let a new one in', () => {
  const idle = [
    { connection: 'kept-alive since 12:00', served: true },
    { connection: 'no request since 12:01', served: false },
  ];
  expect(admission({ total: 100, fromAddress: 0 }, false, limits, idle)).toEqual({
    admit: true,
    close: 'kept-alive since 12:00',
  });
  expect(admission({ total: 100, fromAddress: 0 }, false, limits, idle.slice(1))).toEqual({
    admit: true,
    close: 'no request since 12:01',
  });
  // Below the cap nobody is closed.
  expect(admission({ total: 99, fromAddress: 0 }, false, limits, idle)).toEqual({ admit: true, close: undefined });
  // Every connection in the middle of a request: refused.
  expect(admission({ total: 100, fromAddress: 0 }, false, limits, [])).toEqual({ admit: false, refusal: 'total' });
  // An address at its own cap closes nobody's connection.
  expect(admission({ total: 100, fromAddress: 10 }, false, limits, idle)).toEqual({
    admit: false,
    refusal: 'perAddress',
  });
  expect(admission({ total: 100, fromAddress: 10 }, true, limits, idle)).toEqual({
    admit: true,
    close: 'kept-alive since 12:00',
  });
});

it('at the total cap refuses an address that holds its share already (the average address), so a flood reconnects at the cost of an accept', () => {
  const idle = [{ connection: 'oldest', served: true }];
  // 16 addresses holding 48 each: the 17th address gets in, a 16th's reconnection does not.
  expect(
    admission({ total: 768, fromAddress: 0, addresses: 16 }, false, { total: 768, perAddress: 256 }, idle),
  ).toEqual({ admit: true, close: 'oldest' });
  expect(
    admission({ total: 768, fromAddress: 48, addresses: 16 }, false, { total: 768, perAddress: 256 }, idle),
  ).toEqual({ admit: false, refusal: 'share' });
  // One with fewer than the average still gets in; a trusted proxy is never held to a share.
  expect(
    admission({ total: 768, fromAddress: 2, addresses: 17 }, false, { total: 768, perAddress: 256 }, idle),
  ).toEqual({ admit: true, close: 'oldest' });
  expect(
    admission({ total: 768, fromAddress: 700, addresses: 2 }, true, { total: 768, perAddress: 256 }, idle),
  ).toEqual({ admit: true, close: 'oldest' });
});

it('says the descriptors are exhausted within 16 of the limit', () => {
  expect(descriptorsExhausted(1000, 1024)).toBe(false);
  expect(descriptorsExhausted(1008, 1024)).toBe(true);
  expect(descriptorsExhausted(5000, undefined)).toBe(false);
});

it('reads the idle list only as far as the first one (the listeners hold thousands)', () => {
  let read = 0;
  function* many() {
    for (let i = 0; i < 5000; i++) {
      read++;
      yield { connection: i, served: true };
    }
  }
  expect(admission({ total: 100, fromAddress: 0 }, false, limits, many())).toEqual({ admit: true, close: 0 });
  expect(read).toBe(1);
  read = 0;
  admission({ total: 10, fromAddress: 0 }, false, limits, many());
  expect(read).toBe(0);
});

it('at the total cap closes a slow reader (an answer its client takes none of) before any idle connection, longest first', () => {
  const idle = [{ connection: 'kept-alive since 12:00', served: true }];
  const slow = ['slow since 12:05', 'slow since 12:06'];
  expect(admission({ total: 100, fromAddress: 0 }, false, limits, idle, slow)).toEqual({
    admit: true,
    close: 'slow since 12:05',
  });
  // Every connection mid-request, but one of them waiting on a client that does not read: it makes room.
  expect(admission({ total: 100, fromAddress: 0 }, false, limits, [], slow.slice(1))).toEqual({
    admit: true,
    close: 'slow since 12:06',
  });
  // A slow reader counts toward its address: over its cap, or holding its share, an address is still refused.
  expect(admission({ total: 99, fromAddress: 10 }, false, limits, idle, slow)).toEqual({
    admit: false,
    refusal: 'perAddress',
  });
  expect(admission({ total: 100, fromAddress: 9, addresses: 12 }, false, limits, idle, slow)).toEqual({
    admit: false,
    refusal: 'share',
  });
  // Below the cap nothing is closed.
  expect(admission({ total: 99, fromAddress: 0 }, false, limits, idle, slow)).toEqual({
    admit: true,
    close: undefined,
  });
});

it('a connection whose client took none of its answer for 2 s is a slow reader, and for the send timeout is closed', () => {
  const timeouts = { sendTimeoutMs: 30_000, minSendRate: 1_000 };
  expect(sendState({ unsent: 0, sinceProgressMs: 60_000 }, timeouts)).toBe('flowing');
  expect(sendState({ unsent: 5_000, sinceProgressMs: SLOW_READER_MS - 1 }, timeouts)).toBe('flowing');
  expect(sendState({ unsent: 5_000, sinceProgressMs: SLOW_READER_MS }, timeouts)).toBe('slow');
  expect(sendState({ unsent: 1, sinceProgressMs: 30_000 }, timeouts)).toBe('slow');
  expect(sendState({ unsent: 1, sinceProgressMs: 30_001 }, timeouts)).toBe('timed out');
  // A large answer is one write, done only when all of it is taken: its time grows at the minimum rate.
  expect(sendState({ unsent: 50_000, sinceProgressMs: 79_999 }, timeouts)).toBe('slow');
  expect(sendState({ unsent: 50_000, sinceProgressMs: 80_000 }, timeouts)).toBe('timed out');
});

it('the client took some of its answers when less waits, more writes completed, or nothing waits', () => {
  // A 5 MB answer written at once completes only when the kernel took all of it: less waiting is progress.
  expect(tookSome({ waiting: 5_000_000, completed: 0 }, { waiting: 4_900_000, completed: 0 })).toBe(true);
  expect(tookSome({ waiting: 5_000, completed: 100 }, { waiting: 5_000, completed: 200 })).toBe(true);
  expect(tookSome({ waiting: 5_000, completed: 100 }, { waiting: 0, completed: 100 })).toBe(true);
  expect(tookSome({ waiting: 5_000, completed: 100 }, { waiting: 5_000, completed: 100 })).toBe(false);
  // More written behind an answer nobody reads (a live stream's events) is not progress.
  expect(tookSome({ waiting: 5_000, completed: 100 }, { waiting: 6_000, completed: 100 })).toBe(false);
});

it('refuses a request beyond the fourth under way on one connection (pipelined ahead of its answers)', () => {
  expect(MAX_REQUESTS_UNDER_WAY).toBe(4);
  expect(pipelinedTooDeep(1)).toBe(false);
  expect(pipelinedTooDeep(4)).toBe(false);
  expect(pipelinedTooDeep(5)).toBe(true);
  expect(pipelinedTooDeep(20)).toBe(true);
});

it('cuts keep-alive short once the listeners are more than half full', () => {
  expect(keepAliveMs(0, limits)).toBe(KEEP_ALIVE_MS);
  expect(keepAliveMs(50, limits)).toBe(KEEP_ALIVE_MS);
  expect(keepAliveMs(51, limits)).toBe(KEEP_ALIVE_UNDER_PRESSURE_MS / 2);
  expect(keepAliveMs(100, limits)).toBe(KEEP_ALIVE_UNDER_PRESSURE_MS / 2);
  // Spread over the upper half, so that a flood's connections do not all close (and come back) at once.
  expect(keepAliveMs(100, limits, 0.999_999)).toBe(KEEP_ALIVE_UNDER_PRESSURE_MS);
  expect(keepAliveMs(100, limits, 0.5)).toBe(KEEP_ALIVE_UNDER_PRESSURE_MS * 0.75);
});

it('gives both listeners together the open-file limit less a headroom (an eighth, at least 256), between 64 and 4096', () => {
  expect(descriptorHeadroom(1024)).toBe(256);
  expect(descriptorHeadroom(4096)).toBe(512);
  expect(defaultMaxConnections(4096)).toBe(3584);
  expect(defaultMaxConnections(2048)).toBe(1792);
  expect(defaultMaxConnections(1024)).toBe(768);
  expect(defaultMaxConnections(524_288)).toBe(4096);
  expect(defaultMaxConnections(300)).toBe(64);
  expect(defaultMaxConnections(undefined)).toBe(4096);
});
