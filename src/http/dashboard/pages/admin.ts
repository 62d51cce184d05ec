// The admin's read-only list of every account.
import type { Account } from '../../../core/account.js';
import { html } from '../html.js';
import { page, type Viewer } from '../layout.js';

export interface AdminRow {
  account: Account;
  usedThisMonth: number;
}

/** `smsWarning`: why SMS backup "on" sends nothing (or may not) on this server, for every account. */
export function adminPage(viewer: Viewer, rows: AdminRow[], smsWarning: string | null = null): string {
  const body = rows.map(
    ({ account, usedThisMonth }) => html`<tr>
  <td><a href="/admin/accounts/${account.userId}">${account.name || account.userId}</a></td>
  <td data-label="Phone">${account.phone}</td>
  <td data-label="Plan">${account.plan}</td>
  <td data-label="Status">${account.status}</td>
  <td data-label="SMS backup">${account.smsBackup ? (smsWarning ? 'on (see above)' : 'on') : 'off'}</td>
  <td data-label="Calls this month">${usedThisMonth}</td>
</tr>`,
  );
  return page({
    title: 'All accounts',
    viewer,
    current: 'admin',
    body: html`<h1>All accounts</h1>
<p class="hint">Read-only. Change accounts with the ringhook account command.</p>
${smsWarning ? html`<p class="notice error" id="sms-warning">SMS backup: ${smsWarning}</p>` : ''}
<table class="accounts">
<thead><tr><th scope="col">Account</th><th scope="col">Phone</th><th scope="col">Plan</th><th scope="col">Status</th><th scope="col">SMS backup</th><th scope="col">Calls this month</th></tr></thead>
<tbody>${body}</tbody>
</table>`,
  });
}
