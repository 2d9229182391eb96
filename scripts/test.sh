#!/usr/bin/env bash
# Test job: set up, build, and run the test suite through ctest: every test but those
# labelled `long` (the full `nereid validate`; `ctest -L long` runs them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/bootstrap.sh
build="${NEREID_BUILD_DIR:-build}"
ctest --test-dir "$build" --output-on-failure -LE long -j "$(nproc 2>/dev/null || echo 2)"
