// Pure parts of the dashboard: escaping, status badges and filters, the alert templates, the
// password hashing, and the session and sign-in link stores on an in-memory DB.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseAlertBody } from '../../src/core/webhook/payload.js';
import { migrate } from '../../src/store/sqlite/connect.js';
import { SqliteAccountStore } from '../../src/store/sqlite/accounts.js';
import { testSecrets } from '../helpers/secrets.js';
import { SqliteCallStore } from '../../src/store/sqlite/calls.js';
import type { CallRecord } from '../../src/core/records.js';
import { SqliteOwnerAuthStore } from '../../src/store/sqlite/owner-auth.js';
import { LOGIN_LINK_TTL_MS } from '../../src/core/records.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../src/store/password-hash.js';
import { SqliteSessionStore } from '../../src/store/sqlite/sessions.js';
import { SESSION_IDLE_MS, SESSION_MAX_AGE_MS } from '../../src/core/records.js';
import { noticeFromQuery } from '../../src/http/dashboard/notices.js';
import { fromOurOrigin } from '../../src/http/dashboard/forms.js';
import { escapeHtml, html } from '../../src/http/dashboard/html.js';
import { callItem } from '../../src/http/dashboard/pages/history.js';
import { detectionCauseWords, detectionVerdictWords } from '../../src/http/dashboard/format.js';
import { timelineSteps } from '../../src/http/dashboard/timeline.js';
import { reasonText } from '../../src/core/reasons.js';
import {
  JSON_TEMPLATE,
  type OverviewModel,
  overviewBody,
  PLAIN_TEMPLATE,
} from '../../src/http/dashboard/pages/overview.js';
import { FILTERS, filterStatuses, statusInfo, STATUSES } from '../../src/http/dashboard/status.js';
import { createAccount } from '../helpers/accounts.js';
import { PLAN_LIMITS } from '../../src/core/webhook/limits.js';
import { ANY_SOURCE } from '../../src/core/webhook/webhook-sources.js';

/** A history entry with nothing recorded yet but what the test gives. */
function historyEntry(fields: Partial<CallRecord>): CallRecord {
  const none = {
    ticker: null,
    price: null,
    action: null,
    strategy: null,
    alertTimestamp: null,
    error: null,
    reasonDetail: null,
    phone: null,
    dialedAt: null,
    answeredAt: null,
  };
  const noCall = {
    endedAt: null,
    ringMs: null,
    talkMs: null,
    hangupCause: null,
    hangupCauseText: null,
    sipCode: null,
    carriedBy: null,
    amdStatus: null,
    amdCause: null,
    trunk: null,
    heldUntil: null,
  };
  const noSms = { smsStatus: null, smsMessageId: null, smsParts: null, smsAt: null, smsError: null };
  return {
    id: 1,
    callId: 'call_x',
    userId: 'u',
    kind: 'alert',
    accepted: true,
    status: 'queued',
    message: 'm',
    messageTruncated: false,
    extra: {},
    receivedAt: 0,
    updatedAt: 0,
    ...none,
    ...noCall,
    ...noSms,
    ...fields,
  };
}

describe('html', () => {
  it('escapes every interpolated string, attribute quotes included', () => {
    const evil = `<script>alert(1)</script>"'&`;
    expect(html`<p title="${evil}">${evil}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;">&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</p>',
    );
    expect(escapeHtml('a&b')).toBe('a&amp;b');
  });

  it('keeps nested markup made by html and drops null, undefined and booleans', () => {
    expect(html`<ul>${['<a>', html`<li>x</li>`]}${null}${undefined}${false}</ul>`.value).toBe(
      '<ul>&lt;a&gt;<li>x</li></ul>',
    );
  });

  it('a history entry says which call carried it, who answered and which trunk it went through', () => {
    const entry = historyEntry({
      callId: 'call_b',
      status: 'voicemail',
      carriedBy: 'call_a',
      amdStatus: 'MACHINE',
      amdCause: 'INITIALSILENCE-2500-2500',
      trunk: 'trunk2',
    });
    const text = callItem(entry)
      .value.replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ');
    expect(text).toContain('Spoken in the call of alert call_a, with the alerts that waited for the line');
    expect(text).toContain('Answered by an answering machine: silence at the start (2.5 s)');
    expect(text).not.toContain('INITIALSILENCE');
    expect(text).toContain('Trunk the backup trunk (the first did not take the call)');
    const plainRow = callItem({ ...entry, carriedBy: null, amdStatus: null, amdCause: null, trunk: 'trunk' }).value;
    expect(plainRow).not.toMatch(/Spoken in|Answered by|Trunk/);
  });

  it('a history entry of an alert rung again (#54) shows each earlier call, and the next one while it waits', () => {
    const words = (markup: string) => markup.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    const first = Date.parse('2026-12-06T20:00:00Z');
    const waiting = historyEntry({
      status: 'queued',
      attempt: 2,
      retryAt: first + 60_000,
      earlierAttempts: [{ at: first, outcome: 'no_answer' }],
    });
    expect(words(callItem(waiting).value)).toMatch(
      /Earlier calls 1\. 2026-12-06 20:00:00[^;]*: No answer; called again at 2026-12-06 20:01:00/,
    );
    const done = { ...waiting, status: 'acknowledged', retryAt: null };
    expect(words(callItem(done).value)).toMatch(/Earlier calls 1\. 2026-12-06 20:00:00[^;]*: No answer Call ID/);
    expect(callItem(historyEntry({ status: 'busy' })).value).not.toContain('Earlier calls');
    // The backup person's call (#54): the number it rang instead of the account's.
    const atBackup = { ...done, dialTo: '+14155550777' };
    expect(words(callItem(atBackup).value)).toMatch(
      /Backup person called at \+14155550777, every call before it missed/,
    );
    expect(callItem(historyEntry({ status: 'busy' })).value).not.toContain('Backup person');
  });

  it("the overview says what happens to a missed call (ring again, #54) beside ringhook's number", () => {
    const db = new Database(':memory:');
    migrate(db);
    const account = createAccount(new SqliteAccountStore(db, testSecrets()), { ringAgain: 1 });
    const model = {
      viewer: { userId: account.userId, name: '', admin: false, csrfToken: 't' },
      account,
      webhookUrl: null,
      usage: { used: 0, resetsAt: 0 },
      limits: PLAN_LIMITS.free,
      testCallsAvailable: false,
      sampleAvailable: false,
      callerId: '+14155550100',
      sms: { state: 'none' },
      readOnly: true,
      now: 0,
      serverSources: ANY_SOURCE,
    } as unknown as OverviewModel;
    const words = (markup: string) => markup.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(words(overviewBody(model).value)).toContain(
      'A missed call is tried again once, 60 s after the start of the one before, from the same number',
    );
    const plain = { ...model, account: { ...account, ringAgain: 0 }, callerId: undefined };
    expect(words(overviewBody(plain).value)).toContain('A missed call is not tried again');
    // The backup person (#54): said as it will happen, pending or verified.
    const pending = { ...model, account: { ...account, backupPhone: '+14155550777', backupPhoneStatus: 'pending' } };
    expect(words(overviewBody(pending as OverviewModel).value)).toContain(
      'The backup person +1 415 555 0777 is not called yet: they have not pressed 1 in their verification call (pending).',
    );
    const verified = { ...model, account: { ...account, backupPhone: '+14155550777', backupPhoneStatus: 'verified' } };
    expect(words(overviewBody(verified as OverviewModel).value)).toContain(
      'Then +1 415 555 0777, the backup person, is called once',
    );
    // In the Delivery group, with the phones' own setting names.
    const delivery = overviewBody(model).value.split('id="delivery"')[1]!.split('id="protection"')[0]!;
    for (const name of ['Missed calls', 'Repeated Calls', 'repeat callers', 'starred', 'Download the contact card'])
      expect(delivery).toContain(name);
  });

  it('a failed call says why in a sentence; the technical detail is shown to an admin only', () => {
    const entry = historyEntry({
      status: 'unreachable',
      error: reasonText('softphone_not_registered', { softphone: 'ringhook' }),
      reasonDetail: 'originate failed: ARI POST /channels/rh-call_x failed: HTTP 500 (Allocation failed)',
    });
    const words = (markup: string) => markup.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    const owner = words(callItem(entry).value);
    expect(owner).toContain(
      'Reason No phone is registered as ringhook, so nothing could ring: register a softphone app (Linphone, Zoiper) as user ringhook on this server, or set a SIP trunk to call real phones.',
    );
    expect(owner).not.toMatch(/Details|Allocation failed|ARI/);
    const admin = words(callItem(entry, { details: true }).value);
    expect(admin).toContain(
      'Details originate failed: ARI POST /channels/rh-call_x failed: HTTP 500 (Allocation failed)',
    );
    // The SMS backup: why it did not go, in words; the gateway's own words for the admin.
    const sms = historyEntry({
      status: 'busy',
      smsStatus: 'failed',
      smsError: 'gateway answered 500 (expected 200): oops',
    });
    expect(words(callItem(sms).value)).toContain(
      'SMS failed. Not sent: the SMS gateway refused it or could not be reached.',
    );
    expect(words(callItem(sms).value)).not.toContain('oops');
    expect(words(callItem(sms, { details: true }).value)).toContain(
      '(details: gateway answered 500 (expected 200): oops)',
    );
    // A call ended before the detail was kept: its hang-up cause, for the admin.
    const older = words(
      callItem(historyEntry({ status: 'busy', hangupCause: 17, hangupCauseText: 'User busy', sipCode: 486 }), {
        details: true,
      }).value,
    );
    expect(older).toContain('Details SIP 486, cause 17 (User busy)');
  });

  it('the Unconfirmed and Voicemail badges say what became of the SMS backup, never an SMS that was not sent', () => {
    const badgeText = (entry: CallRecord) => {
      const markup = callItem(entry).value;
      const title = /class="badge[^"]*" title="([^"]*)"/.exec(markup)?.[1];
      const spoken = /<span class="sr-only">: ([^<]*)<\/span>/.exec(markup)?.[1];
      expect(spoken).toBe(title);
      return title ?? '';
    };
    // No gateway on this server: the SMS line says "not sent", and so does the badge.
    const noGateway = badgeText(historyEntry({ status: 'unconfirmed', smsStatus: 'disabled' }));
    expect(noGateway).not.toContain('went out');
    expect(noGateway).toBe('Answered, but 1 was not pressed to confirm. Then no SMS was sent.');
    expect(badgeText(historyEntry({ status: 'voicemail', smsStatus: 'failed' }))).toBe(
      'A voicemail or answering machine took the call; the message was left on it. Then the SMS backup failed.',
    );
    expect(badgeText(historyEntry({ status: 'unconfirmed', smsStatus: 'sent' }))).toContain(
      'Then the SMS backup went out.',
    );
    // Not decided yet: nothing said about it.
    expect(badgeText(historyEntry({ status: 'unconfirmed', smsStatus: null }))).toBe(
      'Answered, but 1 was not pressed to confirm.',
    );
  });

  it('renders a history entry with attacker-controlled fields as text', () => {
    const markup = callItem(
      historyEntry({
        callId: 'call_abc',
        status: '<b>x</b>',
        message: '<img src=x onerror=alert(1)>',
        ticker: '<i>',
        price: 1.5,
        extra: { '<k>': '<v>', nested: { a: '<z>' } },
      }),
    ).value;
    expect(markup).not.toMatch(/<(img|i|b|k|v|z)[\s>]/);
    expect(markup).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(markup).toContain('{&quot;a&quot;:&quot;&lt;z&gt;&quot;}');
  });
});

describe('statuses', () => {
  it('names every call and rejection status, with a tone', () => {
    for (const s of [
      'completed',
      'acknowledged',
      'busy',
      'no_answer',
      'unreachable',
      'rejected',
      'failed',
      'interrupted',
      'expired',
      'queued',
      'dialing',
      'ringing',
      'answered',
      'rate_limited',
      'limit_exceeded',
      'invalid_payload',
      'suspended',
    ]) {
      expect(STATUSES[s], s).toBeDefined();
    }
    expect(statusInfo('no_answer').label).toBe('No answer');
    expect(statusInfo('something_new')).toMatchObject({ label: 'Something new', tone: 'muted' });
  });

  it('every status a history row can have is a filter, named with a capital and explained in a sentence', () => {
    const values = FILTERS.map((f) => f.value);
    for (const s of ['duplicate', 'held', 'source_not_allowed', 'sms_instead', 'rate_limited'])
      expect(values).toContain(s);
    for (const [status, info] of Object.entries(STATUSES)) {
      expect(info.label, status).toMatch(/^[A-Z][a-zA-Z]*( [a-z]+)*$/);
      expect(info.explain, status).toMatch(/^[A-Z].*\.$/);
    }
  });

  it('filters: in progress groups the four live statuses; unknown filters mean all', () => {
    expect(filterStatuses('in_progress')).toEqual(['queued', 'dialing', 'ringing', 'answered']);
    expect(filterStatuses('busy')).toEqual(['busy']);
    expect(filterStatuses('nope')).toEqual([]);
    expect(filterStatuses(undefined)).toEqual([]);
    expect(new Set(FILTERS.map((f) => f.value)).size).toBe(FILTERS.length);
  });
});

describe('detection and timeline in words', () => {
  it('says why detection decided without its code', () => {
    expect(detectionCauseWords('INITIALSILENCE-5000')).toBe('silence at the start (5 s)');
    expect(detectionCauseWords('INITIALSILENCE-2500-2500')).toBe('silence at the start (2.5 s)');
    expect(detectionCauseWords('LONGGREETING-6200-1500')).toBe('a long greeting (6.2 s)');
    expect(detectionCauseWords('MAXWORDS-4-3')).toBe('many words in a row (4)');
    expect(detectionCauseWords('HUMAN-2-800')).toBe('a short greeting, then silence');
    expect(detectionCauseWords('TOOLONG-5000')).toBe('no decision in time (5 s)');
    expect(detectionCauseWords('WHATEVER-1')).toBeNull();
    expect(detectionVerdictWords('NOTSURE', 'INITIALSILENCE-5000')).toBe(
      'not sure: person or machine: silence at the start (5 s)',
    );
    expect(detectionVerdictWords('HUMAN', 'NEWCODE-3')).toBe('a person');
  });

  it("a call's timeline: its steps in words, each key with its time; the technical notes for the admin only", () => {
    const at = Date.parse('2026-11-22T14:00:00Z');
    const events = [
      { at: at + 1000, event: 'dialing', detail: 'trunk: SIP/trunk' },
      { at: at + 2000, event: 'ringing', detail: null },
      { at: at + 5000, event: 'answered', detail: null },
      { at: at + 5100, event: 'talk', detail: '1 phrase, 800 ms' },
      { at: at + 9000, event: 'amd', detail: 'MACHINE LONGGREETING-6200-1500' },
      { at: at + 9500, event: 'digit', detail: '1: ignored (a machine)' },
      { at: at + 20000, event: 'voicemail', detail: null },
      { at: at + 21000, event: 'sms_sent', detail: 'msg-77' },
    ];
    const owner = timelineSteps({ receivedAt: at, kind: 'alert' }, events);
    expect(owner.map((s) => s.text)).toEqual([
      'Alert received',
      'Dialing',
      'Ringing',
      'Answered',
      'Detection: an answering machine: a long greeting (6.2 s)',
      'pressed: ignored (a machine)',
      'Voicemail',
      'SMS sent',
    ]);
    expect(owner[5]).toMatchObject({ key: '1', at: at + 9500 });
    const admin = timelineSteps({ receivedAt: at, kind: 'alert' }, events, true).map((s) => s.text);
    expect(admin).toContain('talk: 1 phrase, 800 ms');
    expect(admin).toContain('Dialing (trunk: SIP/trunk)');
    expect(admin).toContain('SMS sent (msg-77)');
  });
});

describe('alert templates', () => {
  const fill = (t: string) =>
    t
      .replaceAll('{{ticker}}', 'BTCUSD')
      .replaceAll('{{close}}', '100012.5')
      .replaceAll('{{time}}', '2026-11-22T14:00:00Z');

  it('the JSON template, once TradingView filled it in, is accepted with every field', () => {
    const parsed = parseAlertBody(new TextEncoder().encode(fill(JSON_TEMPLATE)), 'application/json');
    expect(parsed).toMatchObject({
      ok: true,
      alert: {
        form: 'json',
        fields: { ticker: 'BTCUSD', price: 100012.5, action: 'buy', timestamp: '2026-11-22T14:00:00Z' },
        extra: {},
      },
    });
  });

  it('both messages stay within the advised 50 to 100 characters once filled in', () => {
    const spoken = [fill(PLAIN_TEMPLATE), (JSON.parse(fill(JSON_TEMPLATE)) as { message: string }).message];
    for (const text of spoken) expect(text.length, text).toBeLessThanOrEqual(100);
    expect(fill(PLAIN_TEMPLATE).length).toBeGreaterThanOrEqual(50);
  });
});

describe('origin check', () => {
  const own = new Set(['https://alerts.example.com']);
  const req = (headers: Record<string, string>) =>
    new Request('https://alerts.example.com/x', { method: 'POST', headers });
  it('accepts our origin, no origin, and "null" (no-referrer); refuses others and cross-site fetches', () => {
    expect(fromOurOrigin(req({ origin: 'https://alerts.example.com', 'sec-fetch-site': 'same-origin' }), own)).toBe(
      true,
    );
    expect(fromOurOrigin(req({}), own)).toBe(true);
    expect(fromOurOrigin(req({ origin: 'null', 'sec-fetch-site': 'same-origin' }), own)).toBe(true);
    expect(fromOurOrigin(req({ origin: 'https://evil.example' }), own)).toBe(false);
    expect(fromOurOrigin(req({ origin: 'null', 'sec-fetch-site': 'cross-site' }), own)).toBe(false);
    expect(fromOurOrigin(req({ 'sec-fetch-site': 'same-site' }), own)).toBe(false);
  });
});

describe('passwords', () => {
  it('hash with a random salt, verify, and fail equally for a missing hash', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('anything', undefined)).toBe(false);
    expect(await verifyPassword('anything', 'garbage')).toBe(false);
    expect(await verifyPassword('café au lait!', await hashPassword('cafe\u0301 au lait!'))).toBe(true);
  });

  it('rules', () => {
    expect(passwordProblem('short')).toMatch(/at least 10/);
    expect(passwordProblem('x'.repeat(201))).toMatch(/at most 200/);
    expect(passwordProblem('ten chars!')).toBeUndefined();
  });
});

describe('stores', () => {
  function setup() {
    let now = Date.parse('2026-11-22T14:00:00Z');
    const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
    const db = new Database(':memory:');
    migrate(db);
    const accounts = new SqliteAccountStore(db, testSecrets(), clock.now);
    const account = createAccount(accounts);
    return { db, clock, account, accounts };
  }

  it('sessions expire after a day idle and a week at most; only the hash is stored', () => {
    const { db, clock, account } = setup();
    const sessions = new SqliteSessionStore(db, clock.now);
    const { token } = sessions.create(account.userId);
    expect(JSON.stringify(db.prepare('SELECT * FROM sessions').all())).not.toContain(token);
    clock.advance(SESSION_IDLE_MS - 1000);
    expect(sessions.get(token)?.userId).toBe(account.userId);
    for (let elapsed = SESSION_IDLE_MS; elapsed < SESSION_MAX_AGE_MS; elapsed += SESSION_IDLE_MS / 2) {
      clock.advance(SESSION_IDLE_MS / 2);
      if (elapsed + SESSION_IDLE_MS / 2 < SESSION_MAX_AGE_MS) expect(sessions.get(token)).toBeDefined();
    }
    clock.advance(SESSION_IDLE_MS);
    expect(sessions.get(token)).toBeUndefined();
    const second = sessions.create(account.userId).token;
    clock.advance(SESSION_IDLE_MS + 1);
    expect(sessions.get(second)).toBeUndefined();
    expect(sessions.get('not a token')).toBeUndefined();
  });

  it('a sign-in link works once, within 15 minutes', () => {
    const { db, clock, account } = setup();
    const auth = new SqliteOwnerAuthStore(db, clock.now);
    const a = auth.createLoginLink(account.userId);
    expect(auth.useLoginLink(a.token)).toBe(account.userId);
    expect(auth.useLoginLink(a.token)).toBeUndefined();
    const b = auth.createLoginLink(account.userId);
    clock.advance(LOGIN_LINK_TTL_MS);
    expect(auth.useLoginLink(b.token)).toBeUndefined();
  });

  it('deleting an account deletes its sessions, links and credentials', async () => {
    const { db, clock, account, accounts } = setup();
    const auth = new SqliteOwnerAuthStore(db, clock.now);
    await auth.setPassword(account.userId, 'correct horse battery');
    new SqliteSessionStore(db, clock.now).create(account.userId);
    auth.createLoginLink(account.userId);
    accounts.delete(account.userId);
    for (const table of ['owner_auth', 'sessions', 'login_links']) {
      expect(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()).toEqual({ n: 0 });
    }
  });

  it("the history pages by cursor, filters by status and never returns another account's call", () => {
    const { db, clock, account, accounts } = setup();
    const calls = new SqliteCallStore(db, clock.now);
    const other = createAccount(accounts, { phone: '+14155550124' });
    const alert = (message: string) => ({
      form: 'text' as const,
      message,
      truncated: false,
      originalLength: message.length,
      fields: {},
      extra: {},
    });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      clock.advance(10_000);
      const r = calls.acceptNow(account.userId, 'premium', alert(`m${i}`));
      if (r.accepted) ids.push(r.callId);
    }
    db.prepare("UPDATE calls SET status = 'busy' WHERE call_id IN (?, ?)").run(ids[1], ids[4]);
    const theirs = calls.acceptNow(other.userId, 'premium', alert('theirs'));
    const history = calls;
    const first = history.page(account.userId, { limit: 3 });
    expect(first.entries.map((e) => e.message)).toEqual(['m6', 'm5', 'm4']);
    const second = history.page(account.userId, { limit: 3, before: first.next! });
    expect(second.entries.map((e) => e.message)).toEqual(['m3', 'm2', 'm1']);
    const last = history.page(account.userId, { limit: 3, before: second.next! });
    expect(last).toMatchObject({ entries: [{ message: 'm0' }], next: null });
    expect(history.page(account.userId, { limit: 10, statuses: ['busy'] }).entries.map((e) => e.message)).toEqual([
      'm4',
      'm1',
    ]);
    expect(theirs.accepted && history.getForAccount(account.userId, theirs.callId)).toBeUndefined();
    expect(theirs.accepted && history.getForAccount(other.userId, theirs.callId)?.message).toBe('theirs');
  });
});

describe('noticeFromQuery', () => {
  const at = (search: string) => noticeFromQuery(new URL(`https://x.example/${search}`));
  it('names a fixed notice by code, fills in the wait, and shows nothing for anything else', () => {
    expect(at('?notice=confirm-off')).toEqual({
      tone: 'ok',
      text: 'Confirmation no longer required: an answered call whose message played counts as heard.',
    });
    expect(at('?notice=test-call-limited&retry=42')).toEqual({
      tone: 'error',
      text: 'Too many test calls. Try again in 42 seconds.',
    });
    expect(at('?notice=test-call-limited&retry=<b>')?.text).toBe('Too many test calls. Try again in 60 seconds.');
    expect(at('?notice=<script>')).toBeUndefined();
    expect(at('?notice=toString')).toBeUndefined();
    expect(at('')).toBeUndefined();
  });
});
