// The overview: webhook URL with a copy button, ready-to-paste TradingView messages, plan and usage,
// phone, SMS backup and confirmation switches, quiet hours, duplicates and sources, the keys during a call, the call's language, voice and intro, "Hear it" (any
// message as the calls say it), the contact card, test call and the way to regenerate the URL.
import type { Account } from '../../../core/account.js';
import { introFor, LANGUAGES, MAX_INTRO, VOICES } from '../../../core/speech/languages.js';
import { LANGUAGE_CODES, VOICE_IDS } from '../../../core/speech/language-types.js';
import type { PlanLimits } from '../../../core/webhook/limits.js';
import type { SourceRule } from '../../../core/webhook/webhook-sources.js';
import { smsBackupWarning, type SmsGatewayState } from '../../../core/delivery/sms-truth.js';
import { formatTime, plural } from '../format.js';
import { html, type HtmlValue, type SafeHtml } from '../html.js';
import { type FailedForm, formErrorNotice, shown } from '../form-error.js';
import { csrfField, page, type Notice, type Viewer } from '../layout.js';
import { defaultHearView, hearSection, type HearView } from './hear.js';
import { quietHoursSection } from './quiet-hours.js';
import { describeMissedCall } from '../../../core/calls/backup-person.js';
import { decisionKeysSection, ownerControlsSection } from './owner-controls.js';
import { callbacksSection, type CallbacksView } from './callbacks.js';

export interface OverviewModel {
  viewer: Viewer;
  account: Account;
  /** null in the admin's read-only view: another account's secret is not shown. */
  webhookUrl: string | null;
  usage: { used: number; resetsAt: number };
  limits: PlanLimits;
  testCallsAvailable: boolean;
  /** The "hear it" sample can be made (telephony is on). */
  sampleAvailable: boolean;
  /** "Hear it" after the owner asked for a message (the sample alert otherwise). */
  hear?: HearView | undefined;
  /** The number calls come from, when the server has a dialable one: offered as a contact card. */
  callerId: string | undefined;
  /** The SMS gateway as the server knows it: what the SMS backup switch can do here. */
  sms: SmsGatewayState;
  readOnly: boolean;
  /** The instant the page is made: whether quiet hours are on now. */
  now: number;
  /** The server's allowed alert sources (RINGHOOK_WEBHOOK_SOURCES), said on the duplicates and sources card. */
  serverSources: SourceRule;
  /** Status callbacks: the settings and the last deliveries. */
  callbacks?: CallbacksView | undefined;
  notice?: Notice | undefined;
  /** A form that was not saved: its error and what was typed, shown in its own card. */
  formError?: FailedForm | undefined;
}

export const PLAIN_TEMPLATE = '{{ticker}} alert: price {{close}} at {{time}}. Check your chart.';

export const JSON_TEMPLATE = JSON.stringify(
  {
    message: '{{ticker}} crossed {{close}}. Check your chart.',
    ticker: '{{ticker}}',
    price: '{{close}}',
    action: 'buy',
    strategy: 'My strategy',
    timestamp: '{{time}}',
  },
  null,
  2,
);

type FieldShape = 'line' | 'wrapped' | 'block';

// 'wrapped': one long value (the URL) shown whole on any screen width.
function copyField(
  id: string,
  label: string,
  value: string,
  shape: FieldShape,
  hint: SafeHtml | string = '',
): SafeHtml {
  const field =
    shape === 'line'
      ? html`<input type="text" class="mono" id="${id}" readonly value="${value}" spellcheck="false" aria-describedby="${id}-hint">`
      : html`<textarea id="${id}" class="${shape}" readonly rows="${shape === 'wrapped' ? 2 : value.split('\n').length}" spellcheck="false" aria-describedby="${id}-hint">${value}</textarea>`;
  return html`<label for="${id}">${label}</label>
<div class="row">${field}<button type="button" class="secondary" data-copy="${id}" data-copy-status="${id}-status">Copy</button></div>
<p class="hint" id="${id}-hint">${hint}</p>
<p class="sr-only" id="${id}-status" role="status" aria-live="polite"></p>`;
}

function webhookSection(model: OverviewModel): SafeHtml {
  if (model.webhookUrl === null) {
    return html`<section class="card"><h3>Webhook URL</h3><p>Hidden: the URL is the account owner's secret.</p></section>`;
  }
  return html`<section class="card lead-url" aria-labelledby="webhook-title">
  <h3 id="webhook-title">Webhook URL</h3>
  ${copyField(
    'webhook-url',
    "Paste this into the alert's Webhook URL field",
    model.webhookUrl,
    'wrapped',
    model.readOnly
      ? 'Keep it secret: anyone who has it can make your phone ring.'
      : html`Keep it secret: anyone who has it can make your phone ring. If it leaked: <a href="/dashboard/regenerate">Regenerate webhook URL…</a> (the old one stops working at once).`,
  )}
  ${actionsSection(model)}
</section>`;
}

function templatesSection(model: OverviewModel): SafeHtml {
  if (model.webhookUrl === null) return html``;
  return html`<section class="card lead-message" aria-labelledby="templates-title">
  <h3 id="templates-title">Alert message</h3>
  <p>Paste one of these into the alert's <strong>Message</strong> box. TradingView fills in <code>{{ticker}}</code>,
  <code>{{close}}</code> and <code>{{time}}</code>; the <em>message</em> is what is spoken.</p>
  ${copyField('template-text', 'Plain text (the whole text is spoken)', PLAIN_TEMPLATE, 'block')}
  ${copyField(
    'template-json',
    'JSON (only "message" is spoken; ticker, price, action, strategy and time are kept in the history)',
    JSON_TEMPLATE,
    'block',
  )}
  <ul class="hint">
    <li>Keep the message between 50 and 100 characters: short enough to hear at once, long enough to say what happened. Longer than 500 characters is cut.</li>
    <li>Set the alert to trigger <strong>once per bar close</strong> (or only once), not on every tick, so one move makes one call.</li>
  </ul>
</section>`;
}

function planSection(model: OverviewModel): SafeHtml {
  const { account, usage, limits } = model;
  const monthly = limits.monthly === null ? html`${usage.used} (unlimited)` : html`${usage.used} of ${limits.monthly}`;
  return html`<section class="card" aria-labelledby="plan-title">
  <h3 id="plan-title">Plan and usage</h3>
  <dl class="facts pairs">
    <dt>Plan</dt><dd>${account.plan === 'premium' ? 'Premium' : 'Free'}</dd>
    <dt>Calls this month</dt><dd id="usage">${monthly}</dd>
    <dt>Resets</dt><dd><time datetime="${new Date(usage.resetsAt).toISOString()}">${formatTime(usage.resetsAt)}</time></dd>
    <dt>Per-minute limit</dt><dd>${plural(limits.perMinute, 'call')} a minute</dd>
    <dt>Phone number</dt><dd>${account.phone}</dd>
    <dt>Account status</dt><dd>${account.status === 'active' ? 'Active' : 'Suspended: alerts are refused'}</dd>
  </dl>
</section>`;
}

interface Switch {
  /** Ids and names: `<id>-title`, `<id>-state`, the form posts `field` (on|off) to `action`. */
  id: string;
  title: string;
  on: boolean;
  /** What on and off mean, in a sentence each. */
  meaning: { on: string; off: string };
  /** What stands in the way of the promise on this server, shown as a warning under the state. */
  warning?: string | null | undefined;
  action: string;
  field: string;
  /** The button's words to turn it on, and off. */
  button: { on: string; off: string };
}

/** An account setting that is on or off: its state in words and, unless read-only, the form that flips it. */
function switchSection(model: OverviewModel, s: Switch): SafeHtml {
  const warning = s.warning ? html`<p class="notice error" id="${s.id}-warning">${s.warning}</p>` : '';
  const state = html`<p>${s.title} is <span class="switch-state" id="${s.id}-state">${s.on ? 'on' : 'off'}</span>.
  ${s.on ? s.meaning.on : s.meaning.off}</p>${warning}`;
  if (model.readOnly) return html`<section class="card"><h3>${s.title}</h3>${state}</section>`;
  return html`<section class="card switch" aria-labelledby="${s.id}-title">
  <h3 id="${s.id}-title">${s.title}</h3>
  ${state}
  <form method="post" action="${s.action}">
    ${csrfField(model.viewer.csrfToken)}
    <input type="hidden" name="${s.field}" value="${s.on ? 'off' : 'on'}">
    <button type="submit" class="secondary">${s.on ? s.button.off : s.button.on}</button>
  </form>
</section>`;
}

/** Why an SMS will not (or may not) follow a missed call on this server; null when nothing stands in the way. */
function smsObstacle(model: OverviewModel): string | null {
  const warning = smsBackupWarning(model.sms, 'owner');
  return warning === null ? null : warning.charAt(0).toUpperCase() + warning.slice(1);
}

function smsSection(model: OverviewModel): SafeHtml {
  const obstacle = smsObstacle(model);
  const cannot = model.sms.state === 'none' || model.sms.state === 'no_telephony';
  return switchSection(model, {
    id: 'sms',
    title: 'SMS backup',
    on: model.account.smsBackup,
    meaning: {
      // The promise only where the server can keep it.
      on: cannot
        ? 'It is meant to send the message by SMS when a call is not answered, busy or unreachable, but:'
        : 'When a call is not answered, busy or unreachable, the message is sent by SMS.',
      off: 'A missed call is not followed by an SMS.',
    },
    warning: model.account.smsBackup || cannot ? obstacle : null,
    action: '/dashboard/sms-backup',
    field: 'sms_backup',
    button: { on: 'Turn SMS backup on', off: 'Turn SMS backup off' },
  });
}

/** An SMS follows a missed or unconfirmed call: the account has it on and nothing on the server stands in the way. */
function smsFollows(model: OverviewModel): boolean {
  return model.account.smsBackup && smsObstacle(model) === null;
}

function confirmSection(model: OverviewModel): SafeHtml {
  return switchSection(model, {
    id: 'confirm',
    title: 'Confirmation required',
    on: model.account.requireConfirm,
    meaning: {
      on: `A call counts as heard only when you press 1; an answered call without it ends unconfirmed${smsFollows(model) ? ', and the SMS backup goes out' : ''}.`,
      off: 'An answered call whose message played counts as heard, 1 pressed or not.',
    },
    action: '/dashboard/require-confirm',
    field: 'require_confirm',
    button: { on: 'Require a 1 to confirm', off: 'Stop requiring a 1' },
  });
}

/** What the keys do during a call (core/calls/keypad), in the words the call says them in after the intro. */
function keysSection(model: OverviewModel): SafeHtml {
  const { keys } = LANGUAGES[model.account.language].prompts;
  return html`<section class="card" aria-labelledby="keys-title">
  <h3 id="keys-title">Keys during a call</h3>
  <dl class="facts" id="keys-list">
    <dt>1</dt><dd>confirms: the call says so and ends (acknowledged)</dd>
    <dt>2 or *</dt><dd>says the message again from its start, as often as you like</dd>
    <dt>0</dt><dd>says these keys again</dd>
  </dl>
  <p class="hint" id="keys-said">A key works at once, also while the message plays; a voicemail's keys do nothing. The call says them once, after the intro: "${keys}"</p>
</section>`;
}

function voiceSection(model: OverviewModel): SafeHtml {
  const { account } = model;
  const language = LANGUAGES[account.language];
  const facts = html`<dl class="facts inline">
    <dt>Language</dt><dd id="voice-language-now">${language.name} (${language.nativeName})</dd>
    <dt>Voice</dt><dd id="voice-voice-now">${VOICES[account.voice].label}</dd>
    <dt>Intro</dt><dd id="voice-intro-now">${introFor(account)}</dd>
  </dl>`;
  if (model.readOnly) return html`<section class="card"><h3>Language and voice</h3>${facts}</section>`;
  const failed = model.formError?.form === 'voice' ? model.formError : undefined;
  const language_ = shown(failed, 'language', account.language);
  const voice_ = shown(failed, 'voice', account.voice);
  const languages = LANGUAGE_CODES.map(
    (code) =>
      html`<option value="${code}"${code === language_ ? html` selected` : ''}>${LANGUAGES[code].name} (${LANGUAGES[code].nativeName})</option>`,
  );
  const speaks = (id: (typeof VOICE_IDS)[number]) => {
    const codes = LANGUAGE_CODES.filter((code) => LANGUAGES[code].voices.includes(id));
    return codes.length === LANGUAGE_CODES.length
      ? 'every language'
      : codes.map((code) => LANGUAGES[code].name).join(', ');
  };
  // A select shows one line, cut at a phone's width: the options carry the voice's short name, the
  // hint below says what each sounds like and speaks.
  const shortName = (id: (typeof VOICE_IDS)[number]) => VOICES[id].label.replace(/\s*\(.*$/, '');
  const voices = VOICE_IDS.map(
    (id) => html`<option value="${id}"${id === voice_ ? html` selected` : ''}>${shortName(id)}</option>`,
  );
  const voiceList = VOICE_IDS.map((id) => html`<li>${VOICES[id].label}: ${speaks(id)}</li>`);
  return html`<section class="card" aria-labelledby="voice-title">
  <h3 id="voice-title">Language and voice</h3>
  ${facts}
  ${model.testCallsAvailable ? '' : html`<p class="notice" id="voice-no-calls">This server places no calls at the moment (telephony is off): these settings apply once it does.</p>`}
  ${formErrorNotice('voice', failed)}
  <form method="post" action="/dashboard/voice">
    ${csrfField(model.viewer.csrfToken)}
    <div class="fields2"><div><label for="voice-language">Language of the call</label>
    <select id="voice-language" name="language">${languages}</select></div>
    <div><label for="voice-voice">Voice</label>
    <select id="voice-voice" name="voice" aria-describedby="voice-voice-hint"><option value="">The language's default</option>${voices}</select></div></div>
    <details class="hint" id="voice-voice-hint"><summary>Which voice speaks which language</summary><ul>${voiceList}</ul><p>A voice that does not speak the language is refused; "the language's default" always fits.</p></details>
    <label for="voice-intro">Spoken intro (before the message)</label>
    <input type="text" id="voice-intro" name="intro" maxlength="${MAX_INTRO}" value="${shown(failed, 'intro', account.intro ?? '')}" placeholder="${language.prompts.intro}" aria-describedby="voice-intro-hint">
    <p class="hint" id="voice-intro-hint">At most ${MAX_INTRO} characters. Empty: the language's own ("${language.prompts.intro}").</p>
    <button type="submit" class="secondary">Save language and voice</button>
  </form>
</section>`;
}

/**
 * Missed calls (#54): what happens to one (ring again, the backup person), said where the number to
 * let through Do Not Disturb is, with its contact card: the phones' own settings let a number through
 * only when it is saved (iOS's "Repeated Calls", Android's "repeat callers" and starred contacts).
 */
function missedCallsSection(model: OverviewModel): SafeHtml {
  const effect = html`<p id="ring-again-now">${describeMissedCall(model.account)}</p>`;
  const setBy = html`An administrator sets what happens (<span class="mono">ringhook account set --ring-again, --backup-phone</span>).`;
  if (model.callerId === undefined) {
    return html`<section class="card" aria-labelledby="contact-title"><h3 id="contact-title">Missed calls</h3>${effect}<p id="contact-none" class="hint">This server calls without a fixed number (no caller ID is set), so your alerts may come from a number that changes, which Do Not Disturb and "silence unknown callers" would silence: ask your administrator to set a caller ID, and a contact card to save will appear here. ${setBy}</p></section>`;
  }
  return html`<section class="card titled-action" aria-labelledby="contact-title">
  <h3 id="contact-title">Missed calls</h3>
  <a class="button secondary" href="/dashboard/contact.vcf" download="ringhook-alerts.vcf">Download the contact card</a>
  <div>${effect}<details class="hint" id="contact-why"><summary>Save <strong class="mono" id="caller-id">${model.callerId}</strong> to let it through Do Not Disturb</summary><p>Unsaved, Do Not Disturb and "silence unknown callers" silence it. iPhone: a second call from the same number within three minutes rings through ("Repeated Calls", under Focus). Android: Do Not Disturb lets through "repeat callers" and starred contacts, so mark the contact as a favourite (starred). ${setBy}</p></details></div>
</section>`;
}

export function testCallForm(csrfToken: string, available: boolean): SafeHtml {
  if (!available) {
    return html`<p class="notice" role="status">Test calls are not available: telephony is not configured on this server. Ask your administrator.</p>`;
  }
  return html`<div class="row"><form method="post" action="/dashboard/test-call">
    ${csrfField(csrfToken)}
    <button type="submit">Send test call</button>
  </form>
  <p class="hint">ringhook calls your phone now; the history shows the call as it goes and how it ended. Test calls do not count against the monthly allowance.</p></div>`;
}

/** The test call and the way to a new URL, under the URL they concern. */
function actionsSection(model: OverviewModel): SafeHtml {
  if (model.readOnly) return html``;
  return html`<div class="actions" aria-labelledby="test-title">
  <h4 id="test-title" class="sr-only">Test call</h4>
  ${testCallForm(model.viewer.csrfToken, model.testCallsAvailable)}
</div>`;
}

/** A group of cards under its heading: Delivery, Protection, Integrations, Account. */
function group(id: string, title: string, cards: HtmlValue): SafeHtml {
  return html`<section class="group" id="${id}" aria-labelledby="${id}-title"><h2 id="${id}-title">${title}</h2>${cards}</section>`;
}

export function overviewBody(model: OverviewModel): SafeHtml {
  const who = model.account.name || model.account.userId;
  const failed = model.formError;
  // The URL and the message at the top of each column: no gap under the shorter of the two.
  return html`<h1>${model.readOnly ? html`Account ${who} (read-only)` : 'Overview'}</h1>
<div class="columns">
<div class="column">
${webhookSection(model)}
${group(
  'delivery',
  'Delivery',
  html`${confirmSection(model)}
${smsSection(model)}
${missedCallsSection(model)}
${quietHoursSection({ viewer: model.viewer, account: model.account, sms: model.sms, readOnly: model.readOnly, now: model.now, failed: failed?.form === 'quiet' ? failed : undefined })}
${voiceSection(model)}
${model.readOnly ? '' : hearSection(model.viewer.csrfToken, model.sampleAvailable, model.hear ?? defaultHearView(model.account), model.account.language)}
${keysSection(model)}`,
)}
</div>
<div class="column">
${templatesSection(model)}
${group(
  'protection',
  'Protection',
  ownerControlsSection({
    viewer: model.viewer,
    account: model.account,
    serverSources: model.serverSources,
    readOnly: model.readOnly,
    failed: failed?.form === 'controls' ? failed : undefined,
  }),
)}
${
  model.callbacks
    ? group(
        'integrations',
        'Integrations',
        html`${callbacksSection(model.callbacks, model.viewer.csrfToken, model.readOnly, failed?.form === 'callback' ? failed : undefined)}
${decisionKeysSection({ viewer: model.viewer, account: model.account, callbackOn: Boolean(model.callbacks.settings?.url), readOnly: model.readOnly, failed: failed?.form === 'decision' ? failed : undefined })}`,
      )
    : ''
}
${group('account', 'Account', planSection(model))}
</div>
</div>`;
}

export function overviewPage(model: OverviewModel): string {
  return page({
    title: 'Overview',
    viewer: model.viewer,
    current: 'overview',
    notice: model.notice,
    body: overviewBody(model),
  });
}

export function regeneratePage(viewer: Viewer): string {
  return page({
    title: 'Regenerate the webhook URL',
    viewer,
    current: 'overview',
    body: html`<h1>Regenerate the webhook URL?</h1>
<section class="card">
  <p><strong>The current webhook URL stops working at once.</strong> Every alert that still uses it is refused
  (401) and does not call you, until you paste the new URL into each of your alerts.</p>
  <p>Do this when the URL leaked or you are not sure who has it.</p>
  <form method="post" action="/dashboard/regenerate" class="row">
    ${csrfField(viewer.csrfToken)}
    <button type="submit" class="danger">Yes, regenerate the URL</button>
    <a class="button secondary" href="/">Cancel</a>
  </form>
</section>`,
  });
}
