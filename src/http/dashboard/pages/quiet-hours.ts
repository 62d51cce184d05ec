// The overview's quiet hours card (#41): the windows, their time zone and what happens to an alert
// in them, in the words `account show` uses (core/delivery/quiet-delivery), with the form that sets them.
import type { Account } from '../../../core/account.js';
import {
  describeQuietHours,
  QUIET_MODES,
  type QuietMode,
  smsModeWarning,
} from '../../../core/delivery/quiet-delivery.js';
import { QUIET_HOURS_SYNTAX } from '../../../core/delivery/quiet-hours.js';
import type { SmsGatewayState } from '../../../core/delivery/sms-truth.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, type Viewer } from '../layout.js';
import { type FailedForm, formErrorNotice, shown } from '../form-error.js';

const MODE_LABELS: Record<QuietMode, string> = {
  hold: 'Hold: one call when they end',
  sms: 'SMS instead of the call',
  call: 'Call anyway',
};

export interface QuietHoursView {
  viewer: Viewer;
  account: Account;
  sms: SmsGatewayState;
  readOnly: boolean;
  now: number;
  /** This card's form was posted with a bad value: the error and what was typed. */
  failed?: FailedForm | undefined;
}

const sendsSms = (sms: SmsGatewayState) => sms.state !== 'none' && sms.state !== 'no_telephony';

export function quietHoursSection(view: QuietHoursView): SafeHtml {
  const { account } = view;
  const possible = { gateway: sendsSms(view.sms), smsBackup: account.smsBackup };
  const warning = smsModeWarning(account, possible, 'owner');
  const said = describeQuietHours(account, possible, view.now);
  const state = html`<p id="quiet-now">Quiet hours: <span id="quiet-effect">${said}</span></p>${
    warning
      ? html`<p class="notice error" id="quiet-warning">${warning.charAt(0).toUpperCase()}${warning.slice(1)}</p>`
      : ''
  }`;
  if (view.readOnly) return html`<section class="card"><h3>Quiet hours</h3>${state}</section>`;
  const { failed } = view;
  const mode = shown(failed, 'quiet_mode', account.quietMode);
  const modes = QUIET_MODES.map(
    (m) => html`<option value="${m}"${m === mode ? html` selected` : ''}>${MODE_LABELS[m]}</option>`,
  );
  return html`<section class="card" aria-labelledby="quiet-title">
  <h3 id="quiet-title">Quiet hours</h3>
  ${state}
  ${formErrorNotice('quiet', failed)}
  <form method="post" action="/dashboard/quiet-hours">
    ${csrfField(view.viewer.csrfToken)}
    <label for="quiet-hours">Windows</label>
    <input type="text" id="quiet-hours" name="quiet_hours" maxlength="300" value="${shown(failed, 'quiet_hours', account.quietHours)}" placeholder="mon-fri 22:00-07:00, sat-sun 00:00-09:00" aria-describedby="quiet-hours-hint">
    <p class="hint" id="quiet-hours-hint">${QUIET_HOURS_SYNTAX.replace(/, e\.g\..*$/, '')}: days mon … sun, a range (fri-mon) or daily; an end not after the start is on the next day. Empty: none.</p>
    <div class="fields2"><div><label for="quiet-zone">Time zone</label>
    <input type="text" id="quiet-zone" name="time_zone" maxlength="64" value="${shown(failed, 'time_zone', account.timeZone)}" placeholder="Europe/Berlin" title="An IANA time zone name, e.g. Europe/London, America/New_York or UTC."></div>
    <div><label for="quiet-mode">An alert in quiet hours</label>
    <select id="quiet-mode" name="quiet_mode">${modes}</select></div></div>

    <button type="submit" class="secondary">Save quiet hours</button>
  </form>
</section>`;
}
