// The overview: webhook URL with a copy button, ready-to-paste TradingView messages, plan and usage,
// phone, SMS backup switch, test call and the way to regenerate the URL.
import type { Account } from '../../../core/account.js';
import type { PlanLimits } from '../../../core/limits.js';
import { formatTime, plural } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, type Notice, type Viewer } from '../layout.js';

export interface OverviewModel {
  viewer: Viewer;
  account: Account;
  /** null in the admin's read-only view: another account's secret is not shown. */
  webhookUrl: string | null;
  usage: { used: number; resetsAt: number };
  limits: PlanLimits;
  testCallsAvailable: boolean;
  readOnly: boolean;
  notice?: Notice | undefined;
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
function copyField(id: string, label: string, value: string, shape: FieldShape, hint: SafeHtml | string = ''): SafeHtml {
  const field = shape === 'line'
    ? html`<input type="text" class="mono" id="${id}" readonly value="${value}" spellcheck="false" aria-describedby="${id}-hint">`
    : html`<textarea id="${id}" class="${shape}" readonly rows="${shape === 'wrapped' ? 2 : value.split('\n').length}" spellcheck="false" aria-describedby="${id}-hint">${value}</textarea>`;
  return html`<label for="${id}">${label}</label>
<div class="row">${field}<button type="button" class="secondary" data-copy="${id}" data-copy-status="${id}-status">Copy</button></div>
<p class="hint" id="${id}-hint">${hint}</p>
<p class="sr-only" id="${id}-status" role="status" aria-live="polite"></p>`;
}

function webhookSection(model: OverviewModel): SafeHtml {
  if (model.webhookUrl === null) {
    return html`<section class="card"><h2>Webhook URL</h2><p>Hidden: the URL is the account owner's secret.</p></section>`;
  }
  return html`<section class="card" aria-labelledby="webhook-title">
  <h2 id="webhook-title">Webhook URL</h2>
  ${copyField('webhook-url', 'Paste this into the alert\'s Webhook URL field', model.webhookUrl, 'wrapped',
    'Keep it secret: anyone who has it can make your phone ring. If it leaked, regenerate it below.')}
</section>
<section class="card" aria-labelledby="templates-title">
  <h2 id="templates-title">Alert message</h2>
  <p>Paste one of these into the alert's <strong>Message</strong> box. TradingView fills in <code>{{ticker}}</code>,
  <code>{{close}}</code> and <code>{{time}}</code>; the <em>message</em> is what is spoken.</p>
  ${copyField('template-text', 'Plain text', PLAIN_TEMPLATE, 'block', 'The whole text is spoken.')}
  ${copyField('template-json', 'JSON (keeps ticker, price, action, strategy and time in the history)', JSON_TEMPLATE, 'block',
    'Only "message" is spoken; the other fields are shown in the call history.')}
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
  <h2 id="plan-title">Plan and usage</h2>
  <dl class="facts">
    <dt>Plan</dt><dd>${account.plan === 'premium' ? 'Premium' : 'Free'}</dd>
    <dt>Calls this month</dt><dd id="usage">${monthly}</dd>
    <dt>Resets</dt><dd><time datetime="${new Date(usage.resetsAt).toISOString()}">${formatTime(usage.resetsAt)}</time></dd>
    <dt>Per-minute limit</dt><dd>${plural(limits.perMinute, 'call')} a minute</dd>
    <dt>Phone number</dt><dd>${account.phone}</dd>
    <dt>Account status</dt><dd>${account.status === 'active' ? 'Active' : 'Suspended: alerts are refused'}</dd>
  </dl>
</section>`;
}

function smsSection(model: OverviewModel): SafeHtml {
  const on = model.account.smsBackup;
  const state = html`<p>SMS backup is <span class="switch-state" id="sms-state">${on ? 'on' : 'off'}</span>.
  ${on ? 'When a call is not answered, busy or unreachable, the message is sent by SMS.' : 'A missed call is not followed by an SMS.'}</p>`;
  if (model.readOnly) return html`<section class="card"><h2>SMS backup</h2>${state}</section>`;
  return html`<section class="card" aria-labelledby="sms-title">
  <h2 id="sms-title">SMS backup</h2>
  ${state}
  <form method="post" action="/dashboard/sms-backup">
    ${csrfField(model.viewer.csrfToken)}
    <input type="hidden" name="sms_backup" value="${on ? 'off' : 'on'}">
    <button type="submit" class="secondary">${on ? 'Turn SMS backup off' : 'Turn SMS backup on'}</button>
  </form>
</section>`;
}

export function testCallForm(csrfToken: string, available: boolean): SafeHtml {
  if (!available) {
    return html`<p class="notice" role="status">Test calls are not available: telephony is not configured on this server. Ask your administrator.</p>`;
  }
  return html`<form method="post" action="/dashboard/test-call">
    ${csrfField(csrfToken)}
    <button type="submit">Send test call</button>
  </form>
  <p class="hint">Your phone rings within a couple of seconds; the call appears in the history. Test calls do not count against the monthly allowance.</p>`;
}

function actionsSection(model: OverviewModel): SafeHtml {
  if (model.readOnly) return html``;
  return html`<section class="card" aria-labelledby="test-title">
  <h2 id="test-title">Test call</h2>
  ${testCallForm(model.viewer.csrfToken, model.testCallsAvailable)}
</section>
<section class="card" aria-labelledby="regen-title">
  <h2 id="regen-title">Regenerate the webhook URL</h2>
  <p>If the URL leaked, make a new one. The old URL stops working at once.</p>
  <a class="button secondary" href="/dashboard/regenerate">Regenerate webhook URL…</a>
</section>`;
}

export function overviewBody(model: OverviewModel): SafeHtml {
  const who = model.account.name || model.account.userId;
  return html`<h1>${model.readOnly ? html`Account ${who} (read-only)` : 'Overview'}</h1>
${webhookSection(model)}
${planSection(model)}
${smsSection(model)}
${actionsSection(model)}`;
}

export function overviewPage(model: OverviewModel): string {
  return page({ title: 'Overview', viewer: model.viewer, current: 'overview', notice: model.notice, body: overviewBody(model) });
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
