#!/usr/bin/env bash
# Idempotent set-up and build for a fresh machine: Debian packages (apt-get), the pinned
# MuJoCo wheel (pip), then a CMake configure + build into ./build. Each step is skipped
# when what it provides is already present. Used by scripts/run-default.sh,
# scripts/test.sh and .ci/run.
#
# Environment: NEREID_BUILD_DIR (default build), NEREID_BUILD_TYPE (default Release),
# NEREID_WERROR (ON in CI: warnings are errors for Nereid's own code).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

say() { printf '[bootstrap] %s\n' "$*"; }
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

# 1. Debian packages
apt_pkgs=(build-essential pkg-config libeigen3-dev nlohmann-json3-dev doctest-dev libglfw3-dev
  libcli11-dev  # the command line of nereid and nereid-view (src/cli/arguments.h)
  zlib1g-dev xvfb xauth libgl1-mesa-dri  # nereid-view (PNG, headless test)
  libosmesa6  # mujoco.Renderer headless (MUJOCO_GL=osmesa) in the Python tests
  ffmpeg  # nereid-view --record: MP4 (tests/viewer/headless_test.sh)
  ccache  # the wheel test's second build of the sources takes this build's objects
  ninja-build)  # the builds' generator: one graph of all their targets' objects
command -v cmake >/dev/null 2>&1 || apt_pkgs+=(cmake)
command -v python3 >/dev/null 2>&1 || apt_pkgs+=(python3 python3-pip)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
else
  say "Debian packages present"
fi

# 2. Python packages (MuJoCo pinned in requirements.txt). An interpreter whose packages
# are managed by the system (PEP 668, e.g. Debian's /usr/bin/python3) gets a project
# virtual environment in .venv instead.
PY="${PYTHON:-python3}"
if [ -x .venv/bin/python ] && [ -z "${PYTHON:-}" ]; then PY=.venv/bin/python; fi
pin="$(grep -E '^mujoco==' requirements.txt | head -n1 | cut -d= -f3)"
casadi_pin="$(grep -E '^casadi==' requirements.txt | head -n1 | cut -d= -f3)"
pip_install() {  # pip install "$@", or into .venv where the system manages the interpreter
  if ! "$PY" -m pip install -q --disable-pip-version-check "$@" 2>/tmp/nereid-pip.log; then
    if grep -q "externally-managed-environment" /tmp/nereid-pip.log; then
      say "system-managed Python: creating .venv"
      "$PY" -m venv .venv 2>/dev/null || {
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
        "$PY" -m venv .venv
      }
      PY=.venv/bin/python
      "$PY" -m pip install -q --disable-pip-version-check "$@"
    else
      cat /tmp/nereid-pip.log >&2
      exit 1
    fi
  fi
}
# What the C++ build itself needs (CMake finds MuJoCo, CasADi and pybind11 through Python)
# is installed first; every other package (the tests' and tools': SciPy, Capytaine,
# Matplotlib, torch, Ray, the ROS 2 wheels, ...) installs in the background while the
# build compiles, and the script waits for it at the end (on a fresh machine the two take
# minutes each; docs/design.md, "CI time budget").
build_pkgs=()
for name in mujoco numpy pybind11 scikit-build-core casadi; do
  build_pkgs+=("$(grep -E "^${name}([=<>!~ ]|\$)" requirements.txt | head -n1)")
done
have_build="$("$PY" -c 'import mujoco, numpy, pybind11, scikit_build_core, casadi; print(mujoco.__version__ + " " + casadi.__version__)' 2>/dev/null || true)"
if [ "$have_build" != "$pin $casadi_pin" ]; then
  say "pip install ${build_pkgs[*]} (what the build needs; found '${have_build:-incomplete}')"
  pip_install "${build_pkgs[@]}"
fi
rest_pip() {  # the other Python packages; run in the background during the build
  local have
  have="$("$PY" -c 'import mujoco, numpy, gymnasium, pytest, pybind11, scikit_build_core, matplotlib, casadi, dtaidistance, capytaine, scipy; print(mujoco.__version__ + " " + casadi.__version__)' 2>/dev/null || true)"
  if [ "$have" != "$pin $casadi_pin" ]; then
    say "pip install -r requirements.txt (mujoco $pin, casadi $casadi_pin; found '${have:-incomplete}')"
    pip_install -r requirements.txt
  else
    say "Python packages present (mujoco $pin, casadi $casadi_pin)"
  fi
  # RL extras (PPO smoke test, Ray); NEREID_SKIP_RL=1 skips them (their tests are then skipped)
  if [ "${NEREID_SKIP_RL:-0}" != "1" ]; then
    if ! "$PY" -c 'import torch, stable_baselines3, ray' 2>/dev/null; then
      say "pip install -r requirements-rl.txt"
      pip_install "$(grep -E '^torch==' requirements-rl.txt)"
      pip_install -r requirements-rl.txt
    else
      say "RL packages present"
    fi
  fi
  # ROS 2 wheels for the bridge (nereid ros; requirements-ros.txt, about 35 s); NEREID_SKIP_ROS=1
  # skips them (tests/python/test_ros.py is then skipped)
  if [ "${NEREID_SKIP_ROS:-0}" != "1" ]; then
    if ! "$PY" -c 'import rclpy, rmw_fastrtps_cpp, nav_msgs.msg, sensor_msgs.msg, geometry_msgs.msg, rosgraph_msgs.msg, std_msgs.msg, visualization_msgs.msg, mcap, mcap_ros2' 2>/dev/null; then
      say "pip install -r requirements-ros.txt"
      pip_install -r requirements-ros.txt
    else
      say "ROS 2 packages present"
    fi
  fi
}
# 3. configure + build (MuJoCo is found through this interpreter)
pyexe="$("$PY" -c 'import sys; print(sys.executable)')"
build="${NEREID_BUILD_DIR:-build}"
type="${NEREID_BUILD_TYPE:-Release}"
werror="${NEREID_WERROR:-OFF}"
jobs="$(nproc 2>/dev/null || echo 2)"
source scripts/cmake_generator.sh  # Ninja, installed above
nereid_generator "$build"
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE="$type" -DNEREID_WERROR="$werror" \
  -DPython3_EXECUTABLE="$pyexe" -DMuJoCo_PYTHON="$pyexe" >/dev/null
# (after the configure, which imports mujoco and casadi: pip may replace numpy meanwhile)
pip_log="$(mktemp "${TMPDIR:-/tmp}/nereid-pip-rest.XXXXXX")"
rest_pip >"$pip_log" 2>&1 &
pip_pid=$!
trap 'pkill -P "$pip_pid" 2>/dev/null; kill "$pip_pid" 2>/dev/null || true' EXIT  # a failed build leaves no pip running
cmake --build "$build" -j "$jobs"
say "built into $build"
# 4. the packages that installed during the build
trap - EXIT
if ! wait "$pip_pid"; then
  cat "$pip_log" >&2
  say "the Python packages did not install (above)"
  exit 1
fi
cat "$pip_log"
rm -f "$pip_log"
