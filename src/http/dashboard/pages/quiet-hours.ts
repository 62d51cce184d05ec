// The overview's quiet hours card (#41): the windows, their time zone and what happens to an alert
// in them, in the words `account show` uses (core/quiet-delivery), with the form that sets them.
import type { Account } from '../../../core/account.js';
import { describeQuietHours, QUIET_MODES, type QuietMode, smsModeWarning } from '../../../core/quiet-delivery.js';
import { QUIET_HOURS_SYNTAX } from '../../../core/quiet-hours.js';
import type { SmsGatewayState } from '../../../core/sms-truth.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, type Viewer } from '../layout.js';

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
  if (view.readOnly) return html`<section class="card"><h2>Quiet hours</h2>${state}</section>`;
  const modes = QUIET_MODES.map(
    (mode) =>
      html`<option value="${mode}"${mode === account.quietMode ? html` selected` : ''}>${MODE_LABELS[mode]}</option>`,
  );
  return html`<section class="card" aria-labelledby="quiet-title">
  <h2 id="quiet-title">Quiet hours</h2>
  ${state}
  <form method="post" action="/dashboard/quiet-hours">
    ${csrfField(view.viewer.csrfToken)}
    <label for="quiet-hours">Windows</label>
    <input type="text" id="quiet-hours" name="quiet_hours" maxlength="300" value="${account.quietHours}" placeholder="mon-fri 22:00-07:00, sat-sun 00:00-09:00" aria-describedby="quiet-hours-hint">
    <p class="hint" id="quiet-hours-hint">${QUIET_HOURS_SYNTAX}. Days mon … sun, a range (fri-mon) or daily; an end not after the start is on the next day. Empty: no quiet hours.</p>
    <label for="quiet-zone">Time zone</label>
    <input type="text" id="quiet-zone" name="time_zone" maxlength="64" value="${account.timeZone}" placeholder="Europe/Berlin" aria-describedby="quiet-zone-hint">
    <p class="hint" id="quiet-zone-hint">An IANA name, e.g. Europe/London, America/New_York, Asia/Tokyo, UTC.</p>
    <label for="quiet-mode">An alert in quiet hours</label>
    <select id="quiet-mode" name="quiet_mode" aria-describedby="quiet-mode-hint">${modes}</select>
    <p class="hint" id="quiet-mode-hint">Hold: when the window ends, one call says everything held, newest first, each with how long ago it came.</p>
    <button type="submit" class="secondary">Save quiet hours</button>
  </form>
</section>`;
}
