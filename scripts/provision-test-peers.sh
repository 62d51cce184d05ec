#!/usr/bin/env bash
# Everything the test suite drives, installed and cached: Asterisk 22 (root fs or host package),
# speech engines and SIPp, the SMS gateways, Chromium, openssl. Idempotent; says what it does.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
step() { printf '\nringhook: == %s ==\n' "$*" >&2; }
step "Debian tools (openssl, procps, util-linux)"
"$here/ensure-debs.sh" openssl procps util-linux
step "speech and the SIPp test phone"
"$here/provision-phone-tools.sh"
step "Asterisk 22 (first run builds a root file system, about a minute; cached afterwards)"
"$here/provision-asterisk.sh" >/dev/null
step "SMS gateways (Kannel, Net::SMPP)"
"$here/ensure-sms-peers.sh"
if [ -x "$here/provision-browser.sh" ]; then
  step "Chromium for the dashboard tests"
  "$here/provision-browser.sh"
fi
