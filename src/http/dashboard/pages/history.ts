// The call history: one card per call or rejected alert, newest first, a status filter and a
// cursor pager. callItem() is also the fragment the live updates fetch.
import type { KeyPress } from '../../../core/keypad.js';
import { hangupDetail, smsReasonText } from '../../../core/reasons.js';
import type { CallRecord as HistoryEntry, HistoryPage } from '../../../core/records.js';
import { formatDuration, formatTime, formatValue } from '../format.js';
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

/** `details`: show the technical detail (the viewer is an admin); `keys`: the keys pressed during the call. */
export function callItem(
  entry: HistoryEntry,
  options: { details?: boolean; keys?: readonly KeyPress[] | undefined } = {},
): SafeHtml {
  const extras = Object.entries(entry.extra).map(([key, value]) => fact(key, formatValue(value)));
  return html`<li id="call-${entry.callId}" data-status="${entry.status}">
  <div class="head">
    <time datetime="${new Date(entry.receivedAt).toISOString()}">${formatTime(entry.receivedAt)}</time>
    ${badge(entry.status, entry.smsStatus)}
    <span class="kind">${entry.kind === 'test' ? 'Test call' : entry.accepted ? 'Alert' : 'Alert not called'}</span>
  </div>
  <p class="message">${entry.message}</p>
  <dl class="facts">
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
    ${fact('Answered by', machineVerdict(entry))}
    ${fact('Keys pressed', keysList(options.keys))}
    ${fact('Earlier calls', earlierCalls(entry))}
    ${fact('Trunk', entry.trunk === 'trunk2' ? 'the backup trunk (the first did not take the call)' : null)}
    ${fact('SMS', smsText(entry, options.details === true))}
    ${fact('Reason', entry.error)}
    ${options.details ? fact('Details', technicalDetail(entry)) : ''}
    ${fact('Call ID', entry.callId)}
  </dl>
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

/** AMD's verdict in words, when it ran. */
function machineVerdict(entry: HistoryEntry): string | null {
  if (!entry.amdStatus) return null;
  const cause = entry.amdCause ? ` (${entry.amdCause})` : '';
  if (entry.amdStatus === 'MACHINE') return `an answering machine${cause}`;
  if (entry.amdStatus === 'HUMAN') return `a person${cause}`;
  return `not sure: person or machine${cause}`;
}

export interface HistoryModel {
  viewer: Viewer;
  page: HistoryPage;
  /** The keys pressed during the page's calls (only those with any). */
  keys?: ReadonlyMap<string, readonly KeyPress[]>;
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
<ol class="calls" id="calls" aria-label="Calls, newest first"${live ? html` data-live="${live}"` : ''} data-filter="${model.filter ?? ''}">
${model.page.entries.map((entry) => callItem(entry, { details: model.viewer.admin, keys: model.keys?.get(entry.callId) }))}
</ol>
${pager(model)}`;
}

export function historyPage(model: HistoryModel, current: 'calls' | 'admin' = 'calls'): string {
  return page({ title: model.heading, viewer: model.viewer, current, notice: model.notice, body: historyBody(model) });
}
