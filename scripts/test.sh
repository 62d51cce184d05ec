#!/usr/bin/env bash
# npm test: installs the real peers the tests drive, builds, runs every test, and ends with one
# summary line "N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/provision-test-peers.sh
echo "ringhook: building and type-checking (sources and tests)" >&2
npm run --silent build
npm run --silent typecheck
# The tests that run the real CLI or serve need dist/: it was just built (test/helpers/cli.ts buildOnce).
export RINGHOOK_TEST_DIST_BUILT=1
mkdir -p test-results
status=0
rm -f test-results/vitest.json
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@" || status=$?
node scripts/test-summary.mjs test-results/vitest.json "$status"
exit $status
