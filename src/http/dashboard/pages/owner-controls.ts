// The overview's "Duplicates and sources" card (#41): the duplicate-alert window and who may send
// alerts, said as the webhook applies them (the server's RINGHOOK_WEBHOOK_SOURCES included), with the
// form that sets them (the values `account set --dedupe` and `--sources` take).
import type { Account } from '../../../core/account.js';
import { describeDedupe, MAX_DEDUPE_SECONDS } from '../../../core/webhook/dedupe.js';
import {
  ANY_SOURCE,
  describeSources,
  parseSourceRule,
  type SourceRule,
} from '../../../core/webhook/webhook-sources.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, type Viewer } from '../layout.js';
import { type FailedForm, formErrorNotice, shown } from '../form-error.js';

export interface OwnerControlsView {
  viewer: Viewer;
  account: Account;
  /** The server's rule (RINGHOOK_WEBHOOK_SOURCES): the webhook applies it before the account's. */
  serverSources: SourceRule;
  readOnly: boolean;
  /** This card's form was posted with a bad value: the error and what was typed. */
  failed?: FailedForm | undefined;
}

export function ownerControlsSection(view: OwnerControlsView): SafeHtml {
  const { account } = view;
  const accountSources = account.webhookSources === 'any' ? ANY_SOURCE : parseSourceRule(account.webhookSources);
  const state = html`<p id="dedupe-now">Duplicate alerts: <span id="dedupe-effect">${describeDedupe(account.dedupeSeconds)}</span></p>
  <p id="sources-now">Allowed sources: <span id="sources-effect">${describeSources(view.serverSources, accountSources)}</span></p>`;
  if (view.readOnly) return html`<section class="card"><h3>Duplicates and sources</h3>${state}</section>`;
  const dedupe = account.dedupeSeconds > 0 ? String(account.dedupeSeconds) : 'off';
  return html`<section class="card" aria-labelledby="controls-title">
  <h3 id="controls-title">Duplicates and sources</h3>
  ${state}
  ${formErrorNotice('controls', view.failed)}
  <form method="post" action="/dashboard/owner-controls">
    ${csrfField(view.viewer.csrfToken)}
    <label for="dedupe">Duplicate window (seconds)</label>
    <input type="text" id="dedupe" name="dedupe" maxlength="20" inputmode="numeric" value="${shown(view.failed, 'dedupe', dedupe)}" placeholder="off" aria-describedby="dedupe-hint">
    <p class="hint" id="dedupe-hint">off (the default: every alert rings), or 1 to ${MAX_DEDUPE_SECONDS} seconds.</p>
    <label for="sources">Allowed sources</label>
    <input type="text" id="sources" name="sources" maxlength="1000" value="${shown(view.failed, 'sources', account.webhookSources)}" placeholder="any" aria-describedby="sources-hint">
    <p class="hint" id="sources-hint">any (default), tradingview (its four published addresses) or comma-separated addresses and ranges, e.g. 203.0.113.7, 198.51.100.0/24.</p>
    <button type="submit" class="secondary">Save duplicates and sources</button>
  </form>
</section>`;
}
