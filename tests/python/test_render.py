"""Pictures of Nereid-stepped data with MuJoCo's own renderer, and rgb_array environments.

ctest sets MUJOCO_GL=osmesa when CMake found libOSMesa (Debian libosmesa6, installed by
scripts/bootstrap.sh); without a working OpenGL back end these tests are skipped, saying why.
"""
import os

import gymnasium as gym
import mujoco
import numpy as np
import pytest

import nereid


_GL_ERROR = []  # the first failure to make an OpenGL context (a second try may abort)


def _renderer_or_skip(model, height, width):
    if _GL_ERROR:
        pytest.skip(_GL_ERROR[0])
    if not os.environ.get("MUJOCO_GL"):
        _GL_ERROR.append("MUJOCO_GL not set (ctest sets osmesa when libOSMesa is installed)")
        pytest.skip(_GL_ERROR[0])
    try:
        return mujoco.Renderer(model, height, width)
    except Exception as e:  # no OpenGL back end in this process
        _GL_ERROR.append(f"no OpenGL back end for mujoco.Renderer (MUJOCO_GL={os.environ['MUJOCO_GL']}): {e}")
        pytest.skip(_GL_ERROR[0])


def test_mujoco_renderer_draws_nereid_stepped_data():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    r = _renderer_or_skip(model, 96, 128)
    r.update_scene(data)
    before = r.render().copy()
    data.ctrl[:] = model.actuator_ctrlrange[:, 1]  # all thrusters forward: the vehicle moves and turns
    nereid.step(model, data, nstep=400)
    r.update_scene(data)
    after = r.render()
    assert before.shape == after.shape == (96, 128, 3) and after.dtype == np.uint8
    assert before.std() > 1 and after.std() > 1          # a picture, not a blank frame
    assert np.abs(after.astype(int) - before.astype(int)).mean() > 0.5  # the vehicle moved
    r.close()


def test_env_rgb_array():
    model, _ = nereid.load(nereid.model_path("bluerov2_heavy"))
    _renderer_or_skip(model, 8, 8).close()
    env = gym.make("nereid/BlueROV2StationKeeping-v0", render_mode="rgb_array", width=160, height=120)
    env.reset(seed=1)
    frame = env.render()
    assert frame.shape == (120, 160, 3) and frame.dtype == np.uint8 and frame.std() > 1
    env.close()
    with pytest.raises(ValueError, match="render_mode"):
        gym.make("nereid/BlueROV2StationKeeping-v0", render_mode="video")
