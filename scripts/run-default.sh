#!/usr/bin/env bash
# Main job: set up, build, and run the default scenario headless; results land in
# results/default/ (trajectory.csv, summary.json).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/bootstrap.sh
build="${NEREID_BUILD_DIR:-build}"
"$build/nereid" run scenarios/default.json --out "${1:-results/default}"
