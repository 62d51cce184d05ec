#!/usr/bin/env bash
# Host tools for telephony: speech synthesis (flite, espeak-ng), audio conversion (sox) and the
# SIPp test phone (Debian package sip-tester, binary sipp). Idempotent.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$here/ensure-debs.sh" flite espeak-ng sox sip-tester
echo "ringhook: flite, espeak-ng, sox and sipp are installed" >&2
