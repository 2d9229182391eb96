"""close() from two threads at once, and twice: each resource is freed by exactly one
caller, no AttributeError, the second close is a no-op (docs/robustness.md)."""
import threading
import time

import gymnasium as gym
import numpy as np
import pytest

import nereid


class SlowResource:
    """Stands for a renderer or viewer whose close takes a while (the GIL is released
    meanwhile), so that a second thread enters close() before the first one is done."""

    def __init__(self):
        self.closes = 0

    def close(self):
        self.closes += 1
        time.sleep(0.05)


def close_from_threads(close, n=2):
    """Calls close() from n threads released together; returns the exceptions they raised."""
    barrier, errors = threading.Barrier(n), []

    def run():
        barrier.wait()
        try:
            close()
        except Exception as e:  # noqa: BLE001 - any exception is the failure looked for
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_env_closed_by_two_threads_frees_its_scene_once():
    env = nereid.NereidEnv("BlueROV2StationKeeping-v0", render_mode="rgb_array")
    env.reset(seed=0)
    scene = env._scene = SlowResource()  # what render() makes on first use
    assert close_from_threads(env.close) == []
    assert scene.closes == 1
    env.close()  # again: nothing left to free
    assert scene.closes == 1
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.zeros(8, np.float32))


def test_wrapped_env_and_vector_env_closed_by_two_threads():
    env = gym.make("nereid/BlueROV2StationKeeping-v0")
    env.reset(seed=0)
    assert close_from_threads(env.close, 4) == []
    env.close()
    venv = nereid.make_vector_env("BlueROV2StationKeeping-v0", 2)
    venv.reset(seed=0)
    assert close_from_threads(venv.close, 4) == []
    venv.close()
    assert venv.closed
    with pytest.raises(RuntimeError, match="closed"):
        venv.step(np.zeros((2, 8), np.float32))


def test_scene_renderer_closed_by_two_threads_frees_each_resource_once():
    from nereid.render import SceneRenderer
    scene = SceneRenderer(nereid.model_path("bluerov2_heavy"))
    renderer, viewer = scene._renderer, scene._viewer = SlowResource(), SlowResource()
    assert close_from_threads(scene.close, 3) == []
    scene.close()
    assert renderer.closes == 1 and viewer.closes == 1


def test_example_env_closed_by_two_threads():
    import os

    from nereid.examples.depth_hold import HeavyDepthHoldEnv
    env = HeavyDepthHoldEnv(max_steps=2)
    env.reset(seed=0)
    folder = env._dir.name
    renderer = env._renderer = SlowResource()
    assert close_from_threads(env.close) == []  # its temporary folder removed once
    env.close()
    assert renderer.closes == 1 and not os.path.exists(folder)


def test_release_and_step_from_threads_share_the_stepper_cache():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    errors = []

    def churn():
        try:
            for _ in range(200):
                nereid.stepper(model, data)
                nereid.release(model, data)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=churn) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert close_from_threads(lambda: nereid.release(model, data)) == []
