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
    # a config value with bytes that are not UTF-8: a ValueError naming the key, with the
    # bytes written as \xNN (not a UnicodeDecodeError from the message)
    text = open(os.path.join(models, "bluerov/bluerov.xml"), "rb").read()
    bad = os.path.join(os.environ.get("TMPDIR", "/tmp"), "nereid_bad_utf8.xml")
    with open(bad, "wb") as f:
        f.write(text.replace(b'value="34.96 103.25', b'value="34.96\xff 103.25', 1))
    try:
        mujoco.MjModel.from_xml_path(bad)
        ok, what = False, "loaded"
    except ValueError as e:
        ok, what = "quadratic_damping" in str(e) and "\\xFF" in str(e), str(e)
    except Exception as e:  # noqa: BLE001 - any other type is the failure being tested
        ok, what = False, f"{type(e).__name__}: {e}"
    print(f"non-UTF-8 config value: {what[:200]} -> {'ok' if ok else 'FAILED'}")
    failures += 0 if ok else 1
    print(f"{4 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
