#!/usr/bin/env bash
# The browser for the dashboard's end-to-end tests: Debian's Chromium, driven by playwright-core
# (npx playwright install cannot download browsers here). Idempotent.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$here/ensure-debs.sh" chromium fonts-dejavu-core
/usr/bin/chromium --version >&2
echo "ringhook: chromium is installed at /usr/bin/chromium" >&2
