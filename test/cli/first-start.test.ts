// The first start of a real `ringhook serve` (no account yet): what it tells the new owner to type
// next is what the README tells them.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildOnce, REPO_ROOT } from '../helpers/cli.js';
import { freeTcpPort } from '../helpers/ports.js';
import { type ServeChild, startServeChild } from '../helpers/serve-child.js';
import { makeDataDir } from '../helpers/service.js';

let serve: ServeChild | undefined;

beforeAll(async () => {
  buildOnce();
  serve = await startServeChild({
    env: {
      RINGHOOK_DATA_DIR: makeDataDir('rh-first-start-'),
      RINGHOOK_TELEPHONY: 'off',
      RINGHOOK_HOST: '127.0.0.1',
      RINGHOOK_PORT: String(await freeTcpPort()),
    },
  });
}, 120_000);

afterAll(async () => {
  await serve?.stop();
});

it("suggests the README's account, on the plan the README names (premium: free's 3 calls a month go on the first tries)", () => {
  const next = /Next: create an account \(another terminal\):\s+(.+)/.exec(serve!.output())?.[1]?.trim() ?? '';
  // The command install-cli puts on the PATH: never npx, which would ask the npm registry.
  expect(next).toBe('ringhook account create --phone +14155550123 --plan premium');
  expect(serve!.output()).toContain('No ringhook command on your PATH: node ');
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const command = next.slice(next.indexOf('account create'));
  expect(readme).toContain(command);
});
