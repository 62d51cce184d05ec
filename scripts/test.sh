#!/usr/bin/env bash
# npm test: installs the real peers the tests drive, builds, runs every test, and ends with one
# summary line "N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
started=$SECONDS
bash scripts/provision-test-peers.sh
# The test files read what was provisioned instead of checking it again each (test/helpers/asterisk.ts).
export RINGHOOK_TEST_PEERS_PROVISIONED=1
provisioned=$SECONDS
echo "ringhook: building and type-checking (sources and tests)" >&2
npm run --silent build
# A quick run after this one need not build again (test/helpers/global-setup.ts reads the stamp).
date -u +%FT%TZ >dist/.built-for-tests
npm run --silent typecheck
# The tests that run the real CLI or serve need dist/: it was just built (test/helpers/cli.ts buildOnce).
export RINGHOOK_TEST_DIST_BUILT=1
mkdir -p test-results
status=0
rm -f test-results/vitest.json
built=$SECONDS
# Each file's CPU, peers included, where the machine lets us count it (root, cgroup v1 cpuacct).
cpu_root=/sys/fs/cgroup/cpuacct/ringhook-tests-$$
if [ -w /sys/fs/cgroup/cpuacct ] && mkdir "$cpu_root" 2>/dev/null; then
  export RINGHOOK_TEST_CPU_CGROUP=$cpu_root
fi
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@" || status=$?
# Apart, so that the next slowdown shows where it is (#44): the peers, the build, the tests.
echo "ringhook: peers $((provisioned - started)) s, build and typecheck $((built - provisioned)) s, tests $((SECONDS - built)) s" >&2
if [ -n "${RINGHOOK_TEST_CPU_CGROUP:-}" ]; then node scripts/test-cpu.mjs "$cpu_root" test-results/cpu.json; fi
node scripts/test-summary.mjs test-results/vitest.json "$status"
exit $status
