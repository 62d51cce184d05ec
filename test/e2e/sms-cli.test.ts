// The SMS commands against a real Kannel (fakesmsc behind it): `ringhook sms-test` hands one SMS
// to the gateway and the SMS centre receives it; `ringhook doctor` checks the gateway with the
// configured credentials, and names the fix when they are wrong. The CLI runs as a child process
// over the compiled dist/ (npm run build).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startKannel, type KannelPeer } from '../helpers/kannel.js';

let kannel: KannelPeer;
let env: Record<string, string>;

beforeAll(async () => {
  kannel = await startKannel();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringhook-smscli-'));
  env = {
    RINGHOOK_DATA_DIR: dataDir,
    RINGHOOK_TELEPHONY: 'off',
    RINGHOOK_SMS_GATEWAY: 'http',
    RINGHOOK_SMS_HTTP_PRESET: 'kannel',
    RINGHOOK_SMS_HTTP_URL: kannel.sendsmsUrl(),
    RINGHOOK_SMS_FROM: 'ringhook',
  };
}, 120_000);

afterAll(async () => {
  await kannel?.stop();
});

it("sms-test: the SMS centre receives the test message for the account's phone", () => {
  const created = runCli(['account', 'create', '--phone', '+14155550177', '--json'], env);
  expect(created.code, created.stderr).toBe(0);
  const before = kannel.messages().length;
  const sent = runCli(['sms-test', created.json.user_id, '--json'], env);
  expect(sent.code, sent.stderr).toBe(0);
  expect(sent.json).toMatchObject({ to: '+14155550177', status: 'sent', parts: 1 });
  return kannel.waitForMessages(before + 1).then((messages) => {
    const got = messages.slice(before);
    expect(got.map((m) => m.text)).toEqual(['Test message from ringhook: SMS backup works.']);
    expect(got[0]!.to).toContain('14155550177');
  });
}, 30_000);

it('doctor: the gateway check passes with the right credentials and names the fix with wrong ones', () => {
  const good = runCli(['doctor', '--json'], env);
  const goodSms = (good.json as Array<{ name: string; ok: boolean | string; detail: string }>).find(
    (c) => c.name === 'sms',
  )!;
  expect(goodSms.ok, goodSms.detail).toBe(true);
  expect(goodSms.detail).toMatch(/kannel/i);

  const bad = runCli(['doctor', '--json'], {
    ...env,
    RINGHOOK_SMS_HTTP_URL: kannel.sendsmsUrl('ringhook', 'wrong-password'),
  });
  expect(bad.code).not.toBe(0);
  const badSms = (bad.json as Array<{ name: string; ok: boolean | string; detail: string; fix?: string }>).find(
    (c) => c.name === 'sms',
  )!;
  expect(badSms.ok).toBe(false);
  expect(`${badSms.detail} ${badSms.fix ?? ''}`).toMatch(/username\/password|RINGHOOK_SMS_HTTP_URL/);
}, 30_000);
