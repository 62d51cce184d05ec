// The connection caps' decision and the default total cap. Pure.
import { expect, it } from 'vitest';
import { connectionRefusal, defaultMaxConnections, evictsForRoom } from '../../src/core/connection-caps.js';

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

it('makes room at the total cap by closing a connection that has sent no request yet, if there is one', () => {
  expect(evictsForRoom('total', 3)).toBe(true);
  expect(evictsForRoom('total', 0)).toBe(false);
  expect(evictsForRoom('perAddress', 3)).toBe(false);
  expect(evictsForRoom(undefined, 3)).toBe(false);
});

it('takes half the open-file limit as the total cap, between 64 and 4096', () => {
  expect(defaultMaxConnections(2048)).toBe(1024);
  expect(defaultMaxConnections(1024)).toBe(512);
  expect(defaultMaxConnections(524_288)).toBe(4096);
  expect(defaultMaxConnections(50)).toBe(64);
  expect(defaultMaxConnections(undefined)).toBe(4096);
});
