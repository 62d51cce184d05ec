// The overview's status-callbacks card: the URL (a form to set it or turn it off), the secret's
// state (never the secret after the page that made it), a note when ringhook turned callbacks off
// (410), and the last deliveries with their status.
import type { CallbackDelivery, CallbackSettings } from '../../../core/callbacks/callback-records.js';
import { formatShortTime, formatTime } from '../format.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, type Viewer } from '../layout.js';
import { type FailedForm, formErrorNotice, shown } from '../form-error.js';

export interface CallbacksView {
  settings: CallbackSettings | undefined;
  deliveries: CallbackDelivery[];
}

const STATUS_WORDS: Record<CallbackDelivery['status'], string> = {
  pending: 'waiting to be tried again',
  sending: 'being sent',
  delivered: 'delivered',
  failed: 'not delivered (given up)',
  gone: 'not sent (callbacks off)',
};

/** A delivery's status in words: pending and never tried is waiting to be sent, not to be tried again. */
function statusWords(d: CallbackDelivery): string {
  if (d.status === 'pending' && d.attempts === 0) return 'waiting to be sent';
  return STATUS_WORDS[d.status];
}

/** A call.decision's label beside its type (#56): which decision went out. */
function decisionOf(d: CallbackDelivery): string {
  if (d.type !== 'call.decision') return '';
  try {
    const { data } = JSON.parse(d.body) as { data?: { key?: unknown; label?: unknown } };
    return typeof data?.label === 'string' ? ` ${data.label} (${String(data.key)})` : '';
  } catch {
    return '';
  }
}

function deliveryRow(d: CallbackDelivery): SafeHtml {
  const answer = d.lastHttpStatus !== null ? `HTTP ${d.lastHttpStatus}` : (d.lastError ?? '—');
  const next = d.status === 'pending' && d.attempts > 0 ? html`; next try ${formatTime(d.nextAttemptAt)}` : '';
  return html`<tr data-delivery="${d.messageId}" data-status="${d.status}">
  <td><time datetime="${new Date(d.createdAt).toISOString()}" title="${formatTime(d.createdAt)}">${formatShortTime(d.createdAt)}</time></td>
  <td><code>${d.type}</code>${decisionOf(d)}</td>
  <td class="delivery-status">${statusWords(d)}${next}</td>
  <td>${d.attempts}</td>
  <td>${answer}${d.lastHttpStatus !== null && d.lastError && d.lastError !== `HTTP ${d.lastHttpStatus}` ? ` (${d.lastError})` : ''}</td>
</tr>`;
}

function deliveriesTable(deliveries: CallbackDelivery[]): SafeHtml {
  if (deliveries.length === 0) return html`<p class="hint" id="callback-deliveries">No callbacks sent yet.</p>`;
  return html`<div class="scroll"><table id="callback-deliveries" class="grid"><caption>Last deliveries</caption>
<thead><tr><th>Made (UTC)</th><th>Event</th><th>Status</th><th>Tries</th><th>Last answer</th></tr></thead>
<tbody>${deliveries.map(deliveryRow)}</tbody></table></div>`;
}

export function callbacksSection(
  view: CallbacksView,
  csrfToken: string,
  readOnly: boolean,
  failed?: FailedForm | undefined,
): SafeHtml {
  const { settings, deliveries } = view;
  const url = settings?.url ?? null;
  const note = settings?.offNote ? html`<p class="notice error" id="callback-off-note">${settings.offNote}</p>` : '';
  const state = url
    ? html`<p>Status callbacks go to <code id="callback-url-now">${url}</code>, signed with your secret (Standard Webhooks)${
        settings?.previousUntil ? html`; the previous secret signs too until ${formatTime(settings.previousUntil)}` : ''
      }.</p>`
    : html`<p>Status callbacks are <span id="callback-state">off</span>.</p>`;
  const forms = readOnly
    ? ''
    : html`${formErrorNotice('callback', failed)}<form method="post" action="/dashboard/callback-url">
  ${csrfField(csrfToken)}
  <label for="callback-url">Callback URL (https://), or empty to turn callbacks off</label>
  <div class="row"><input type="url" id="callback-url" name="url" value="${shown(failed, 'url', url ?? '')}" placeholder="https://example.com/ringhook-events" spellcheck="false" aria-describedby="callback-url-hint">
  <button type="submit">Save</button></div>
  <p class="hint" id="callback-url-hint">Events: call.queued, call.ringing, call.answered, call.decision (a decision key pressed), call.final (outcome and reason), sms.sent, sms.failed; tried again for a day when your receiver fails, and an answer of 410 turns callbacks off.</p>
</form>
${
  url && settings && settings.secrets.length > 0
    ? html`<form method="post" action="/dashboard/callback-secret" class="row">
  ${csrfField(csrfToken)}
  <button type="submit" class="secondary">Make a new signing secret…</button>
  <span class="hint">The current one keeps signing beside it for 24 hours.</span>
</form>`
    : ''
}`;
  return html`<section class="card" aria-labelledby="callbacks-title">
  <h3 id="callbacks-title">Status callbacks</h3>
  ${note}
  ${state}
  ${forms}
  ${deliveriesTable(deliveries)}
</section>`;
}

/** The page that shows a new secret, once. */
export function callbackSecretPage(viewer: Viewer, secret: string, rotated: boolean): string {
  return page({
    title: 'Callback signing secret',
    viewer,
    current: 'overview',
    body: html`<h1>Your callback signing secret</h1>
<section class="card">
  <p><strong>Copy it now: it is not shown again.</strong> Your receiver checks each callback's
  <code>webhook-signature</code> with it (any Standard Webhooks library does).${
    rotated ? ' The previous secret keeps signing for 24 hours, so move your receiver to this one within a day.' : ''
  }</p>
  <input type="text" class="mono" id="callback-secret" readonly value="${secret}" spellcheck="false">
  <p><a class="button" href="/">Back to the overview</a></p>
</section>`,
  });
}
