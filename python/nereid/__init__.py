"""Nereid: underwater-robotics simulation on MuJoCo, with Gymnasium environments.

    import gymnasium as gym
    import nereid  # registers the environments
    env = gym.make("nereid/BlueROV2StationKeeping-v0")

`nereid.tasks()` lists the tasks with their observation, action and reward documentation;
`nereid.BatchEnv` is the C++ batch (zero-copy NumPy views); `nereid.make_vector_env` gives a
Gymnasium vector environment backed by it.

Nereid's engine on MuJoCo's own objects (docs/python.md):

    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))  # mujoco.MjModel, MjData
    nereid.step(model, data, nstep=100)
"""

from ._nereid import BatchEnv, DivergenceError, Error, MuJoCoError, Stepper, set_exact_sensors, tasks  # noqa: F401
from ._nereid import default_model_dir as _compiled_model_dir


def model_dir() -> str:
    """The models folder, by the engine's one rule (include/nereid/paths.h): $NEREID_MODEL_DIR,
    the source tree's while it exists, else the copy installed beside the library (this package's)."""
    return _compiled_model_dir()


from .engine import (engine_scope, forward, get_state, load, make_data, model_path, release,  # noqa: F401,E402
                     reset, rollout, state_size, step, stepper)

try:  # Gymnasium is optional for the bare batch API
    from .envs import NereidEnv, NereidVectorEnv, make_vector_env, register_envs  # noqa: F401

    register_envs()
except ImportError:  # pragma: no cover - gymnasium not installed
    pass
