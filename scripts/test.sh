#!/usr/bin/env bash
# npm test: installs the real peers the tests drive, builds, runs every test, and ends with one
# summary line "N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/provision-test-peers.sh
echo "ringhook: building and type-checking (sources and tests)" >&2
npm run --silent build
npm run --silent typecheck
mkdir -p test-results
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@" || status=$?
node -e '
  const fs = require("fs");
  let r;
  try { r = JSON.parse(fs.readFileSync("test-results/vitest.json", "utf8")); } catch { console.log("0 passed, 1 failed (the test runner wrote no results)"); process.exit(0); }
  const skipped = r.numPendingTests + (r.numTodoTests || 0);
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
'
exit $status
