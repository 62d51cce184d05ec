#!/usr/bin/env bash
# npm start: installs what a call needs (speech engine, Asterisk 22; cached after the first run),
# builds if needed, then runs `ringhook serve`. Configure with RINGHOOK_* variables (README).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ "${RINGHOOK_TELEPHONY:-}" != "off" ] && [ -z "${RINGHOOK_ARI_URL:-}" ]; then
  echo "ringhook: checking the speech engine and Asterisk (the first run builds Asterisk's root file system: about a minute)" >&2
  bash scripts/provision-speech.sh
  bash scripts/provision-asterisk.sh >/dev/null
fi
if [ ! -f dist/bundle/main.js ] || [ -n "$(find src -newer dist/bundle/main.js -name '*.ts' -print -quit)" ]; then
  echo "ringhook: building" >&2
  npm run --silent build
fi
# The ringhook command on the PATH, so that it works from any folder (said when it is put there;
# a file of that name that is not ringhook's is never replaced).
# RINGHOOK_CLI_DIR chooses the folder (default: /usr/local/bin for root, else ~/.local/bin).
node bin/ringhook.js install-cli --quiet ${RINGHOOK_CLI_DIR:+--dir "$RINGHOOK_CLI_DIR"} ||
  echo "ringhook: no ringhook command on the PATH (see above); node bin/ringhook.js works from this folder" >&2
# V8's young generation capped at 4 MB a half: serve's peak memory under load ~15 MB lower (bench/NOTES.md, #58).
exec node --max-semi-space-size=4 bin/ringhook.js serve
