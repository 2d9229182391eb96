"""The plugin library in Python `mujoco`: load it, load every shipped model, step it.

Run by ctest with NEREID_PLUGIN_LIBRARY and NEREID_MODEL_DIR set.
"""
import math
import os
import sys

import mujoco


def main() -> int:
    mujoco.mj_loadPluginLibrary(os.environ["NEREID_PLUGIN_LIBRARY"])
    models = os.environ["NEREID_MODEL_DIR"]
    failures = 0
    for path in ("bluerov/bluerov.xml", "bluerov2_heavy/bluerov2_heavy.xml", "raybot/raybot.xml"):
        m = mujoco.MjModel.from_xml_path(os.path.join(models, path))
        d = mujoco.MjData(m)
        mujoco.mj_resetDataKeyframe(m, d, 0)
        d.xfrc_applied[1, 0] = 10.0  # surge push on the vehicle
        for _ in range(500):
            mujoco.mj_step(m, d)
        ok = all(math.isfinite(v) for v in d.qvel) and d.qvel[0] > 0.01
        print(f"{path}: qvel {list(d.qvel)} -> {'ok' if ok else 'FAILED'}")
        failures += 0 if ok else 1
    print(f"{3 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
