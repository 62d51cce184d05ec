// The test port blocks (test/helpers/ports.ts): files running at once, and peers started together in
// one file, are never handed the same port.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { expect, it } from 'vitest';
import { freeRtpRange, freeTcpPort, freeUdpPort, freeUdpPortPair } from '../helpers/ports.js';
import { REPO_ROOT } from '../helpers/cli.js';

it('ports asked for together (Promise.all) are all different, RTP ranges included, and none in the ephemeral range', async () => {
  const [ports, pairs, ranges] = await Promise.all([
    Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? freeTcpPort() : freeUdpPort()))),
    Promise.all([freeUdpPortPair(), freeUdpPortPair()]),
    Promise.all([freeRtpRange(50), freeRtpRange(50)]),
  ]);
  const taken = [
    ...ports,
    ...pairs.flatMap((p) => [p, p + 1, p + 2, p + 3]),
    ...ranges.flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, i) => r.start + i)),
  ];
  expect(new Set(taken).size).toBe(taken.length);
  expect(taken.every((p) => p >= 20_000 && p < 30_000)).toBe(true);
  expect(pairs.every((p) => p % 2 === 0) && ranges.every((r) => r.start % 2 === 0)).toBe(true);
});

it('another process claims another block while this one holds its own', async () => {
  const mine = await freeTcpPort();
  // The same module in a second process (esbuild strips its types: Node 20 cannot).
  const source = transformSync(fs.readFileSync(path.join(REPO_ROOT, 'test/helpers/ports.ts'), 'utf8'), {
    loader: 'ts',
    format: 'esm',
  }).code;
  const script = `${source}\nconsole.log(await freeTcpPort());`;
  const theirs = Number(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim(),
  );
  expect(Math.floor((theirs - 20_000) / 500)).not.toBe(Math.floor((mine - 20_000) / 500));
});
