"""A Gymnasium environment written in Python on nereid.load / nereid.step (docs/python.md).

The BlueROV2 Heavy holds a depth against a water current. The observation is what the
MuJoCo sensors added to its MJCF read; the reward is the user's. Nothing here is built into
Nereid: it is the pattern for writing your own task.

    env = HeavyDepthHoldEnv(current=(0.3, 0.0, 0.0))
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
"""
import os
import tempfile
import threading

import gymnasium as gym
import mujoco
import numpy as np

import nereid

# The shipped Heavy with four MuJoCo sensors on its body; <include> keeps the shipped file
# as it is (its plugins, thrusters and parameters with their sources).
SENSORS_XML = """<mujoco model="heavy_depth_hold">
  <include file="{model}"/>
  <sensor>
    <framepos name="position" objtype="body" objname="heavy"/>
    <framequat name="attitude" objtype="body" objname="heavy"/>
    <framelinvel name="velocity" objtype="body" objname="heavy"/>
    <frameangvel name="rate" objtype="body" objname="heavy"/>
  </sensor>
</mujoco>
"""


class HeavyDepthHoldEnv(gym.Env):
    """Hold `target_depth` (m) in a constant current; 8 thrusters, actions in [-1, 1].

    Action a_j maps to PWM 1500 + 400 a_j (the T200's range in the model's ctrlrange).
    Observation: the sensors' 13 values (position, attitude quaternion, world linear
    velocity, world angular velocity) and the depth error. Reward: -(depth error)^2 -
    0.01 |a|^2 - 0.1 |horizontal velocity|^2. Ends when the depth error exceeds 2 m, or after
    max_steps control steps of frame_skip physics steps each.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 20}

    def __init__(self, target_depth=3.0, current=(0.2, 0.0, 0.0), frame_skip=10, max_steps=400,
                 render_mode=None):
        self._dir = tempfile.TemporaryDirectory(prefix="nereid_depth_hold_")
        path = os.path.join(self._dir.name, "heavy_depth_hold.xml")
        with open(path, "w") as f:
            f.write(SENSORS_XML.format(model=nereid.model_path("bluerov2_heavy")))
        self.model, self.data = nereid.load(path)
        self.stepper = nereid.stepper(self.model, self.data)
        self.target_depth, self.current = float(target_depth), tuple(current)
        self.frame_skip, self.max_steps = int(frame_skip), int(max_steps)
        self.render_mode = render_mode
        self._renderer = None
        self._close_lock = threading.Lock()
        n_obs = self.model.nsensordata + 1
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (n_obs,), np.float64)
        self.action_space = gym.spaces.Box(-1.0, 1.0, (self.model.nu,), np.float32)
        self._steps = 0

    def _depth_error(self):
        return self.target_depth - (-self.data.qpos[2])

    def _observation(self):
        return np.concatenate([self.data.sensordata, [self._depth_error()]])

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        nereid.reset(self.model, self.data, key=0)
        self.data.qpos[2] = -self.target_depth + self.np_random.uniform(-0.5, 0.5)
        self.stepper.set_current(*self.current)
        nereid.forward(self.model, self.data)
        self._steps = 0
        return self._observation(), {}

    def step(self, action):
        a = np.clip(np.asarray(action, dtype=np.float64), -1.0, 1.0)
        self.data.ctrl[:] = 1500.0 + 400.0 * a
        nereid.step(self.model, self.data, nstep=self.frame_skip)
        self._steps += 1
        error = self._depth_error()
        reward = -error ** 2 - 0.01 * float(a @ a) - 0.1 * float(self.data.qvel[0] ** 2 + self.data.qvel[1] ** 2)
        terminated = abs(error) > 2.0
        truncated = self._steps >= self.max_steps
        return self._observation(), reward, terminated, truncated, {"depth_error": error}

    def render(self):
        if self.render_mode != "rgb_array":
            return None
        if self._renderer is None:
            self._renderer = mujoco.Renderer(self.model, 240, 320)
        self._renderer.update_scene(self.data)
        return self._renderer.render()

    def close(self):
        # safe from several threads at once (one of them frees each resource); a second
        # close does nothing
        with self._close_lock:
            renderer, self._renderer = self._renderer, None
            folder, self._dir = self._dir, None
        if renderer is not None:
            renderer.close()
        nereid.release(self.model, self.data)
        if folder is not None:
            folder.cleanup()
