#!/usr/bin/env python3
"""The Python API operations tools/fuzz/fuzz.py runs (kind `python`), and their runner.

Each operation calls Nereid's Python API (nereid.load, nereid.step, nereid.forward,
nereid.reset, nereid.rollout, nereid.Stepper, the RL environments) with one bad input:
a bad path, a bad array (shape, dtype, NaN), a bad number, or calls from several threads.
OPS maps a name to its variants, each with its argument and its expectation:

  "error"  known-bad input: the call must raise an exception (with a message)
  "ok"     the call must not raise
  None     either (only the oracle's other rules apply)

Whatever the expectation, a raised exception must be one of CLEAR (ValueError, so
nereid.Error, TypeError, RuntimeError, ..., and Gymnasium's own error for a bad seed)
with a non-empty message: an AttributeError, a KeyError or an empty message is unclear.
A third element "direct" marks a variant that calls MuJoCo itself (mujoco.MjData):
outside Nereid's calls MuJoCo's own log handler is kept, and it may write
MUJOCO_LOG.TXT; after any other operation that file is a failure.

Run as a script, `pyapi.py OPS.json` runs the listed [name, variant] pairs in this one
process and prints, for each, "@@BEGIN <name>/<variant>" before the call and
"@@END <json>" after it, flushed, so that a crash (the process killed by a signal) is
pinned on the operation that began last; the JSON says what the call raised and whether
MUJOCO_LOG.TXT appeared (it is then removed). The importing side (fuzz.py) needs only OPS
and CLEAR: nereid, NumPy and MuJoCo are imported by the runner, not at import.
"""
import json
import os
import shutil
import sys
import tempfile
import threading
import traceback

# exception types a bad input may raise (their subclasses included: nereid.Error,
# DivergenceError and MuJoCoError are ValueErrors; FileNotFoundError is an OSError)
CLEAR = ("builtins.ValueError", "builtins.TypeError", "builtins.RuntimeError", "builtins.OverflowError",
         "builtins.MemoryError", "builtins.OSError", "builtins.IndexError", "gymnasium.error.Error")

OPS = {}


def op(*variants):
    """Registers an operation; each variant is (argument, expectation)."""
    def register(fn):
        OPS[fn.__name__] = (list(variants), fn)
        return fn
    return register


NAN, INF = float("nan"), float("inf")
HEAVY = "bluerov2_heavy"
TASK = "BlueROV2StationKeeping-v0"


class Context:
    """What the operations share in one process: the working folder and loaded models."""

    def __init__(self, folder):
        import numpy
        import nereid
        self.np, self.nereid, self.folder = numpy, nereid, folder

    def heavy(self):
        """A fresh (model, data) of the BlueROV2 Heavy, controls at neutral."""
        m, d = self.nereid.load(self.nereid.model_path(HEAVY))
        d.ctrl[:] = 1500.0
        return m, d

    def path(self, name):
        return os.path.join(self.folder, name)

    def write(self, name, text):
        with open(self.path(name), "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        return self.path(name)


def in_threads(n, fn):
    """Runs fn(k) for k < n in n threads; raises the first exception any of them raised."""
    errors = []

    def body(k):
        try:
            fn(k)
        except BaseException as e:  # noqa: B902 - handed to the caller
            errors.append(e)
    threads = [threading.Thread(target=body, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


# ---- loading ------------------------------------------------------------------------------

@op(("missing", "error"), ("folder", "error"), ("empty", "error"), ("nul", "error"), ("nul-scenario", "error"),
    ("number", "error"), ("dev-zero-json", "error"), ("dev-null-xml", "error"), ("percent-ref", "error"),
    ("bytes", None))
def load_bad_path(c, kind):
    heavy = c.nereid.model_path(HEAVY)
    if kind == "missing":
        c.nereid.load("/nonexistent/model.xml")
    elif kind == "folder":
        c.nereid.load(os.path.dirname(heavy))
    elif kind == "empty":
        c.nereid.load("")
    elif kind == "nul":  # C-string truncation would load the model itself
        c.nereid.load(heavy + "\0.bak")
    elif kind == "nul-scenario":
        c.nereid.load(c.write("nul.json", json.dumps({"model": heavy + "\0.bak"})))
    elif kind == "number":
        c.nereid.load(123)
    elif kind == "dev-zero-json":  # an endless file
        link = c.path("zero.json")
        if not os.path.lexists(link):
            os.symlink("/dev/zero", link)
        c.nereid.load(link)
    elif kind == "dev-null-xml":
        link = c.path("null.xml")
        if not os.path.lexists(link):
            os.symlink("/dev/null", link)
        c.nereid.load(link)
    elif kind == "percent-ref":  # issue 34: '&#37;' is '%' once the XML parser has decoded it
        with open(heavy) as f:
            text = f.read().replace('class="visual"', 'class="a&#37;n&#x25;n&#X25;n&#0037;s"', 1)
        text = text.replace('file="', 'file="' + os.path.dirname(heavy) + "/")  # includes stay found
        c.nereid.load(c.write("percent.xml", text))
    else:
        c.nereid.load(heavy.encode())


# ---- stepping -----------------------------------------------------------------------------

@op(("nan", "error"), ("inf", "error"), ("-inf", "error"), ("1e300", None), ("one-nan", "error"))
def step_bad_ctrl(c, value):
    m, d = c.heavy()
    if value == "one-nan":
        d.ctrl[m.nu - 1] = NAN
    else:
        d.ctrl[:] = float(value)
    c.nereid.step(m, d, 10)


@op(("nan", "error"), ("inf", "error"))
def forward_bad_ctrl(c, value):
    m, d = c.heavy()
    d.ctrl[0] = float(value)
    c.nereid.forward(m, d)


@op((-1, "error"), (2 ** 63, "error"), (2 ** 64, "error"), (1.5, "error"), ("nan", "error"), ("10", "error"),
    (None, "error"), (0, None))
def step_bad_nstep(c, n):
    m, d = c.heavy()
    c.nereid.step(m, d, NAN if n == "nan" else n)


@op(("qpos-nan", "error"), ("qvel-inf", "error"), ("qpos-huge", "error"), ("time-nan", None))
def step_bad_state(c, kind):
    m, d = c.heavy()
    if kind == "qpos-nan":
        d.qpos[:] = NAN
    elif kind == "qvel-inf":
        d.qvel[0] = INF
    elif kind == "qpos-huge":
        d.qpos[0] = 1e300
    else:
        d.time = NAN
    c.nereid.step(m, d, 20)


@op(("other-model", "error"), ("plain-mjdata", "error", "direct"))
def step_mismatched_data(c, kind):
    import mujoco
    m, _ = c.heavy()
    if kind == "other-model":
        _, d = c.nereid.load(c.nereid.model_path("bluerov"))
    else:
        d = mujoco.MjData(m)  # added mass dropped: nereid.make_data is needed
    c.nereid.step(m, d, 5)


@op((-2, "error"), (1, "error"), (2 ** 31, "error"), (2 ** 63, "error"), (-1, None), (0, "ok"), (0.5, "error"),
    ("Stepper -2", "error"), ("Stepper 1", "error"))
def reset_bad_key(c, key):
    m, d = c.heavy()
    if isinstance(key, str):  # the Stepper itself
        c.nereid.stepper(m, d).reset(int(key.split()[1]))
    else:
        c.nereid.reset(m, d, key)


@op(("engine", "error"), ("integrator", "error"), ("constraints", "error"), ("timestep-nan", "error"),
    ("timestep-0", "error"), ("timestep--1", "error"), ("timestep-inf", "error"), ("timestep-1e300", "error"))
def stepper_bad_option(c, which):
    m, d = c.heavy()
    if which.startswith("timestep"):
        value = {"timestep-nan": NAN, "timestep-0": 0.0, "timestep--1": -1.0, "timestep-inf": INF,
                 "timestep-1e300": 1e300}[which]
        c.nereid.Stepper(m, d, timestep=value).step(1)
    else:
        c.nereid.Stepper(m, d, **{which: "bogus"})


@op(("changed", "error"), ("stepper", "error"), ("equal", "ok"))
def timestep_above_sensor_period(c, which):
    """A time step longer than a Nereid sensor's period (the Heavy's IMU samples at 100 Hz),
    set after loading or given to a stepper on data made before: refused, as at load."""
    m, d = c.nereid.load(c.nereid.model_path("bluerov2_heavy_sensors"))
    if which == "stepper":
        c.nereid.Stepper(m, d, timestep=0.02).step(1)
        return
    m.opt.timestep = 0.02 if which == "changed" else 0.01
    c.nereid.step(m, d, 2)


@op(("nameless", "ok"), ("twin", "ok"))
def nameless_objects(c, which):
    """A vehicle, joint and sensor without names (found by hand: the viewer's report failed and
    the outputs mislabelled them): loaded, stepped and given to the ROS bridge's vehicle search;
    beside a second vehicle literally named as the nameless one's label (body1) the nameless
    one is body1_, and no two vehicles share a name."""
    from nereid import ros
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "tests", "data")
    m, d = c.nereid.load(os.path.join(data, "nameless_twin.xml" if which == "twin" else "nameless.xml"))
    c.nereid.step(m, d, 5)
    names = [v.name for v in ros.find_vehicles(m)]
    if len(names) != len(set(names)):
        raise AssertionError(f"vehicles share a name: {names}")


@op(("other-model", "error"), ("not-data", "error"), ("on-off", "ok"))
def exact_sensors_bad_input(c, which):
    """nereid.set_exact_sensors on a data of another model, on something that is not a data,
    and switched on then off on the Heavy's suite (stepped between)."""
    m, d = c.nereid.load(c.nereid.model_path("bluerov2_heavy_sensors"))
    if which == "other-model":
        c.nereid.set_exact_sensors(m, c.heavy()[1])
    elif which == "not-data":
        c.nereid.set_exact_sensors(m, "data")
    else:
        c.nereid.set_exact_sensors(m, d)
        c.nereid.step(m, d, 3)
        c.nereid.set_exact_sensors(m, d, False)
        c.nereid.step(m, d, 3)


@op(("current-nan", "error"), ("current-inf", "error"), ("drive-body", "error"), ("drive-nan", "error"),
    ("drive-short", "error"), ("drive-world", "error"), ("drive-id-past", "error"), ("drive-id", "ok"),
    ("drive-bool", "error"), ("drive-id-huge", "error"))
def stepper_bad_input(c, which):
    m, d = c.heavy()
    s = c.nereid.stepper(m, d)
    if which == "current-nan":
        s.set_current(NAN, 0.0, 0.0)
    elif which == "current-inf":
        s.set_current(0.0, 0.0, -INF)
    elif which == "drive-body":
        s.drive("no_such_body", [0.0] * 6)
    elif which == "drive-world":
        s.drive(0, [0.0] * 6)
    elif which == "drive-id-past":
        s.drive(m.nbody, [0.0] * 6)
    elif which == "drive-bool":
        s.drive(True, [0.0] * 6)
    elif which == "drive-id-huge":
        s.drive(2**70, [0.0] * 6)
    elif which == "drive-id":
        s.drive(m.body(1).id, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    elif which == "drive-nan":
        s.drive(m.body(1).name, [0.0, NAN, 0.0, 0.0, 0.0, 0.0])
    else:
        s.drive(m.body(1).name, [0.0] * 5)


# ---- rollouts -----------------------------------------------------------------------------

@op(("long", "error"), ("short", "error"), ("3d", "error"), ("scalar", "error"), ("strings", "error"),
    ("objects", "error"), ("complex", "error"), ("nan", "error"), ("empty", None), ("ints", None))
def rollout_bad_state(c, kind):
    np = c.np
    m, d = c.heavy()
    state = c.nereid.get_state(m, d)
    n = state.size
    init = {"long": lambda: np.zeros(n + 1), "short": lambda: state[:-1], "3d": lambda: state[None, None, :],
            "scalar": lambda: np.float64(1.0), "strings": lambda: np.array(["abc"] * n),
            "objects": lambda: np.array([None] * n, dtype=object), "complex": lambda: state + 1j,
            "nan": lambda: np.full(n, NAN), "empty": lambda: np.zeros((0, n)),
            "ints": lambda: state.astype(np.int64)}[kind]()
    control = np.full((10, m.nu), 1500.0)
    c.nereid.rollout(m, d, init, control)


@op(("nu+1", "error"), ("1d", "error"), ("4d", "error"), ("nan", "error"), ("inf", "error"), ("strings", "error"),
    ("none", "error"), ("nstep-mismatch", "error"), ("zero-steps", None))
def rollout_bad_control(c, kind):
    np = c.np
    m, d = c.heavy()
    state = c.nereid.get_state(m, d)
    good = np.full((2, 10, m.nu), 1500.0)
    kwargs = {}
    if kind == "nu+1":
        control = np.zeros((2, 10, m.nu + 1))
    elif kind == "1d":
        control = np.zeros(m.nu)
    elif kind == "4d":
        control = good[None]
    elif kind in ("nan", "inf"):
        control = good.copy()
        control[1, 4, 2] = NAN if kind == "nan" else INF
    elif kind == "strings":
        control = np.array([["x"] * m.nu] * 10)
    elif kind == "none":
        control, kwargs = None, {"nstep": 10}
    elif kind == "nstep-mismatch":
        control, kwargs = good, {"nstep": 11}
    else:
        control = np.zeros((2, 0, m.nu))
    c.nereid.rollout(m, d, np.tile(state, (2, 1)), control, **kwargs)


@op((0, "error"), (-1, "error"), (2 ** 63, "error"), (100000, "error"), (1.5, "error"), (4, "ok"))
def rollout_bad_nthread(c, nthread):
    np = c.np
    m, d = c.heavy()
    state = np.tile(c.nereid.get_state(m, d), (3, 1))
    c.nereid.rollout(m, d, state, np.full((5, m.nu), 1500.0), nthread=nthread)


# ---- threads ------------------------------------------------------------------------------

@op(("same-data", "ok"), ("own-data", "ok"), ("rollout", "ok"), ("release", "ok"), ("load", "ok"),
    ("nan-in-one", "error"))
def threads(c, kind):
    np = c.np
    m, d = c.heavy()
    if kind == "same-data":
        in_threads(4, lambda k: c.nereid.step(m, d, 25))
        if abs(d.time - 100 * m.opt.timestep) > 1e-9:
            raise AssertionError(f"4 x 25 steps from 4 threads left time {d.time}, not {100 * m.opt.timestep}")
    elif kind == "own-data":
        datas = [c.nereid.make_data(m) for _ in range(4)]
        for x in datas:
            x.ctrl[:] = 1500.0
        in_threads(4, lambda k: c.nereid.step(m, datas[k], 25))
    elif kind == "rollout":
        state = np.tile(c.nereid.get_state(m, d), (2, 1))
        in_threads(3, lambda k: c.nereid.rollout(m, d, state, np.full((10, m.nu), 1500.0), nthread=2))
    elif kind == "release":
        def churn(k):
            for _ in range(20):
                c.nereid.stepper(m, d)
                c.nereid.release(m, d)
        in_threads(4, churn)
    elif kind == "load":
        in_threads(3, lambda k: c.nereid.load(c.nereid.model_path(HEAVY)))
    else:
        datas = [c.nereid.make_data(m) for _ in range(3)]
        for x in datas:
            x.ctrl[:] = 1500.0
        datas[1].ctrl[3] = NAN
        in_threads(3, lambda k: c.nereid.step(m, datas[k], 10))


# ---- RL environments ----------------------------------------------------------------------

def make_env(c):
    from nereid.envs import NereidEnv
    env = NereidEnv(TASK)
    env.reset(seed=0)
    return env


@op(("nan", "error"), ("inf", "error"), ("shape", "error"), ("strings", "error"), ("none", "error"),
    ("closed", "error"), ("huge", None), ("float64", None))
def env_bad_action(c, kind):
    np = c.np
    env = make_env(c)
    a = np.zeros(env.action_space.shape, np.float32)
    if kind in ("nan", "inf"):
        a[1] = NAN if kind == "nan" else INF
    elif kind == "shape":
        a = np.zeros(env.action_space.shape[0] + 1, np.float32)
    elif kind == "strings":
        a = np.array(["x"] * env.action_space.shape[0])
    elif kind == "none":
        a = None
    elif kind == "closed":
        env.close()
    elif kind == "huge":
        a[:] = 1e30
    else:
        a = a.astype(np.float64)
    env.step(a)


@op((-1, "error"), (2 ** 64, "error"), ("nan", "error"), (2 ** 63 - 1, None))
def env_bad_seed(c, seed):
    env = make_env(c)
    env.reset(seed=NAN if seed == "nan" else seed)


@op(("close-twice-threads", "ok"), ("step-threads", "ok"), ("unknown-task", "error"), ("envs-0", "error"),
    ("envs-huge", "error"), ("threads-0", "error"), ("envs-2^63", "error"), ("model-dir", "error"),
    ("observation-unknown", "error"), ("observation-no-sensors", "error"), ("observation-sensors", "ok"),
    ("observation-sensors-quay-wall", "ok"), ("observation-sensors-docking", "ok"))
def env_misc(c, kind):
    np = c.np
    if kind == "close-twice-threads":
        env = make_env(c)
        in_threads(2, lambda k: env.close())
    elif kind == "step-threads":
        env = make_env(c)
        a = np.zeros(env.action_space.shape, np.float32)
        in_threads(2, lambda k: [env.step(a) for _ in range(5)])
    elif kind == "unknown-task":
        c.nereid.BatchEnv("NoSuchTask-v0", 1, 1)
    elif kind == "model-dir":
        c.nereid.BatchEnv(TASK, 1, 1, "/nonexistent")
    elif kind == "observation-unknown":
        c.nereid.BatchEnv(TASK, 1, 1, c.nereid.model_dir(), "x" * 5000)
    elif kind == "observation-no-sensors":  # a model folder with the docking model but not its sensor suite
        with tempfile.TemporaryDirectory() as folder:
            os.makedirs(os.path.join(folder, "docking"))
            shutil.copy(os.path.join(c.nereid.model_dir(), "docking", "bluerov_docking.xml"),
                        os.path.join(folder, "docking"))
            c.nereid.BatchEnv("BlueROVDocking-v0", 1, 1, folder, "sensors")
    elif kind in ("observation-sensors", "observation-sensors-quay-wall", "observation-sensors-docking"):
        task = {"observation-sensors": TASK, "observation-sensors-quay-wall": "RaybotQuayWall-v0",
                "observation-sensors-docking": "BlueROVDocking-v0"}[kind]
        env = c.nereid.BatchEnv(task, 2, 2, c.nereid.model_dir(), "sensors")
        env.reset(1)
        env.step(np.zeros((2, env.action_size), np.float32))
    else:
        envs, nthreads = {"envs-0": (0, 1), "envs-huge": (10 ** 6, 1), "threads-0": (1, 0),
                          "envs-2^63": (2 ** 63, 1)}[kind]
        c.nereid.BatchEnv(TASK, envs, nthreads)


# ---- the runner ---------------------------------------------------------------------------

def describe(e):
    return {"type": type(e).__name__, "mro": [f"{t.__module__}.{t.__qualname__}" for t in type(e).__mro__],
            "message": str(e)[:2000],
            "where": traceback.format_exc(limit=-2)[-600:]}


def main(argv):
    with open(argv[1]) as f:
        todo = json.load(f)
    ctx = Context(os.getcwd())
    for name, variant in todo:
        variants, fn = OPS[name]
        arg = variants[variant][0]
        print(f"@@BEGIN {name}/{variant}", flush=True)
        try:
            fn(ctx, arg)
            result = {"op": name, "variant": variant, "raised": None}
        except BaseException as e:  # noqa: B902 - reported, judged by fuzz.py
            result = {"op": name, "variant": variant, "raised": describe(e)}
        result["log_file"] = os.path.exists("MUJOCO_LOG.TXT")
        if result["log_file"]:
            os.remove("MUJOCO_LOG.TXT")
        print("@@END " + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
