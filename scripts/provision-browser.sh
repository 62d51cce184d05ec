#!/usr/bin/env bash
# The browser for the dashboard's end-to-end tests: Debian's Chromium, driven by playwright-core
# (npx playwright install cannot download browsers here). Idempotent.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The headless shell: the same Chromium build without the browser's own UI (test/helpers/browser.ts).
"$here/ensure-debs.sh" chromium-headless-shell fonts-dejavu-core
/usr/bin/chromium-headless-shell --version >&2
echo "ringhook: chromium's headless shell is installed at /usr/bin/chromium-headless-shell" >&2
