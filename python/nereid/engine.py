"""Nereid's engine on MuJoCo's own Python objects (docs/python.md).

    import mujoco, nereid
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    nereid.step(model, data, nstep=100)   # Nereid's stepper, in place
    mujoco.mj_kinematics(model, data)     # MuJoCo's own functions work on the same objects

`nereid.load` compiles a model (or a scenario's model) with Nereid -- the plugin library is
registered in this process, nereid.tether's segment bodies are made, added-mass bodies get
full inertia storage -- and returns a `mujoco.MjModel` and a `mujoco.MjData` made for
Nereid's engine (`make_data`). `step`, `forward` and `reset` run Nereid's stepper on them:
added mass in the mass matrix, RK4 with added mass in every stage, UK connections with
`constraints="uk"`. Nothing is copied per step and the GIL is released while stepping.
"""
import contextlib
import operator
import os
import threading
from collections import OrderedDict

import mujoco

from . import _nereid
from ._nereid import Stepper

# Steppers for the (model, data) pairs the module-level functions were given, newest last.
# Each keeps its model and data alive; the oldest is dropped beyond this many
# (release() drops one at once).
MAX_CACHED_STEPPERS = 64
_steppers = OrderedDict()
_steppers_lock = threading.Lock()  # Python threads share the cache


@contextlib.contextmanager
def engine_scope():
    """Inside it, `mujoco.MjData(model)` makes data whose nereid.hydrodynamics instances
    leave their added mass to Nereid's engine (outside it they drop it: plain mj_step cannot
    hold added mass).

    Inside it a Nereid plugin that fails to load keeps its reason instead of printing it;
    MuJoCo's own error then says only "plugin->init failed", so a ValueError leaving the
    block is raised again as a nereid.Error with the plugin's reason appended."""
    _nereid._engine_scope_enter()
    _nereid._take_last_plugin_error()  # a reason from before the block is not this block's
    try:
        yield
    except ValueError as e:
        reason = _nereid._take_last_plugin_error()
        if reason and reason not in str(e):
            raise _nereid.Error(f"{e}: {reason}") from e
        raise
    finally:
        _nereid._engine_scope_exit()


def make_data(model):
    """A `mujoco.MjData` for `model` that Nereid's engine can step."""
    with engine_scope():
        return mujoco.MjData(model)


def load(path, *, constraints=None):
    """Loads MODEL.xml or SCENARIO.json: returns (mujoco.MjModel, mujoco.MjData).

    A bare model starts at keyframe 0 when it has one, as `nereid run` does. A scenario
    (docs/scenarios.md) sets the model, time step, integrator, constraint method, initial
    state and current as `nereid run` does; its time-scheduled `controls`, `wrenches` and
    controllers belong to `nereid run` and are not applied here. `constraints` ("mujoco" or
    "uk") overrides the scenario's. Errors name the file, element, key and value
    (nereid.Error, a ValueError).
    """
    path = os.fspath(path)
    address, settings = _nereid._compile(path, constraints)
    model = mujoco.MjModel._from_model_ptr(address)  # takes ownership of the compiled model
    data = make_data(model)
    stepper = _remember(Stepper(model, data, engine=settings["engine"], constraints=settings["constraints"],
                                integrator=settings["integrator"], timestep=settings["timestep"],
                                name=settings["model"]))
    if settings["scenario"]:
        stepper._apply_scenario(settings["scenario"])
    else:
        stepper.reset(0 if model.nkey > 0 else -1)
    return model, data


def stepper(model, data, **options):
    """The Stepper the module-level functions use for (model, data); made on first use with
    `options` (engine, constraints, integrator, timestep: see nereid.Stepper)."""
    key = (model._address, data._address)
    with _steppers_lock:
        found = _steppers.get(key)
        if found is not None and not options:
            _steppers.move_to_end(key)
            return found
    return _remember(Stepper(model, data, **options))


def _remember(s):
    key = (s.model._address, s.data._address)
    with _steppers_lock:
        _steppers[key] = s
        _steppers.move_to_end(key)
        while len(_steppers) > MAX_CACHED_STEPPERS:
            _steppers.popitem(last=False)
    return s


def release(model, data):
    """Forgets the Stepper of (model, data), so that they are no longer kept alive here
    (from any thread; releasing twice does nothing)."""
    with _steppers_lock:
        _steppers.pop((model._address, data._address), None)


def step(model, data, nstep=1):
    """Advances `data` by nstep time steps with Nereid's stepper (mujoco.mj_step's role)."""
    stepper(model, data).step(nstep)


def forward(model, data):
    """Forward dynamics with added mass in the mass matrix (mujoco.mj_forward's role)."""
    stepper(model, data).forward()


def reset(model, data, key=None):
    """Resets `data` to the model's defaults (key None or -1), or to keyframe `key`, and runs forward."""
    key = -1 if key is None else _integer("reset: key", key)
    if key < -1:
        raise ValueError(f"reset: key {key}: expected a keyframe index (0 to {model.nkey - 1}), "
                         "or None for the model's defaults")
    stepper(model, data).reset(key)


def _integer(name, value):
    """`value` as an int; a float (1.5, nan) or a string is a TypeError naming `name`."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: expected an integer, got {value!r}") from None


def _real_array(name, value):
    """`value` as a C-contiguous float64 array; complex numbers, strings and objects (None
    would become NaN) are a ValueError naming `name` instead of a silent conversion."""
    import numpy as np
    a = np.asarray(value)
    if a.dtype.kind not in "iuf":
        raise ValueError(f"{name}: expected real numbers, got an array of dtype {a.dtype}")
    return np.ascontiguousarray(a, dtype=np.float64)


def model_path(name):
    """The MJCF file of a shipped model by name: "bluerov2_heavy" -> .../bluerov2_heavy/bluerov2_heavy.xml;
    also "multi/bluerov_pair" or "bluerov_pair" for a file in a folder of several."""
    from . import model_dir
    root = model_dir()
    candidates = [os.path.join(root, name, os.path.basename(name) + ".xml"), os.path.join(root, name + ".xml")]
    for folder, _, files in sorted(os.walk(root)):
        candidates += [os.path.join(folder, f) for f in files if f == os.path.basename(name) + ".xml"]
    for c in candidates:
        if os.path.isfile(c):
            return c
    names = sorted(os.path.splitext(f)[0] for _, _, files in os.walk(root) for f in files if f.endswith(".xml"))
    raise ValueError(f"no shipped model named '{name}' in {root}; models: {', '.join(names)}")


def state_size(model):
    """Values in one rollout state: MuJoCo's full physics state (mjSTATE_FULLPHYSICS)."""
    return _nereid._state_size(model)


def get_state(model, data):
    """The full physics state of `data` (time, qpos, qvel, act, mocap, plugin state), as
    nereid.rollout takes its initial states."""
    import numpy as np
    out = np.empty(state_size(model))
    mujoco.mj_getState(model, data, out, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    return out


def rollout(model, data, initial_state, control=None, *, nstep=None, nthread=1):
    """Steps many rollouts of `model` with Nereid's engine in C++ threads (mujoco.rollout's role).

    initial_state: (nroll, nstate) or (nstate,) full physics states (nereid.get_state);
    control: (nroll, nstep, nu), or (nstep, nu) for the same controls in every rollout
    (None when the model has no controls, nu = 0; then give nstep). Returns (state, sensordata):
    (nroll, nstep, nstate) states after each step and (nroll, nstep, nsensordata) sensor
    values as each step leaves them. The engine and constraint method are those of `data`'s
    Stepper (nereid.load or nereid.stepper); `data` itself is not changed: every thread
    has its own. Each rollout starts from reset data, so the results are bitwise the same
    for any nthread. The GIL is released while the threads run.
    """
    import numpy as np
    s = stepper(model, data)
    nthread = _integer("rollout: nthread", nthread)
    init = _real_array("initial_state", initial_state)
    if init.ndim == 1:
        init = init[None, :]
    nroll = init.shape[0]
    if control is None:
        if nstep is None:
            raise ValueError("rollout: give control, or nstep for a model without controls")
        if model.nu > 0:
            raise ValueError(f"rollout: the model has {model.nu} controls (data.ctrl): control is required")
        ctrl = np.zeros((nroll, _integer("rollout: nstep", nstep), 0))
    else:
        ctrl = _real_array("control", control)
        if ctrl.ndim == 2:
            ctrl = np.broadcast_to(ctrl, (nroll,) + ctrl.shape)
        if ctrl.ndim != 3:
            raise ValueError(f"control: expected shape (nroll, nstep, nu) or (nstep, nu), got {ctrl.shape}")
        if nstep is not None and _integer("rollout: nstep", nstep) != ctrl.shape[1]:
            raise ValueError(f"nstep {nstep} does not match control's {ctrl.shape[1]} steps")
        ctrl = np.ascontiguousarray(ctrl)
    return _nereid._rollout(model, init, ctrl, ctrl.shape[1], nthread, engine=s.engine,
                            constraints=s.constraints)
