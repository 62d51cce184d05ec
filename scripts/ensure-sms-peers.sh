#!/usr/bin/env bash
# Installs the SMS gateways the SMS tests run against (see docs/sms.md):
#   kannel          bearerbox + smsbox: the sendsms HTTP gateway
#   kannel-extras   /usr/lib/kannel/test/fakesmsc: a fake SMS centre that prints what it gets
#   libnet-smpp-perl  Net::SMPP, scripted as an SMSC by test/helpers/smpp-server.pl
# Usage: scripts/ensure-sms-peers.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/ensure-debs.sh" kannel kannel-extras libnet-smpp-perl
# The Debian package starts no daemon here, but make sure a system kannel does not hold our ports.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet kannel 2>/dev/null; then
  echo "ringhook: note: the system kannel service is running; the tests use their own ports and config" >&2
fi
