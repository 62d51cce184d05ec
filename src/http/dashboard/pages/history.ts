// The call history: one line per call or rejected alert, opening to its details and timeline, newest first, a status filter and a
// cursor pager. callItem() is also the fragment the live updates fetch.
import { callDecisionText } from '../../../core/calls/decision-keys.js';
import { type KeyPress, keysPressed } from '../../../core/calls/keypad.js';
import { hangupDetail, smsReasonText } from '../../../core/reasons.js';
import type { CallEventRow, CallRecord as HistoryEntry, HistoryPage } from '../../../core/records.js';
import {
  detectionVerdictWords,
  formatClock,
  formatDuration,
  formatShortTime,
  formatTime,
  formatValue,
} from '../format.js';
import { timelineSteps } from '../timeline.js';
import { html, type SafeHtml } from '../html.js';
import { page, type Notice, type Viewer } from '../layout.js';
import { FILTERS, statusExplain, statusInfo } from '../status.js';
import { testCallForm } from './overview.js';

function fact(label: string, value: string | number | null | undefined | SafeHtml): SafeHtml {
  if (value === null || value === undefined || value === '') return html``;
  return html`<dt>${label}</dt><dd>${value}</dd>`;
}

/** The SMS backup's status, with why it did not go in a sentence (the gateway's own words: `details`). */
function smsText(entry: HistoryEntry, details: boolean): string | null {
  if (!entry.smsStatus) return null;
  const parts = entry.smsParts && entry.smsParts > 1 ? ` (${entry.smsParts} parts)` : '';
  const why = smsReasonText(entry.smsStatus, entry.smsError);
  const said = why ? `. ${why}` : '';
  const raw = details && entry.smsError ? ` (details: ${entry.smsError})` : '';
  // "disabled" would read as a broken switch: the sentence says which (no gateway, backup off).
  const status = entry.smsStatus === 'disabled' ? 'not sent' : entry.smsStatus.replace(/_/g, ' ');
  return `${status}${parts}${said}${raw}`;
}

/** `smsStatus`: the call's SMS backup, so the sentence says what became of it (no SMS is not "went out"). */
export function badge(status: string, smsStatus: string | null = null): SafeHtml {
  const info = statusInfo(status);
  const explain = statusExplain(status, smsStatus);
  return html`<span class="badge ${info.tone}" title="${explain}" data-status="${status}"><span class="label">${info.label}</span><span class="sr-only">: ${explain}</span></span>`;
}

/**
 * What Asterisk and the provider reported behind the reason (the SIP code and cause, Asterisk's
 * own answer): for the admin, who can act on it; the owner reads the reason's sentence.
 */
function technicalDetail(entry: HistoryEntry): string | null {
  if (entry.reasonDetail) return entry.reasonDetail;
  // Calls ended before the detail was kept: their hang-up cause is all there is.
  if (entry.hangupCause === null) return null;
  return hangupDetail(entry.hangupCause, entry.hangupCauseText ?? '', entry.sipCode ?? undefined);
}

/** The keys pressed, each with its time and what it did, in order. */
function keysList(keys: readonly KeyPress[] | undefined): SafeHtml | null {
  if (!keys || keys.length === 0) return null;
  const items = keys.map(
    (k) =>
      html`<li><kbd>${k.key}</kbd> at <time datetime="${new Date(k.at).toISOString()}">${formatTime(k.at)}</time>: ${k.did}</li>`,
  );
  return html`<ol class="keys">${items}</ol>`;
}

/** The SMS backup in a word or two, for its column. */
function smsShort(entry: HistoryEntry): string {
  if (!entry.smsStatus || entry.smsStatus === 'not_needed') return '—';
  if (entry.smsStatus === 'disabled') return 'Not sent';
  const words = entry.smsStatus.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A column of the line; on a phone it is named before its value, and left out when empty. */
function cell(name: string, label: string, tooltip: string, value: string): SafeHtml {
  return html`<span class="${name}${value === '—' ? ' none' : ''}" data-label="${label}" title="${tooltip}">${value}</span>`;
}

function ringTalk(entry: HistoryEntry): string {
  const ring = formatDuration(entry.ringMs);
  const talk = formatDuration(entry.talkMs);
  if (ring === null && talk === null) return '—';
  return `${ring ?? '—'} / ${talk ?? '—'}`;
}

function timelineList(entry: HistoryEntry, events: readonly CallEventRow[], admin: boolean): SafeHtml {
  const steps = timelineSteps(entry, events, admin).map(
    (s) =>
      html`<li${s.key ? html` class="key"` : ''}><time datetime="${new Date(s.at).toISOString()}" title="${formatTime(s.at)}">${formatClock(s.at)}</time> <span>${s.key ? html`Key <kbd>${s.key}</kbd> ` : ''}${s.text}</span></li>`,
  );
  return html`<div class="timeline-box"><h3 class="sub">Timeline (UTC)</h3><ol class="timeline">${steps}</ol></div>`;
}

/**
 * One call as a line of the history (time, status, message cut to a line, ring/talk, SMS) that
 * opens to its details and timeline. `details`: the technical detail (the viewer is an admin);
 * `timeline`: the call's events; `open`: shown opened.
 */
export function callItem(
  entry: HistoryEntry,
  options: { details?: boolean; timeline?: readonly CallEventRow[] | undefined; open?: boolean } = {},
): SafeHtml {
  const extras = Object.entries(entry.extra).map(([key, value]) => fact(key, formatValue(value)));
  const events = options.timeline ?? [];
  const keys = entry.answeredAt === null ? [] : keysPressed(events);
  const kind = entry.kind === 'test' ? 'Test call' : entry.accepted ? 'Alert' : 'Alert not called';
  const decided = callDecisionText(entry);
  return html`<li id="call-${entry.callId}" data-status="${entry.status}">
<details${options.open ? html` open` : ''}>
  <summary class="line">
    <time class="when" datetime="${new Date(entry.receivedAt).toISOString()}" title="${formatTime(entry.receivedAt)}">${formatShortTime(entry.receivedAt)}</time>
    <span class="status">${badge(entry.status, entry.smsStatus)}</span>
    <span class="what">${entry.kind === 'test' ? html`<span class="tag" title="A test call, asked for from the dashboard.">Test</span> ` : ''}<span class="message" title="${entry.message}">${entry.message}</span>${decided ? html` <span class="tag decision" title="The decision key pressed in the call (#56).">${decided}</span>` : ''}</span>
    ${cell('ringtalk', 'Ring / talk', 'Ring time, then talk time.', ringTalk(entry))}
    ${cell('sms', 'SMS', 'What the SMS backup did.', smsShort(entry))}
  </summary>
  <div class="more">
  <div class="more-facts">
  <p class="message-full">${entry.message}</p>
  <dl class="facts">
    ${fact('Kind', html`<span class="kind">${kind}</span>`)}
    ${entry.messageTruncated ? fact('Note', 'The message was longer than allowed and was truncated.') : ''}
    ${fact('Ticker', entry.ticker)}
    ${fact('Price', entry.price === null ? null : String(entry.price))}
    ${fact('Action', entry.action)}
    ${fact('Strategy', entry.strategy)}
    ${fact('Timestamp', entry.alertTimestamp)}
    ${extras}
    ${fact('Ring time', formatDuration(entry.ringMs))}
    ${fact('Talk time', formatDuration(entry.talkMs))}
    ${fact('Spoken in', entry.carriedBy && `the call of alert ${entry.carriedBy}, with the alerts that waited for the line`)}
    ${fact('Answered by', entry.amdStatus ? detectionVerdictWords(entry.amdStatus, entry.amdCause) : null)}
    ${fact('Keys pressed', keysList(keys))}
    ${fact('Decision', decided)}
    ${fact('Its own keys', entry.decisionKeys === '' ? "none (the account's not offered)" : entry.decisionKeys)}
    ${fact('Earlier calls', earlierCalls(entry))}
    ${fact('Backup person', entry.dialTo ? `called at ${entry.dialTo}, ${entry.kind === 'test' ? 'to ask them to agree (press 1)' : 'every call before it missed'}` : null)}
    ${fact('Trunk', entry.trunk === 'trunk2' ? 'the backup trunk (the first did not take the call)' : null)}
    ${fact('SMS', smsText(entry, options.details === true))}
    ${fact('Reason', entry.error)}
    ${options.details ? fact('Details', technicalDetail(entry)) : ''}
    ${fact('Call ID', entry.callId)}
  </dl>
  </div>
  ${timelineList(entry, events, options.details === true)}
  </div>
</details>
</li>`;
}

/** Ring again (#54): each earlier call of the alert (its time and outcome), and the next one's time while it waits. */
function earlierCalls(entry: HistoryEntry): string | null {
  const earlier = entry.earlierAttempts ?? [];
  if (earlier.length === 0) return null;
  const calls = earlier.map((a, i) => `${i + 1}. ${formatTime(a.at)}: ${statusInfo(a.outcome).label}`).join('; ');
  const next = entry.status === 'queued' && entry.retryAt ? `; called again at ${formatTime(entry.retryAt)}` : '';
  return `${calls}${next}`;
}

export interface HistoryModel {
  viewer: Viewer;
  page: HistoryPage;
  /** The timelines of the page's calls (call_events), by call id. */
  timelines?: ReadonlyMap<string, readonly CallEventRow[]>;
  filter: string | undefined;
  /** True on the first page: new calls are prepended live. */
  first: boolean;
  /** Where the filter form and the pager point (the owner's /calls or an admin's view). */
  basePath: string;
  heading: string;
  /** 2 when the history is a section of a larger page (the admin's view of an account). */
  headingLevel?: 1 | 2;
  live: boolean;
  testCallsAvailable: boolean | null;
  notice?: Notice | undefined;
}

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

function filterForm(model: HistoryModel): SafeHtml {
  const options = FILTERS.map(
    (f) => html`<option value="${f.value}"${f.value === model.filter ? html` selected` : ''}>${f.label}</option>`,
  );
  return html`<form class="filter" method="get" action="${model.basePath}">
  <div><label for="status-filter">Status</label>
  <select id="status-filter" name="status"><option value="">All statuses</option>${options}</select></div>
  <button type="submit" class="secondary">Filter</button>
</form>`;
}

function pager(model: HistoryModel): SafeHtml {
  const newest = model.first
    ? ''
    : html`<a class="button secondary" href="${model.basePath + query({ status: model.filter })}">Newest</a>`;
  const older =
    model.page.next === null
      ? ''
      : html`<a class="button secondary" rel="next" href="${model.basePath + query({ status: model.filter, before: model.page.next })}">Older</a>`;
  return html`<nav class="pager" aria-label="Pages">${newest}${older}</nav>`;
}

export function historyBody(model: HistoryModel): SafeHtml {
  const live = model.live ? (model.first ? 'prepend' : 'update') : '';
  const empty =
    model.page.entries.length === 0
      ? html`<p id="calls-empty">${model.filter ? 'No calls with this status.' : 'No calls yet. Send a test call, or point an alert at your webhook URL.'}</p>`
      : '';
  const testCall =
    model.testCallsAvailable === null
      ? ''
      : html`<section class="card">${testCallForm(model.viewer.csrfToken, model.testCallsAvailable)}</section>`;
  const heading = model.headingLevel === 2 ? html`<h2>${model.heading}</h2>` : html`<h1>${model.heading}</h1>`;
  return html`${heading}
${testCall}
${filterForm(model)}
${empty}
<div class="calls-head" aria-hidden="true"><span>Time (UTC)</span><span>Status</span><span>Message</span><span>Ring / talk</span><span>SMS</span></div>
<ol class="calls" id="calls" aria-label="Calls, newest first"${live ? html` data-live="${live}"` : ''} data-filter="${model.filter ?? ''}">
${model.page.entries.map((entry) => callItem(entry, { details: model.viewer.admin, timeline: model.timelines?.get(entry.callId) }))}
</ol>
${pager(model)}`;
}

export function historyPage(model: HistoryModel, current: 'calls' | 'admin' = 'calls'): string {
  return page({ title: model.heading, viewer: model.viewer, current, notice: model.notice, body: historyBody(model) });
}
