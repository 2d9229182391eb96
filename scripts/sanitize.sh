#!/usr/bin/env bash
# Sanitizer runs of Nereid's C++ tests (CI runs this after the test suite):
#   - AddressSanitizer + UndefinedBehaviorSanitizer (leak checks included) over every C++
#     test program but the viewer's and the MPC's (CasADi's own code is not instrumented
#     and dominates their run time). UBSan's `null` and `alignment` checks are left out:
#     they instrument every pointer use in Eigen's templates, and leaving them out saves
#     29 % of the build and 37 % of the run (828 s and 214 s against 588 s and 134 s, 2
#     cores). Most null loads and stores still stop the run as ASan's SEGV report, and
#     Eigen asserts its fixed-size objects' alignment (no NDEBUG here); a null `this`, a
#     reference bound to null and misaligned access outside Eigen go unchecked
#     (docs/robustness.md). `float-cast-overflow`, not part of `undefined`, is added;
#   - ThreadSanitizer over the RL batch tests (worker pool, per-worker error hand-off).
# MuJoCo comes from its wheel, uninstrumented: what is checked is Nereid's code and its use
# of MuJoCo's memory. Usage: scripts/sanitize.sh [asan|tsan|all] (default all). Expects
# scripts/bootstrap.sh to have run (MuJoCo, Eigen, doctest installed).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
what="${1:-all}"
PY="${PYTHON:-python3}"
pyexe="$("$PY" -c 'import sys; print(sys.executable)')"
jobs="$(nproc 2>/dev/null || echo 2)"
say() { echo "[sanitize] $*"; }
source scripts/cmake_generator.sh

configure() {  # dir flags
  # -O1 without debug information: Eigen-heavy code compiles several times faster, and the
  # reports still name the functions. Common headers precompiled for the libraries and
  # nereid_tests (NEREID_PCH; the ASan build 588 s -> 555 s on 2 cores, measured with the
  # Makefiles and through a timing launcher), so no ccache, which does not
  # cache such compiles (nothing else builds with these flags anyway). (A unity build took
  # 28 % less CPU on a loaded machine but 11.3 min of wall time for the ASan build on an
  # idle 2-core one, its large merged sources compiling one after another: not used;
  # docs/design.md.)
  local generator
  nereid_generator "$1"  # scripts/cmake_generator.sh: Ninja where installed
  cmake -S . -B "$1" "${generator[@]}" -DCMAKE_BUILD_TYPE=None -DNEREID_WERROR=OFF \
    -DNEREID_BUILD_PYTHON=OFF -DNEREID_BUILD_VIEWER=OFF -DNEREID_BUILD_MPC=OFF \
    -DNEREID_PCH=ON -DNEREID_CCACHE=OFF \
    -DCMAKE_CXX_FLAGS="-O1 $2 -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS="$2" -DCMAKE_SHARED_LINKER_FLAGS="$2" \
    -DPython3_EXECUTABLE="$pyexe" -DMuJoCo_PYTHON="$pyexe" >/dev/null
}

if [ "$what" = asan ] || [ "$what" = all ]; then
  dir="${NEREID_ASAN_DIR:-build-asan}"
  configure "$dir" "-fsanitize=address,undefined,float-cast-overflow -fno-sanitize=alignment,null \
    -fno-sanitize-recover=undefined,float-cast-overflow"
  say "building the C++ tests with ASan+UBSan into $dir"
  cmake --build "$dir" -j "$jobs" --target nereid_tests nereid_uk_tests nereid_rl_tests \
    nereid_tether_tests nereid_vms_tests nereid_sensor_tests
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  # the programs' ctest entries (a suite each, label `unit`), $jobs at a time: one program
  # after another left a core idle for the whole run
  say "ASan+UBSan: the C++ tests' suites (ctest -L unit)"
  ctest --test-dir "$dir" -L unit -j "$jobs" --output-on-failure
fi

if [ "$what" = tsan ] || [ "$what" = all ]; then
  dir="${NEREID_TSAN_DIR:-build-tsan}"
  configure "$dir" "-fsanitize=thread"
  say "building the RL tests with TSan into $dir"
  cmake --build "$dir" -j "$jobs" --target nereid_rl_tests
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
  say "TSan: tests/rl/nereid_rl_tests"
  (cd "$dir/tests" && ./rl/nereid_rl_tests --minimal)
fi
say "done"
