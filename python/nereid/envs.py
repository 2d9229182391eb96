"""Gymnasium environments on Nereid's C++ batch environments."""
from typing import Any, Optional

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from . import _nereid
from ._closing import take


def _spaces(batch: "_nereid.BatchEnv"):
    observation = gym.spaces.Box(-np.inf, np.inf, (batch.observation_size,), np.float32)
    action = gym.spaces.Box(-1.0, 1.0, (batch.action_size,), np.float32)
    return observation, action


def _description(task: str) -> str:
    for spec in _nereid.tasks():
        if spec["id"] == task:
            return spec["description"]
    raise _nereid.Error(f"unknown task '{task}'")



def _check_open(env) -> None:
    if env._batch is None:
        raise RuntimeError(f"{env.task}: the environment is closed")

class NereidEnv(gym.Env):
    """One environment: a C++ BatchEnv of size 1. See `nereid.tasks()` for the task's spaces,
    reward and termination. `observation`: "state" (the true state, the default) or "sensors"
    (the vehicle's sensor readings at their rates and latency, docs/rl.md)."""

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": 25}

    def __init__(self, task: str, model_dir: Optional[str] = None, render_mode: Optional[str] = None,
                 width: int = 640, height: int = 480, observation: str = "state"):
        from . import model_dir as default_dir

        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: expected one of {self.metadata['render_modes']} or None, "
                             f"got {render_mode!r}")
        self.task = task
        self._model_dir = model_dir or default_dir()
        self._batch = _nereid.BatchEnv(task, 1, 1, self._model_dir, observation)
        self.observation = observation
        self.observation_space, self.action_space = _spaces(self._batch)
        self.spec_description = _description(task)
        self._seeded = False
        self.render_mode = render_mode
        self._size = (width, height)
        self._scene = None
        spec = next(s for s in _nereid.tasks() if s["id"] == task)
        self._model_file = spec["sensors_model" if observation == "sensors" else "model"]

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        _check_open(self)
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, 2**63 - 1))
        self._batch.reset(int(seed))
        return self._batch.observations[0].copy(), {}

    def step(self, action):
        _check_open(self)
        a = np.asarray(action, dtype=np.float32)
        if a.shape != self.action_space.shape:
            raise ValueError(f"action: expected shape {self.action_space.shape}, got {a.shape}")
        self._batch.step(a.reshape(1, -1))  # NaN or inf: nereid.Error (a ValueError)
        terminated = bool(self._batch.terminated[0])
        truncated = bool(self._batch.truncated[0])
        info: dict[str, Any] = {"diverged": bool(self._batch.diverged[0])}
        # the batch has already started the next episode: return the ended one's last state
        obs = (self._batch.final_observations if terminated or truncated else self._batch.observations)[0]
        return obs.copy(), float(self._batch.rewards[0]), terminated, truncated, info

    def scripted_action(self) -> np.ndarray:
        """The task's scripted baseline (cascaded PID) for the current state (with sensor
        observations: the state derived from the sensors, kept from the first call on; a
        first call after an episode's first step starts it from that moment's readings)."""
        _check_open(self)
        return self._batch.scripted_actions()[0]

    def sensordata(self) -> np.ndarray:
        """A copy of MuJoCo's sensordata of the environment's model (the sensors' readings)."""
        _check_open(self)
        return self._batch.sensordata(0)

    def render(self):
        """rgb_array: the current state as a (height, width, 3) uint8 picture (mujoco.Renderer,
        camera following the vehicle); human: MuJoCo's passive viewer; None without a mode."""
        _check_open(self)
        if self.render_mode is None:
            return None
        if self._scene is None:
            import os

            from .render import SceneRenderer
            path = self._model_file if os.path.isabs(self._model_file) else os.path.join(self._model_dir, self._model_file)
            self._scene = SceneRenderer(path, *self._size)
        qpos = self._batch.qpos(0)
        if self.render_mode == "rgb_array":
            return self._scene.rgb_array(qpos)
        self._scene.human(qpos)
        return None

    def close(self):
        """Frees the C++ environment; reset and step then raise RuntimeError. Safe from several
        threads at once; a second close does nothing."""
        scene, _ = take(self, "_scene", "_batch")
        if scene is not None:
            scene.close()
        super().close()


class NereidVectorEnv(VectorEnv):
    """A Gymnasium vector environment stepped by the C++ batch over a thread pool.

    Autoreset is SAME_STEP: an ended environment's row of the returned observations already
    starts its next episode; info["final_obs"] holds its last observation (with the mask
    info["_final_obs"]). Observations are NumPy views of the C++ buffers: copy them to keep them.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, task: str, num_envs: int, num_threads: int = 1, model_dir: Optional[str] = None,
                 observation: str = "state"):
        from . import model_dir as default_dir

        self.task = task
        self.observation = observation
        self._batch = _nereid.BatchEnv(task, num_envs, num_threads, model_dir or default_dir(), observation)
        self.num_envs = num_envs
        self.single_observation_space, self.single_action_space = _spaces(self._batch)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self._seed = 0

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        _check_open(self)
        if seed is not None:
            self._seed = int(seed)
        self._batch.reset(self._seed)
        self._seed += 1
        return self._batch.observations, {}

    def step(self, actions):
        _check_open(self)
        a = np.asarray(actions, dtype=np.float32)
        if a.shape != self.action_space.shape:
            raise ValueError(f"actions: expected shape {self.action_space.shape}, got {a.shape}")
        self._batch.step(a)  # NaN or inf: nereid.Error (a ValueError)
        terminated = self._batch.terminated
        truncated = self._batch.truncated
        info: dict[str, Any] = {"diverged": self._batch.diverged}
        ended = terminated | truncated
        if ended.any():
            info["final_obs"] = self._batch.final_observations.copy()
            info["_final_obs"] = ended.copy()
        return self._batch.observations, self._batch.rewards, terminated, truncated, info

    def close_extras(self, **kwargs):
        """Frees the C++ batch; reset and step then raise RuntimeError (safe from several
        threads at once; a second close does nothing)."""
        take(self, "_batch")

    def scripted_actions(self) -> np.ndarray:
        return self._batch.scripted_actions()


def make_vector_env(task: str, num_envs: int, num_threads: int = 1, **kwargs) -> NereidVectorEnv:
    return NereidVectorEnv(task, num_envs, num_threads, **kwargs)


def register_envs() -> None:
    """Registers every task as "nereid/<id>" with Gymnasium (idempotent)."""
    for spec in _nereid.tasks():
        env_id = f"nereid/{spec['id']}"
        if env_id in gym.registry:
            continue
        gym.register(
            id=env_id,
            entry_point="nereid.envs:NereidEnv",
            kwargs={"task": spec["id"]},
            max_episode_steps=None,  # the C++ task truncates at its own max_episode_steps
            vector_entry_point="nereid.envs:NereidVectorEnv",
        )
