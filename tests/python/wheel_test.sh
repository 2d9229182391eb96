#!/usr/bin/env bash
# `pip install .` works: builds the wheel from the source tree (scikit-build-core, the
# pinned MuJoCo found through the current Python), installs it into a scratch folder and
# makes a Gymnasium environment from the installed package. Args: PYTHON SOURCE_DIR WORK_DIR
# [WERROR [CC CXX]]: the calling build's NEREID_WERROR (ON/OFF, default OFF) and compilers, so
# that the wheel's compile commands are that build's and ccache (when installed) hands it that
# build's objects (ccache tells compilers apart by name: c++ and g++ do not share entries).
# MuJoCo (and CasADi) are found through this interpreter, as build/ found them: left to
# itself the wheel's configure takes the first python3 on PATH, which under a virtual
# environment is another interpreter with its own mujoco/include path, and every object
# missed the cache (a fresh-clone run in a venv: python_wheel 312 s).
set -euo pipefail
py="$1"; src="$2"; work="$3"; werror="${4:-OFF}"
if [ -n "${5:-}" ]; then export CC="$5"; fi
if [ -n "${6:-}" ]; then export CXX="$6"; fi
rm -rf "$work" && mkdir -p "$work"
# its build may use every core (mostly configure and links: the objects come from ccache)
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}"
start=$(date +%s)
"$py" -m pip wheel -q --no-build-isolation --no-deps \
  --config-settings=cmake.define.NEREID_WERROR="$werror" \
  --config-settings=cmake.define.MuJoCo_PYTHON="$py" "$src" -w "$work/dist"
echo "wheel built in $(($(date +%s) - start)) s"
"$py" -m pip install -q --no-deps --target "$work/site" "$work"/dist/nereid-*.whl
cd "$work"
env -u NEREID_MODEL_DIR PYTHONPATH="$work/site" "$py" - <<'PY'
import os
import gymnasium as gym
import nereid

assert nereid.__file__.startswith(os.getcwd()), nereid.__file__      # the installed copy
assert os.path.isfile(os.path.join(nereid.model_dir(), "bluerov2_heavy", "bluerov2_heavy.xml"))
env = gym.make("nereid/BlueROV2StationKeeping-v0")
obs, _ = env.reset(seed=0)
obs, reward, *_ = env.step(env.action_space.sample())
print(f"installed wheel: observation {obs.shape}, reward {reward:.3f}")
# Nereid's engine on MuJoCo's objects, from the installed package
model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
nereid.step(model, data, nstep=10)
assert data.time > 0.049
print("1 passed, 0 failed")
PY
# the console command: the packaged command line with the packaged models and scenarios
site="$work/site"
env -u NEREID_MODEL_DIR PYTHONPATH="$site" "$site/bin/nereid" version | grep -q "nereid 0.1.0"
env -u NEREID_MODEL_DIR PYTHONPATH="$site" "$site/bin/nereid" run "$site/nereid/scenarios/default.json" \
  --duration 0.5 --out "$work/run" >/dev/null
test -s "$work/run/summary.json"
env -u NEREID_MODEL_DIR PYTHONPATH="$site" "$site/bin/nereid" run "$site/nereid/scenarios/seed002/mpc_run2.json" \
  --duration 0.2 --out "$work/mpc" >/dev/null
grep -q '"controller"' "$work/mpc/summary.json"
test -f "$site/nereid/tools/validate.py"
test -f "$site/nereid/docs/validation/figures.json"  # the reference of `nereid validate --quick`
echo "console command: run, MPC run and version from the installed package"
