// The flags the browser tests give Chromium (test/helpers/browser.ts) keep what playwright-core asks
// for, and do cut what they are there to cut: a context's window loads no page of the browser's own UI.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, it } from 'vitest';
import { CHROMIUM_ARGS, PLAYWRIGHT_DISABLED_FEATURES, launchChromium } from '../helpers/browser.js';

const disabledFeatures = (args: readonly string[]): string[] =>
  args
    .filter((a) => a.startsWith('--disable-features='))
    .flatMap((a) => a.slice('--disable-features='.length).split(','));

it("repeats playwright-core's --disable-features (Chromium reads only the last one given)", () => {
  const require = createRequire(__filename);
  const bundle = path.join(path.dirname(require.resolve('playwright-core/package.json')), 'lib', 'coreBundle.js');
  const list = /\bdisabledFeatures = \[([\s\S]*?)\]/.exec(fs.readFileSync(bundle, 'utf8'));
  expect(list, `playwright-core's list of disabled features is no longer where it was, in ${bundle}`).not.toBeNull();
  const theirs = [...list![1]!.matchAll(/^\s*"([A-Za-z0-9]+)",?\s*$/gm)].map((m) => m[1]);
  expect(theirs.length).toBeGreaterThan(5);
  expect(PLAYWRIGHT_DISABLED_FEATURES).toEqual(theirs);
  expect(CHROMIUM_ARGS.filter((a) => a.startsWith('--disable-features='))).toHaveLength(1);
  expect(disabledFeatures(CHROMIUM_ARGS)).toEqual(expect.arrayContaining(theirs));
});

it("opens a context's page with no page of the browser's own UI beside it (the omnibox popup cost a renderer per context)", async () => {
  const browser = await launchChromium();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent('<h1>ringhook</h1>');
    await page.getByRole('heading', { name: 'ringhook' }).waitFor();
    const cdp = await browser.newBrowserCDPSession();
    const { targetInfos } = await cdp.send('Target.getTargets');
    await cdp.detach();
    expect(targetInfos.filter((t) => t.type !== 'page').map((t) => `${t.type} ${t.url}`)).toEqual([]);
    expect(targetInfos).toHaveLength(1);
  } finally {
    await browser.close();
  }
}, 60_000);
