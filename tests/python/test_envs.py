"""The Python package: Gymnasium environments, the vector environment, zero copy, baselines.

Run by ctest with PYTHONPATH set to the build's python/ folder (or after `pip install .`).
"""
import os

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import nereid

TASKS = [spec["id"] for spec in nereid.tasks()]


def test_registry_lists_documented_tasks():
    assert "BlueROV2StationKeeping-v0" in TASKS and "RaybotQuayWall-v0" in TASKS
    for spec in nereid.tasks():
        assert "Observation" in spec["description"] and "Reward" in spec["description"]
        assert f"nereid/{spec['id']}" in gym.registry


@pytest.mark.parametrize("task", TASKS)
def test_every_env_passes_gymnasiums_checker(task):
    env = gym.make(f"nereid/{task}")
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    obs2, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert np.isfinite(reward) and "diverged" in info


def test_seeding_is_reproducible():
    a, b = gym.make("nereid/BlueROV2StationKeeping-v0"), gym.make("nereid/BlueROV2StationKeeping-v0")
    oa, _ = a.reset(seed=123)
    ob, _ = b.reset(seed=123)
    np.testing.assert_array_equal(oa, ob)
    action = np.full(a.action_space.shape, 0.2, np.float32)
    for _ in range(20):
        ra = a.step(action)
        rb = b.step(action)
    np.testing.assert_array_equal(ra[0], rb[0])


def test_vector_env_is_zero_copy_and_thread_count_independent():
    one = nereid.make_vector_env("BlueROV2StationKeeping-v0", 8, num_threads=1)
    two = nereid.make_vector_env("BlueROV2StationKeeping-v0", 8, num_threads=2)
    o1, _ = one.reset(seed=9)
    o2, _ = two.reset(seed=9)
    # the returned array is a view of the C++ buffer: it changes with the next step
    before = o1.copy()
    assert not o1.flags["OWNDATA"]
    rng = np.random.default_rng(0)
    for _ in range(600):  # long enough for episodes to end and reset
        actions = rng.uniform(-1, 1, one.action_space.shape).astype(np.float32)
        r1 = one.step(actions)
        r2 = two.step(actions)
        np.testing.assert_array_equal(r1[0], r2[0])
        np.testing.assert_array_equal(r1[1], r2[1])
    assert not np.array_equal(before, o1)


def test_vector_env_autoreset_reports_final_observations():
    env = nereid.make_vector_env("BlueROV2StationKeeping-v0", 2)
    env.reset(seed=1)
    saw_end = False
    for _ in range(600):
        _, _, terminated, truncated, info = env.step(np.zeros(env.action_space.shape, np.float32))
        if (terminated | truncated).any():
            saw_end = True
            assert info["_final_obs"].any() and info["final_obs"].shape == (2, 12)
    assert saw_end  # 500-step episodes were truncated


def test_scripted_baseline_beats_random_policy():
    def mean_return(policy, episodes=3):
        env = nereid.NereidEnv("BlueROV2StationKeeping-v0")
        total = 0.0
        for k in range(episodes):
            env.reset(seed=100 + k)
            done = False
            while not done:
                action = env.scripted_action() if policy == "scripted" else env.action_space.sample()
                _, reward, terminated, truncated, _ = env.step(action)
                total += reward
                done = terminated or truncated
        return total / episodes

    scripted, random = mean_return("scripted"), mean_return("random")
    print(f"station keeping mean return: scripted {scripted:.2f}, random {random:.2f}")
    assert scripted > random


def test_bad_input_is_a_clear_python_error():
    with pytest.raises(nereid.Error, match="unknown task 'Nope-v0'"):
        nereid.BatchEnv("Nope-v0")
    env = nereid.BatchEnv("BlueROV2StationKeeping-v0", 2)
    env.reset(0)
    with pytest.raises(ValueError, match="expected 2 x 8 values"):
        env.step(np.zeros(3, np.float32))


def test_bad_actions_and_closed_envs_raise():
    env = gym.make("nereid/BlueROV2StationKeeping-v0")
    env.reset(seed=1)
    for bad in (np.nan, np.inf, -np.inf):
        a = np.zeros(8, np.float32)
        a[3] = bad
        with pytest.raises(ValueError, match=r"component 3 \(actuator 'thr4', index 3\) is"):
            env.step(a)
    with pytest.raises(ValueError, match=r"expected shape \(8,\), got \(8, 1\)"):
        env.step(np.zeros((8, 1), np.float32))
    obs, reward, *_ = env.step(np.zeros(8, np.float32))  # still usable after refused actions
    assert np.isfinite(reward) and np.all(np.isfinite(obs))
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.zeros(8, np.float32))
    with pytest.raises(RuntimeError, match="closed"):
        env.reset(seed=1)
    venv = nereid.make_vector_env("BlueROV2StationKeeping-v0", 2)
    venv.reset(seed=0)
    a = np.zeros((2, 8), np.float32)
    a[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"environment 1, component 0 \(actuator 'thr1', index 0\) is nan"):
        venv.step(a)
    with pytest.raises(ValueError, match="expected shape"):
        venv.step(np.zeros(16, np.float32))
    venv.close()
    with pytest.raises(RuntimeError, match="closed"):
        venv.step(np.zeros((2, 8), np.float32))


def test_one_batch_shared_by_python_threads_is_serialised():
    import threading
    batch = nereid.BatchEnv("BlueROV2StationKeeping-v0", 4, 2)
    batch.reset(0)
    errors = []

    def worker(k):
        try:
            rng = np.random.default_rng(k)
            for i in range(150):
                if i % 50 == 0:
                    batch.reset(k)
                elif i % 7 == 0:
                    batch.scripted_actions()
                else:
                    batch.step(rng.uniform(-1, 1, (4, 8)).astype(np.float32))
        except Exception as e:  # any error fails the test below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)  # unserialised calls deadlocked here: fail rather than hang
    assert not any(t.is_alive() for t in threads), "threads sharing a BatchEnv deadlocked"
    assert not errors
    batch.step(np.zeros((4, 8), np.float32))
    assert np.all(np.isfinite(batch.observations))


def test_mujoco_fatal_error_is_a_python_exception(tmp_path, monkeypatch):
    # MuJoCo's stack arena too small for the model (<size memory="1K"/>): mj_stackAlloc
    # calls mju_error, which would end the interpreter; Nereid raises instead
    source = os.path.join(nereid.model_dir(), "bluerov2_heavy", "bluerov2_heavy.xml")
    os.makedirs(tmp_path / "bluerov2_heavy")
    with open(source) as f:
        xml = f.read().replace('<mujoco model="bluerov2_heavy">',
                               '<mujoco model="bluerov2_heavy"><size memory="1K"/>', 1)
    (tmp_path / "bluerov2_heavy" / "bluerov2_heavy.xml").write_text(xml)
    monkeypatch.chdir(tmp_path)  # where MuJoCo's default handler would write MUJOCO_LOG.TXT
    with pytest.raises(nereid.Error, match="bluerov2_heavy.xml.*mj_stackAlloc"):
        nereid.BatchEnv("BlueROV2StationKeeping-v0", 2, 2, str(tmp_path))
    assert issubclass(nereid.MuJoCoError, nereid.Error)
    assert not os.path.exists("MUJOCO_LOG.TXT")
    # the interpreter goes on
    batch = nereid.BatchEnv("BlueROV2StationKeeping-v0", 2, 2)
    batch.reset(0)


def test_sensor_observations_are_the_sensors_readings_by_name():
    env = gym.make("nereid/BlueROV2StationKeeping-v0", observation="sensors")
    u = env.unwrapped
    assert u.observation_space.shape == (22,) and u.action_space.shape == (8,)
    check_env(u, skip_render_check=True)
    spec = next(s for s in nereid.tasks() if s["id"] == "BlueROV2StationKeeping-v0")
    model, data = nereid.load(os.path.join(nereid.model_dir(), spec["sensors_model"]))
    u.reset(seed=4)
    held = 0
    previous = None
    for _ in range(40):  # 0.8 s
        obs, reward, terminated, truncated, _ = u.step(u.scripted_action())
        assert u.observation_space.contains(obs) and np.isfinite(reward)
        data.sensordata[:] = u.sensordata()  # MuJoCo's own lookup by name on the env's readings
        f32 = np.float32
        assert obs[0] == f32(data.sensor("bar30").data[1])  # depth
        np.testing.assert_array_equal(obs[1:8], data.sensor("imu").data[:7].astype(f32))
        np.testing.assert_array_equal(obs[8:12], data.sensor("dvl").data[:4].astype(f32))
        np.testing.assert_array_equal(obs[12:15], data.sensor("usbl").data[:3].astype(f32))
        assert obs[15] == f32(data.sensor("usbl").data[6])
        assert obs[20] == f32(2.0 - data.sensor("bar30").data[1])
        held += previous is not None and obs[8] == previous  # the DVL holds between its 4 Hz samples
        previous = obs[8]
    assert held >= 39 - 4
    venv = nereid.make_vector_env("BlueROV2StationKeeping-v0", 3, observation="sensors")
    obs, _ = venv.reset(seed=1)
    assert obs.shape == (3, 22) and venv.single_observation_space.shape == (22,)
    venv.close()


def test_sensor_observations_of_every_task():
    with pytest.raises(ValueError, match="observation: expected"):
        nereid.BatchEnv("BlueROV2StationKeeping-v0", 1, observation="pixels")
    # docking on the camera's view of the marker (bluerov_docking_sensors.xml): 16 readings,
    # then the error to the docking pose (0 before the first detection)
    env = gym.make("nereid/BlueROVDocking-v0", observation="sensors")
    u = env.unwrapped
    assert u.observation_space.shape == (22,)
    obs, _ = u.reset(seed=3)
    assert obs[15] == -1 and not obs[16:].any()  # nothing seen yet
    for _ in range(25):  # 0.5 s: the camera (10 Hz, 0.1 s latency) has seen the marker
        obs, *_ = u.step(u.scripted_action())
    assert obs[14] == 1 and 0 <= obs[15] < 0.3 and 0.3 < np.linalg.norm(obs[16:19]) < 1.5
    # the quay wall has them (raybot_nav.xml): 22 readings and targets, the step ahead, progress
    venv = nereid.make_vector_env("RaybotQuayWall-v0", 2, observation="sensors")
    obs, _ = venv.reset(seed=2)
    assert obs.shape == (2, 26) and 0 <= obs[:, 25].min() and obs[:, 25].max() < 0.05  # at the start
    venv.close()
