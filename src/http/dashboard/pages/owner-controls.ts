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
import { MAX_DECISION_KEYS, storedDecisionKeys } from '../../../core/calls/decision-keys.js';

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

/** The decision keys card (#56): the keys as the call offers them, whether a PIN guards them, and the form (the text `account set --keys` takes). */
export function decisionKeysSection(view: {
  viewer: Viewer;
  account: Account;
  /** The account has a status callback URL: where a decision is sent. */
  callbackOn: boolean;
  readOnly: boolean;
  failed?: FailedForm | undefined;
}): SafeHtml {
  const { account } = view;
  const keys = storedDecisionKeys(account.decisionKeys);
  const offered = keys.map((k) => `${k.key} for ${k.label}`).join(', ');
  const now = html`<p id="decision-keys-now">Decision keys: <span id="decision-keys-effect">${
    keys.length === 0
      ? 'none: a call offers no decision.'
      : view.callbackOn
        ? `after the message the call says "Press ${offered}"; the key pressed ends the call and sends a signed call.decision to your callback URL.`
        : `${account.decisionKeys}, not offered: set a callback URL first (Status callbacks), where the decision is sent.`
  }</span>${account.decisionPinSet ? ' A PIN is asked after the key (set with the CLI, never shown).' : ''}</p>`;
  const needsUrl = view.callbackOn
    ? ''
    : html`<p class="notice" id="decision-keys-need-url">Decision keys need a status callback URL, where the decision is sent: set one in Status callbacks first.</p>`;
  if (view.readOnly) return html`<section class="card"><h3>Decision keys</h3>${now}</section>`;
  return html`<section class="card" aria-labelledby="decision-keys-title">
  <h3 id="decision-keys-title">Decision keys</h3>
  ${now}
  ${needsUrl}
  ${formErrorNotice('decision', view.failed)}
  <form method="post" action="/dashboard/decision-keys">
    ${csrfField(view.viewer.csrfToken)}
    <label for="decision-keys">Keys and labels</label>
    <input type="text" id="decision-keys" name="keys" maxlength="200" value="${shown(view.failed, 'keys', account.decisionKeys || 'off')}" placeholder="7=buy,8=skip" spellcheck="false" aria-describedby="decision-keys-hint">
    <p class="hint" id="decision-keys-hint">off, or KEY=LABEL pairs such as 7=buy,8=skip: keys 3–9 or #, labels of 1–24 letters, digits, spaces or dashes, at most ${MAX_DECISION_KEYS}.</p>
    <button type="submit" class="secondary">Save decision keys</button>
  </form>
</section>`;
}
