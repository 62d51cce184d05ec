#!/usr/bin/env bash
# Host tools for telephony: speech synthesis (provision-speech.sh: flite, espeak-ng, Festival and
# their voices, sox) and the SIPp test phone (Debian package sip-tester, binary sipp). Idempotent.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$here/provision-speech.sh"
"$here/ensure-debs.sh" sip-tester
echo "ringhook: the speech engines, their voices, sox and sipp are installed" >&2
