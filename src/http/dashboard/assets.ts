// The dashboard's stylesheet and script, kept as strings so they ship inside the single executable
// and are served from our own routes (no CDN, works offline; the CSP allows only 'self').

export const CSS = `
:root { --fg: #1a1a1a; --muted: #4a4a4a; --bg: #ffffff; --panel: #f4f5f7; --line: #c9ccd1; --accent: #0b57d0;
  --accent-fg: #ffffff; --focus: #b45309; --ok: #0f6b2f; --ok-bg: #e3f4e8; --warn: #7a4d00; --warn-bg: #fdf0d5;
  --bad: #a11a1a; --bad-bg: #fbe4e4; --progress: #0b4fa8; --progress-bg: #e2ecfb; --mutedb: #3d4450; --mutedb-bg: #e8eaee; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 8px; z-index: 10; }
header.top { background: #12263f; color: #fff; }
header.top .bar { max-width: 1240px; margin: 0 auto; padding: 10px 16px; display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; }
header.top .brand { font-weight: 700; font-size: 1.1rem; color: #fff; text-decoration: none; margin-right: auto; }
header.top nav { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: center; }
header.top nav a { color: #fff; padding: 6px 2px; }
header.top nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
header.top form { margin: 0; }
header.top button.link { background: none; border: 1px solid #fff; color: #fff; padding: 4px 10px; min-height: 36px; }
main { max-width: 1240px; margin: 0 auto; padding: 12px 16px; }
h1 { font-size: 1.4rem; margin: 4px 0 10px; }
h2 { font-size: 1.15rem; margin: 0 0 8px; }
h3 { font-size: 1.02rem; margin: 0 0 6px; }
h3.sub { font-size: 0.95rem; margin: 0 0 4px; }
section.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; margin: 0 0 10px; min-width: 0; }
section.card > p, section.card form > p { margin: 4px 0; }
section.card form { margin: 4px 0 0; }
.top, .columns { display: grid; gap: 0 16px; align-items: start; }
.top > *, .columns > *, .column > * { min-width: 0; }
section.group { margin: 6px 0 0; min-width: 0; max-width: 100%; }
section.group > h2 { font-size: 0.85rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); margin: 4px 0 6px; }
@media (min-width: 900px) { .top, .columns { grid-template-columns: 1fr 1fr; } }
dl.facts.inline { display: flex; flex-wrap: wrap; gap: 0 6px; }
dl.facts.inline dd { margin-right: 12px; }
dl.facts.inline dt::after { content: ":"; }
@media (min-width: 900px) { body { font-size: 14px; line-height: 1.38; } section.card { padding: 8px 12px; margin-bottom: 8px; } }
@media (min-width: 900px) { .actions .row { flex-wrap: nowrap; align-items: flex-start; } }
/* One column on a phone: the URL and the message first, then the groups. */
@media (max-width: 899px) { .columns { display: flex; flex-direction: column; } .column { display: contents; }
  .columns > * { max-width: 100%; } .lead-url { order: -2; } .lead-message { order: -1; } }
.actions .row form { flex: none; margin: 0; }
.actions .row p.hint { flex: 1 1 200px; }
.actions .row p.hint { margin: 0; }
#hear .row textarea { flex: 1 1 200px; }
dl.facts.pairs { grid-template-columns: max-content 1fr max-content 1fr; }
.fields2 { display: grid; grid-template-columns: 1fr 1fr; gap: 0 10px; }
.fields2 > * { min-width: 0; }
section.switch { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 0 12px; align-items: center; }
section.switch > h3, section.switch > .notice { grid-column: 1 / -1; }
section.switch > .notice { margin: 6px 0 0; order: 3; }
section.switch form { margin: 0; }
section.titled-action { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 0 12px; align-items: center; }
section.titled-action > :not(h3):not(a.button) { grid-column: 1 / -1; }
section.titled-action > h3 { margin: 0; }
section.titled-action p { margin: 4px 0; }
table.grid td { white-space: nowrap; }
.actions form { display: inline-block; margin: 6px 12px 0 0; }
.actions p.hint { margin: 6px 0 0; }
.scroll { overflow-x: auto; max-width: 100%; }
table.grid { border-collapse: collapse; font-size: 0.88rem; min-width: 520px; }
table.grid caption { text-align: left; font-weight: 600; padding: 6px 0 2px; }
table.grid th, table.grid td { text-align: left; padding: 3px 8px 3px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
details.hint summary, details summary { cursor: pointer; }
.tag { font-size: 0.75rem; font-weight: 700; border: 1px solid var(--muted); border-radius: 4px; padding: 0 4px; color: var(--muted); }
p.hint, div.hint, details.hint, ul.hint { color: var(--muted); margin: 4px 0; font-size: 0.87rem; }
ul.hint { padding-left: 18px; }
details.hint ul { margin: 4px 0; padding-left: 20px; }
div.hint ul { margin: 4px 0; padding-left: 20px; }
div.hint p { margin: 4px 0; }
label { display: block; font-weight: 600; margin: 6px 0 2px; }
input[type=text], input[type=password], input[type=url], select, textarea {
  width: 100%; font: inherit; padding: 7px 10px; border: 1px solid #767b85; border-radius: 6px; background: #fff; color: var(--fg); min-height: 40px; }
textarea { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.9rem; resize: vertical; field-sizing: content; }
textarea.wrapped { word-break: break-all; resize: none; }
input.mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.9rem; }
button, .button { display: inline-block; font: inherit; font-weight: 600; padding: 7px 14px; min-height: 40px; border-radius: 6px;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-fg); cursor: pointer; text-decoration: none; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
.row { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.row > input, .row > textarea { flex: 1 1 240px; width: auto; }
.notice { border-left: 5px solid var(--progress); background: var(--progress-bg); padding: 8px 12px; margin: 0 0 10px; border-radius: 4px; }
.notice.error { border-color: var(--bad); background: var(--bad-bg); }
.notice.ok { border-color: var(--ok); background: var(--ok-bg); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
dl.facts dt { font-weight: 600; color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 999px; font-size: 0.85rem; font-weight: 700; border: 1px solid currentColor; white-space: nowrap; }
.badge.ok { color: var(--ok); background: var(--ok-bg); }
.badge.warn { color: var(--warn); background: var(--warn-bg); }
.badge.bad { color: var(--bad); background: var(--bad-bg); }
.badge.progress { color: var(--progress); background: var(--progress-bg); }
.badge.muted { color: var(--mutedb); background: var(--mutedb-bg); }
ol.calls { list-style: none; padding: 0; margin: 0; border-top: 1px solid var(--line); }
ol.calls > li { border-bottom: 1px solid var(--line); background: #fff; }
ol.calls > li:nth-child(even) { background: #fafbfc; }
.calls-head, ol.calls summary.line { display: grid; grid-template-columns: 10.5rem 8.5rem minmax(0, 1fr) 7.5rem 6rem; gap: 0 12px; align-items: center; padding: 5px 8px; }
.calls-head { font-size: 0.8rem; font-weight: 700; color: var(--muted); text-transform: uppercase; letter-spacing: 0.04em; padding-bottom: 3px; }
ol.calls summary.line { cursor: pointer; list-style: none; font-size: 0.92rem; }
ol.calls summary.line::-webkit-details-marker { display: none; }
ol.calls summary.line:hover { background: var(--progress-bg); }
ol.calls details[open] > summary.line { background: var(--panel); font-weight: 600; }
ol.calls .when { font-variant-numeric: tabular-nums; white-space: nowrap; }
ol.calls .what { display: flex; gap: 6px; align-items: baseline; min-width: 0; }
ol.calls .message { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; }
ol.calls .ringtalk, ol.calls .sms { white-space: nowrap; color: var(--muted); font-variant-numeric: tabular-nums; }
ol.calls .badge { font-size: 0.78rem; padding: 0 8px; }
ol.calls .more { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 8px 20px; padding: 8px 12px 12px; background: var(--panel); border-top: 1px dashed var(--line); }
ol.calls .message-full { margin: 0 0 6px; white-space: pre-wrap; overflow-wrap: anywhere; }
ol.calls dl.facts { font-size: 0.88rem; }
ol.calls ol.keys { margin: 0; padding-left: 18px; }
ol.timeline { list-style: none; margin: 0; padding: 0 0 0 10px; border-left: 2px solid var(--line); font-size: 0.88rem; }
ol.timeline li { margin: 0 0 2px; overflow-wrap: anywhere; }
ol.timeline li time { font-variant-numeric: tabular-nums; color: var(--muted); margin-right: 6px; }
ol.timeline li.key { font-weight: 600; }
kbd { font-family: ui-monospace, "DejaVu Sans Mono", monospace; border: 1px solid var(--line); border-bottom-width: 2px; border-radius: 4px; padding: 0 5px; background: #fff; }
form.filter { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin-bottom: 10px; }
form.filter label { margin: 0; }
form.filter select { width: auto; min-width: 200px; }
.pager { display: flex; gap: 12px; margin: 16px 0; }
table.accounts { width: 100%; border-collapse: collapse; }
table.accounts th, table.accounts td { text-align: left; padding: 8px; border-bottom: 1px solid var(--line); }
.switch-state { font-weight: 700; }
audio { display: block; width: 100%; max-width: 480px; margin: 12px 0 8px; }
blockquote.spoken { margin: 4px 0 0; padding: 8px 12px; border-left: 4px solid var(--line); background: #fff; overflow-wrap: anywhere; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
@media (max-width: 700px) {
  .calls-head { display: none; }
  ol.calls summary.line { grid-template-columns: auto minmax(0, 1fr); gap: 2px 10px; }
  ol.calls summary.line .what { grid-column: 1 / -1; order: 3; }
  ol.calls summary.line .ringtalk, ol.calls summary.line .sms { order: 4; font-size: 0.85rem; }
  ol.calls summary.line .none { display: none; }
  ol.calls summary.line .ringtalk::before, ol.calls summary.line .sms::before { content: attr(data-label) ": "; }
  ol.calls .more { grid-template-columns: minmax(0, 1fr); }
}
@media (max-width: 600px) {
  .fields2, section.switch, section.titled-action { grid-template-columns: 1fr; }
  dl.facts, dl.facts.pairs { grid-template-columns: 1fr; gap: 0; }
  dl.facts dd { margin-bottom: 6px; }
  table.accounts thead { display: none; }
  table.accounts tr { display: block; border-bottom: 2px solid var(--line); padding: 6px 0; }
  table.accounts td { display: block; border: 0; padding: 2px 0; }
  table.accounts td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; color: var(--muted); }
  h1 { font-size: 1.3rem; }
}
`;

// Copy buttons, "Hear it" in place and the live history. Nothing here is needed to use the dashboard: without
// JavaScript the URL can be selected by hand and the history refreshed.
export const JS = `
'use strict';
(function () {
  function copy(button) {
    var field = document.getElementById(button.getAttribute('data-copy'));
    var status = document.getElementById(button.getAttribute('data-copy-status'));
    if (!field) return;
    var done = function () { if (status) status.textContent = 'Copied to the clipboard.'; };
    var fallback = function () {
      field.focus(); field.select();
      try { document.execCommand('copy'); done(); } catch (e) { if (status) status.textContent = 'Select the text and copy it.'; }
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(field.value).then(done, fallback);
    else fallback();
  }
  document.addEventListener('click', function (e) {
    var target = e.target;
    if (target instanceof Element && target.closest('[data-copy]')) copy(target.closest('[data-copy]'));
  });

  // "Hear it" without leaving the page: the form's own post, its answer's result put in place and played.
  var hear = document.querySelector('form[data-hear]');
  if (hear && window.fetch && window.DOMParser) hear.addEventListener('submit', function (e) {
    e.preventDefault();
    var button = hear.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
    fetch(hear.action, { method: 'POST', credentials: 'same-origin', body: new URLSearchParams(new FormData(hear)) }).then(function (res) {
      return res.text();
    }).then(function (markup) {
      var fresh = new DOMParser().parseFromString(markup, 'text/html').getElementById('hear-result');
      var current = document.getElementById('hear-result');
      if (!fresh || !current) { hear.submit(); return; }
      current.replaceWith(document.importNode(fresh, true));
      var audio = document.getElementById('voice-sample');
      if (audio && fresh.hasAttribute('data-ready')) { var playing = audio.play(); if (playing) playing.catch(function () { /* autoplay refused: the player is there to press */ }); }
    }).catch(function () { hear.submit(); }).then(function () { if (button) button.disabled = false; });
  });

  // A notice that tells of one call (a test call) follows its row: once the call ends, it says how.
  var notice = document.getElementById('call-notice');
  var IN_FLIGHT = ['queued', 'dialing', 'ringing', 'answered'];
  var REACHED = ['completed', 'acknowledged', 'unconfirmed', 'voicemail'];
  function followNotice(row) {
    if (!notice || row.id !== 'call-' + notice.getAttribute('data-follow')) return;
    var status = row.getAttribute('data-status');
    if (IN_FLIGHT.indexOf(status) >= 0) return;
    var label = row.querySelector('.badge .label');
    var name = label ? label.textContent : status;
    var reason = '';
    Array.prototype.forEach.call(row.querySelectorAll('dl.facts dt'), function (dt) {
      if (dt.textContent === 'Reason' && dt.nextElementSibling) reason = ' ' + dt.nextElementSibling.textContent;
    });
    var reached = REACHED.indexOf(status) >= 0;
    notice.className = 'notice ' + (reached ? 'ok' : 'error');
    notice.setAttribute('role', reached ? 'status' : 'alert');
    notice.textContent = reached ? 'The test call reached your phone: ' + name + '.' : 'The test call ended: ' + name + '.' + reason;
  }

  var list = document.getElementById('calls');
  if (!list || !window.EventSource) return;
  var filter = list.getAttribute('data-filter') || '';
  var prepend = list.getAttribute('data-live') === 'prepend';
  var source = new EventSource('/dashboard/events');
  source.addEventListener('open', function () { document.documentElement.setAttribute('data-live', 'connected'); });
  // A refused stream (429: too many open tabs) is not retried by EventSource: say it is off.
  source.addEventListener('error', function () { document.documentElement.setAttribute('data-live', source.readyState === 2 ? 'off' : 'reconnecting'); });
  // The row of one call, fetched again and put in place (or at the top, on the first page).
  function refresh(callId) {
    var existing = document.getElementById('call-' + callId);
    if (!existing && !prepend) return;
    var url = '/dashboard/calls/' + encodeURIComponent(callId) + '/row' + (filter ? '?status=' + encodeURIComponent(filter) : '');
    fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } }).then(function (res) {
      if (res.status !== 200) return null;
      return res.text();
    }).then(function (markup) {
      if (markup === null || markup === undefined) return;
      var template = document.createElement('template');
      template.innerHTML = markup.trim();
      var row = template.content.firstElementChild;
      if (!row) return;
      var current = document.getElementById(row.id);
      followNotice(row);
      // A row the owner opened stays open when it is made again.
      var wasOpen = current && current.querySelector('details[open]');
      var details = row.querySelector('details');
      if (wasOpen && details) details.open = true;
      if (current) current.replaceWith(row);
      else if (prepend) {
        list.prepend(row);
        var empty = document.getElementById('calls-empty');
        if (empty) empty.remove();
      }
    }).catch(function () { /* the row is fetched again at the call's next change, or on reload */ });
  }
  // The followed call may have moved on between the page's answer and the stream's start: look once.
  source.addEventListener('open', function () {
    if (notice && notice.getAttribute('data-follow')) refresh(notice.getAttribute('data-follow'));
  });
  source.addEventListener('call', function (e) {
    var change;
    try { change = JSON.parse(e.data); } catch (err) { return; }
    if (!change || typeof change.callId !== 'string') return;
    refresh(change.callId);
  });
})();
`;
