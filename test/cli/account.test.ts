// The admin CLI, run as a real process on a real database file (also while serve runs).
import { beforeAll, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { buildOnce, runCli } from '../helpers/cli.js';
import { makeDataDir, startTestService } from '../helpers/service.js';

// A test here runs the real CLI up to 17 times, a Node process each (~1 s alone, 2–6 s on a loaded
// 2-core machine): the budget is per test, the assertions are the same.
vi.setConfig({ testTimeout: 120_000 });

let env: Record<string, string>;

beforeAll(() => {
  buildOnce();
  env = { RINGHOOK_DATA_DIR: makeDataDir(), RINGHOOK_PUBLIC_URL: 'https://alerts.example.com' };
});

const create = (...extra: string[]) =>
  runCli(['account', 'create', '--phone', '+14155550123', '--json', ...extra], env);

describe('ringhook --help', () => {
  it('lists every command, and every command has --help', () => {
    const top = runCli(['--help'], env);
    expect(top.code).toBe(0);
    for (const cmd of ['serve', 'account', 'calls', 'test-call', 'sms-test', 'doctor', 'backup'])
      expect(top.stdout).toContain(cmd);
    for (const args of [
      ['serve'],
      ['account'],
      ['calls'],
      ['test-call'],
      ['sms-test'],
      ['doctor'],
      ['backup'],
      ['account', 'login-link'],
      ['account', 'create'],
      ['account', 'list'],
      ['account', 'show'],
      ['account', 'set'],
      ['account', 'suspend'],
      ['account', 'resume'],
      ['account', 'regenerate'],
      ['account', 'delete'],
    ]) {
      const res = runCli([...args, '--help'], env);
      expect(res.code, args.join(' ')).toBe(0);
      expect(res.stdout, args.join(' ')).toMatch(/USAGE/);
    }
  });

  it('an unknown command is one clear line and exit 2', () => {
    const res = runCli(['frobnicate'], env);
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/Unknown command.*frobnicate/);
  });
});

describe('ringhook account', () => {
  it('creates an account and prints its webhook URL', () => {
    const res = create('--plan', 'premium', '--sms-backup', 'on', '--name', 'Ada');
    expect(res.code).toBe(0);
    expect(res.json).toMatchObject({
      user_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      api_key: expect.stringMatching(/^rk_[A-Za-z0-9_-]{43}$/),
      plan: 'premium',
      phone: '+14155550123',
      sms_backup: true,
      status: 'active',
      name: 'Ada',
    });
    expect(res.json.webhook_url).toBe(`https://alerts.example.com/webhook/${res.json.user_id}/${res.json.api_key}`);
  });

  it('defaults to the free plan without SMS backup, and normalizes the phone number', () => {
    const res = runCli(['account', 'create', '--phone', '+44 (20) 7946-0958', '--json'], env);
    expect(res.json).toMatchObject({ plan: 'free', sms_backup: false, phone: '+442079460958' });
  });

  it.each([
    [['--phone', '0123456'], /--phone: .*E\.164/],
    [['--phone', '+14155550123', '--plan', 'gold'], /--plan: the plan must be free or premium/],
    [[], /phone/i],
  ])('refuses bad input %j with one line and changes nothing', (args, pattern) => {
    const before = runCli(['account', 'list', '--json'], env).json.length;
    const res = runCli(['account', 'create', ...args], env);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(pattern);
    expect(res.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(runCli(['account', 'list', '--json'], env).json.length).toBe(before);
  });

  it('lists, shows, sets, suspends, resumes, regenerates and deletes', () => {
    const a = create().json;
    expect(runCli(['account', 'list', '--json'], env).json.map((x: any) => x.user_id)).toContain(a.user_id);
    expect(runCli(['account', 'list'], env).stdout).toContain(a.user_id);
    expect(runCli(['account', 'show', a.user_id, '--json'], env).json).toMatchObject({
      user_id: a.user_id,
      calls_this_month: 0,
    });

    const set = runCli(
      [
        'account',
        'set',
        a.user_id,
        '--plan',
        'premium',
        '--sms-backup',
        'on',
        '--name',
        'Bob',
        '--phone',
        '+33612345678',
        '--json',
      ],
      env,
    );
    expect(set.json).toMatchObject({ plan: 'premium', sms_backup: true, name: 'Bob', phone: '+33612345678' });
    expect(runCli(['account', 'set', a.user_id, '--sms-backup', 'maybe'], env).stderr).toMatch(
      /--sms-backup: must be on or off/,
    );
    expect(runCli(['account', 'set', a.user_id], env).stderr).toMatch(/nothing to change/);

    expect(runCli(['account', 'suspend', a.user_id, '--json'], env).json.status).toBe('suspended');
    const testCall = runCli(['test-call', a.user_id], env);
    expect(testCall.code).toBe(1);
    expect(testCall.stderr).toBe(
      `ringhook: the account ${a.user_id} is suspended: no call is placed (ringhook account resume ${a.user_id})\n`,
    );
    expect(runCli(['calls', '--account', a.user_id, '--json'], env).json).toEqual([]);
    expect(runCli(['account', 'resume', a.user_id, '--json'], env).json.status).toBe('active');
    // No serve on this data dir: nothing is queued (it would end failed and count against the test calls allowed).
    const noServe = runCli(['test-call', a.user_id], env);
    expect(noServe.code).toBe(1);
    expect(noServe.stderr).toBe(
      `ringhook: no ringhook serve is running on the data dir ${env.RINGHOOK_DATA_DIR}: start it (ringhook serve, or npm start), then try again\n`,
    );
    expect(runCli(['calls', '--account', a.user_id, '--json'], env).json).toEqual([]);

    const regenerated = runCli(['account', 'regenerate', a.user_id, '--json'], env).json;
    expect(regenerated.api_key).not.toBe(a.api_key);
    expect(regenerated.api_key).toMatch(/^rk_/);

    const refused = runCli(['account', 'delete', a.user_id], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--yes/);
    expect(runCli(['account', 'delete', a.user_id, '--yes'], env).code).toBe(0);
    const gone = runCli(['account', 'show', a.user_id], env);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/no account with user_id/);
  });

  it('--sms-backup takes on or off at create as at set (off was read as on when it was a flag)', () => {
    expect(create('--sms-backup', 'off').json.sms_backup).toBe(false);
    expect(create('--sms-backup=off').json.sms_backup).toBe(false);
    expect(create('--sms-backup', 'on').json.sms_backup).toBe(true);
    const noValue = create('--sms-backup', '--plan', 'premium');
    expect(noValue.code).toBe(2);
    expect(noValue.stderr).toBe(
      'ringhook: --sms-backup needs a value (--sms-backup=VALUE for one that starts with -) (see ringhook account create --help)\n',
    );
  });

  it('an option the command does not have, or an argument too many, is a usage error (2) and nothing is done', () => {
    const a = create().json;
    const b = create().json;
    const cases: Array<[string[], string]> = [
      [
        ['account', 'delete', a.user_id, '--yes', '--dry-run'],
        'unknown option --dry-run (see ringhook account delete --help)',
      ],
      [
        ['account', 'suspend', a.user_id, b.user_id],
        `unexpected argument "${b.user_id}" (see ringhook account suspend --help)`,
      ],
      [
        ['account', 'set', a.user_id, '--password', 'hunter2'],
        'unexpected argument "hunter2" (--password takes no value) (see ringhook account set --help)',
      ],
      [
        ['account', 'create', '--phone', '+14155550123', '--sms-bakup', 'on'],
        'unknown option --sms-bakup (did you mean --sms-backup?) (see ringhook account create --help)',
      ],
      [['calls', '--bogus'], 'unknown option --bogus (see ringhook calls --help)'],
    ];
    const before = runCli(['account', 'list', '--json'], env).json;
    for (const [args, said] of cases) {
      const res = runCli(args, env);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toBe(`ringhook: ${said}\n`);
    }
    expect(runCli(['account', 'list', '--json'], env).json).toEqual(before);
  });

  it('confirmation required: on for a new account, --require-confirm on|off at create and set, refused when neither', () => {
    const a = create().json;
    expect(a.require_confirm).toBe(true);
    expect(create('--require-confirm', 'off').json.require_confirm).toBe(false);
    expect(runCli(['account', 'set', a.user_id, '--require-confirm', 'off', '--json'], env).json.require_confirm).toBe(
      false,
    );
    expect(runCli(['account', 'list'], env).stdout).toMatch(/REQUIRE_CONFIRM/);
    const bad = runCli(['account', 'set', a.user_id, '--require-confirm', 'sometimes'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--require-confirm: must be on or off/);
    expect(runCli(['account', 'show', a.user_id, '--json'], env).json.require_confirm).toBe(false);
    const badCreate = runCli(['account', 'create', '--phone', '+14155550199', '--require-confirm', 'yes please'], env);
    expect(badCreate.code).toBe(1);
    expect(
      runCli(['account', 'list', '--json'], env).json.some((x: { phone: string }) => x.phone === '+14155550199'),
    ).toBe(false);
    expect(runCli(['account', 'set', '--help'], env).stdout).toMatch(/--require-confirm/);
  });

  it('quiet hours: --quiet-hours, --timezone and --quiet-mode at create and set, shown with what will happen, refused with one line and nothing changed', () => {
    const a = create('--quiet-hours', 'Mon-Fri 22:00-07:00', '--timezone', 'Europe/Berlin').json;
    expect(a).toMatchObject({ quiet_hours: 'mon-fri 22:00-07:00', time_zone: 'Europe/Berlin', quiet_mode: 'hold' });
    expect(a.quiet_hours_effect).toMatch(
      /^mon-fri 22:00-07:00 \(Europe\/Berlin\); alerts in them are held, and called when they end/,
    );
    // sms without a gateway on this server: held, and said so.
    const sms = runCli(['account', 'set', a.user_id, '--quiet-mode', 'sms', '--sms-backup', 'on', '--json'], env).json;
    expect(sms.quiet_mode).toBe('sms');
    expect(sms.quiet_hours_effect).toMatch(/are held, and called when they end/);
    expect(sms.quiet_mode_warning).toMatch(/this server sends no SMS/);
    const shown = runCli(['account', 'show', a.user_id], env).stdout;
    expect(shown).toMatch(/quiet_hours_effect/);
    expect(shown).toMatch(/held_alerts/);
    for (const [args, error] of [
      [['--quiet-hours', 'weekdays 22:00-07:00'], /--quiet-hours: 'weekdays' is not a day or day range/],
      [['--quiet-hours', 'mon 25:00-07:00'], /'25:00' is not a time of day/],
      [['--timezone', 'Mars/Olympus'], /--timezone: 'Mars\/Olympus' is not an IANA time zone name/],
      [['--quiet-mode', 'silent'], /--quiet-mode: 'silent' is not one of hold, sms, call/],
      [['--quiet-hours', 'daily 00:00-24:00'], /cover the whole week/],
    ] as const) {
      const bad = runCli(['account', 'set', a.user_id, ...args], env);
      expect(bad.code, bad.stderr).toBe(1);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
      expect(bad.stderr).toMatch(error);
    }
    expect(runCli(['account', 'show', a.user_id, '--json'], env).json).toMatchObject({
      quiet_hours: 'mon-fri 22:00-07:00',
      time_zone: 'Europe/Berlin',
      quiet_mode: 'sms',
    });
    const off = runCli(['account', 'set', a.user_id, '--quiet-hours', 'off', '--json'], env).json;
    expect(off.quiet_hours).toBeNull();
    expect(off.quiet_hours_effect).toBe('none: every alert is called at once');
    const help = runCli(['account', 'set', '--help'], env).stdout;
    expect(help).toMatch(/--quiet-hours/);
    expect(help).toMatch(/mon-fri 22:00-07:00/);
    expect(help).toMatch(/--timezone/);
    expect(help).toMatch(/--quiet-mode/);
  });

  it('held alerts waiting for two ends (quiet hours changed while some were held): held_until the soonest, held_ends each with its count (#52)', () => {
    const a = create('--quiet-hours', 'daily 17:30-20:00').json;
    const db = new Database(path.join(env.RINGHOOK_DATA_DIR!, 'ringhook.db'));
    const at1856 = Date.parse('2030-12-07T18:56:00Z');
    const at2000 = Date.parse('2030-12-07T20:00:00Z');
    const insert = db.prepare(
      `INSERT INTO calls (call_id, user_id, kind, accepted, status, message, received_at, updated_at, held_until)
       VALUES (?, ?, 'alert', 1, 'held', 'm', 1, 1, ?)`,
    );
    insert.run('a'.repeat(32), a.user_id, at2000);
    insert.run('b'.repeat(32), a.user_id, at1856);
    insert.run('c'.repeat(32), a.user_id, at1856);
    db.close();
    const shown = runCli(['account', 'show', a.user_id, '--json'], env).json;
    expect(shown).toMatchObject({
      held_alerts: 3,
      held_until: '2030-12-07T18:56:00.000Z',
      held_ends: [
        { until: '2030-12-07T18:56:00.000Z', alerts: 2 },
        { until: '2030-12-07T20:00:00.000Z', alerts: 1 },
      ],
    });
    expect(runCli(['account', 'show', a.user_id], env).stdout).toMatch(
      /held_ends: +2 until 2030-12-07T18:56:00.000Z, 1 until 2030-12-07T20:00:00.000Z/,
    );
  });

  it('language, voice and intro: English by default, set at create and with set, shown, refused with the offered list and nothing changed', () => {
    const a = create().json;
    expect(a).toMatchObject({ language: 'en', voice: 'slt', intro: 'Alert from ringhook.' });
    const de = create('--language', 'de', '--intro', 'Kursalarm.').json;
    expect(de).toMatchObject({ language: 'de', voice: 'espeak-ng', intro: 'Kursalarm.' });

    const hts = runCli(['account', 'set', a.user_id, '--voice', 'slt-hts', '--json'], env);
    expect(hts.code, hts.stderr).toBe(0);
    expect(hts.json).toMatchObject({ language: 'en', voice: 'slt-hts' });
    // Another language: a voice that cannot speak it gives way to the language's own.
    const german = runCli(['account', 'set', a.user_id, '--language', 'de', '--json'], env).json;
    expect(german).toMatchObject({ language: 'de', voice: 'espeak-ng', intro: 'Alarm von ringhook.' });
    const shown = runCli(['account', 'show', a.user_id], env).stdout;
    expect(shown).toMatch(/language: +de/);
    expect(shown).toMatch(/voice: +espeak-ng/);
    expect(shown).toMatch(/intro: +Alarm von ringhook\./);

    const unknownLanguage = runCli(['account', 'set', a.user_id, '--language', 'klingon', '--intro', 'Qapla.'], env);
    expect(unknownLanguage.code).toBe(1);
    expect(unknownLanguage.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknownLanguage.stderr).toMatch(
      /--language: the language must be one of en, de, fr, es, it, pt, nl, pl, tr, ja, ko, zh, ru/,
    );
    const unknownVoice = runCli(['account', 'set', a.user_id, '--voice', 'kal'], env);
    expect(unknownVoice.code).toBe(1);
    expect(unknownVoice.stderr).toMatch(/--voice: the voice must be one of slt, slt-hts, espeak-ng/);
    const wrongVoice = runCli(['account', 'set', a.user_id, '--voice', 'slt'], env);
    expect(wrongVoice.code).toBe(1);
    expect(wrongVoice.stderr).toMatch(/does not speak German: offered for de: espeak-ng/);
    const longIntro = runCli(['account', 'set', a.user_id, '--intro', 'x'.repeat(61)], env);
    expect(longIntro.code).toBe(1);
    expect(longIntro.stderr).toMatch(/--intro: the intro must be at most 60 characters/);
    expect(runCli(['account', 'show', a.user_id, '--json'], env).json).toMatchObject({
      language: 'de',
      voice: 'espeak-ng',
      intro: 'Alarm von ringhook.',
    });

    const badCreate = runCli(
      ['account', 'create', '--phone', '+14155550198', '--language', 'en', '--voice', 'robot'],
      env,
    );
    expect(badCreate.code).toBe(1);
    expect(
      runCli(['account', 'list', '--json'], env).json.some((x: { phone: string }) => x.phone === '+14155550198'),
    ).toBe(false);

    // An intro of its own, then back to the language's.
    expect(runCli(['account', 'set', a.user_id, '--intro', 'Desk alert.', '--json'], env).json.intro).toBe(
      'Desk alert.',
    );
    expect(runCli(['account', 'set', a.user_id, '--intro', '', '--json'], env).json.intro).toBe('Alarm von ringhook.');
  });

  it("show says which number to save in the phone's contacts, or that none is set", () => {
    const a = create().json;
    const withCallerId = runCli(['account', 'show', a.user_id], { ...env, RINGHOOK_CALLER_ID: '+14155550100' });
    expect(withCallerId.stdout).toMatch(/caller_id: +\+14155550100/);
    expect(withCallerId.stderr).toMatch(/Save \+14155550100 in the phone's contacts .*Do Not Disturb/);
    expect(
      runCli(['account', 'show', a.user_id, '--json'], { ...env, RINGHOOK_CALLER_ID: '+14155550100' }).json.caller_id,
    ).toBe('+14155550100');
    const without = runCli(['account', 'show', a.user_id], env);
    expect(without.stderr).toMatch(/No caller id is set \(RINGHOOK_CALLER_ID\)/);
  });

  it('says what a user_id looks like when given something else', () => {
    const res = runCli(['account', 'show', 'nope'], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/"nope" is not a user_id/);
  });

  it('reports a bad configuration with the variable and how to fix it', () => {
    const res = runCli(['account', 'list'], { ...env, RINGHOOK_PORT: 'eighty', RINGHOOK_TRUST_PROXY: '1.2.3.4/99' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/RINGHOOK_PORT/);
    expect(res.stderr).toMatch(/"eighty"/);
  });

  it('a data dir that is a file is one line naming RINGHOOK_DATA_DIR, not a system error', () => {
    const file = path.join(makeDataDir(), 'not-a-folder');
    fs.writeFileSync(file, '');
    const res = runCli(['account', 'create', '--phone', '+14155550123'], { ...env, RINGHOOK_DATA_DIR: file });
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `ringhook: RINGHOOK_DATA_DIR (${file}) cannot be used: ENOTDIR on ${file}/api-keys.secret; a file stands where a folder should be\n`,
    );
    // A command that only reads says so before it opens anything.
    const list = runCli(['account', 'list'], { ...env, RINGHOOK_DATA_DIR: file });
    expect(list.code).toBe(1);
    expect(list.stderr).toBe(
      `ringhook: the data dir ${file} (from RINGHOOK_DATA_DIR) is a file, not a folder: set RINGHOOK_DATA_DIR to serve's data dir\n`,
    );
  });
});

describe('ringhook backup', () => {
  it('copies the database while serve takes alerts; the copy opens and holds them', async () => {
    const dataDir = makeDataDir();
    const t = await startTestService({ RINGHOOK_DATA_DIR: dataDir });
    try {
      const a = runCli(['account', 'create', '--phone', '+14155550123', '--plan', 'premium', '--json'], {
        RINGHOOK_DATA_DIR: dataDir,
      }).json;
      for (let i = 0; i < 5; i++)
        expect(
          (await t.post(`/webhook/${a.user_id}/${a.api_key}`, `alert ${i}`, { 'content-type': 'text/plain' })).status,
        ).toBe(200);
      const target = path.join(makeDataDir(), 'copy.db');
      const res = runCli(['backup', target, '--json'], { RINGHOOK_DATA_DIR: dataDir });
      expect(res.code, res.stderr).toBe(0);
      expect(res.json.file).toBe(target);
      expect(fs.statSync(target).mode & 0o777).toBe(0o600);
      const copy = new Database(target, { readonly: true });
      expect(
        (copy.prepare('SELECT count(*) AS n FROM calls WHERE user_id = ?').get(a.user_id) as { n: number }).n,
      ).toBe(5);
      copy.close();
      expect(runCli(['backup', target], { RINGHOOK_DATA_DIR: dataDir }).stderr).toMatch(
        /exists: choose a new file, or add --force/,
      );
      expect(runCli(['backup', target, '--force'], { RINGHOOK_DATA_DIR: dataDir }).code).toBe(0);
    } finally {
      await t.stop();
    }
  });
});

describe('working beside a running serve', () => {
  it('regenerate from the CLI makes the old URL answer 401 at once; calls shows the history', async () => {
    const dataDir = makeDataDir();
    const t = await startTestService({ RINGHOOK_DATA_DIR: dataDir });
    try {
      const cliEnv = { RINGHOOK_DATA_DIR: dataDir };
      const a = runCli(['account', 'create', '--phone', '+14155550123', '--plan', 'premium', '--json'], cliEnv).json;
      const oldPath = `/webhook/${a.user_id}/${a.api_key}`;
      const body = JSON.stringify({ message: 'AAPL up', ticker: 'AAPL', price: 187.2, exchange: 'NASDAQ' });
      const accepted = await t.post(oldPath, body, { 'content-type': 'application/json' });
      expect(accepted.status).toBe(200);

      const calls = runCli(['calls', '--account', a.user_id, '--json'], cliEnv).json;
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({
        call_id: accepted.json.call_id,
        status: 'queued',
        message: 'AAPL up',
        ticker: 'AAPL',
        price: 187.2,
        extra: { exchange: 'NASDAQ' },
      });
      expect(runCli(['calls'], cliEnv).stdout).toContain(accepted.json.call_id);
      expect(runCli(['calls', '--limit', '0'], cliEnv).stderr).toMatch(/--limit: must be at least 1/);

      const b = runCli(['account', 'regenerate', a.user_id, '--json'], cliEnv).json;
      expect((await t.post(oldPath, 'old', { 'content-type': 'text/plain' })).status).toBe(401);
      expect((await t.post(`/webhook/${b.user_id}/${b.api_key}`, 'new', { 'content-type': 'text/plain' })).status).toBe(
        200,
      );
    } finally {
      await t.stop();
    }
  });
});
