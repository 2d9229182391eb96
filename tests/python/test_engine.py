"""Nereid's engine on MuJoCo's own Python objects (python/nereid/engine.py, docs/python.md).

Run by ctest with PYTHONPATH set to the build's python/ folder and NEREID_CLI to the
`nereid` command line (the comparisons with `nereid run` are skipped without it).
"""
import csv
import json
import os
import subprocess

import mujoco
import numpy as np
import pytest

import nereid

CLI = os.environ.get("NEREID_CLI")
needs_cli = pytest.mark.skipif(not CLI, reason="NEREID_CLI (the nereid command line) not set")


def nereid_run(tmp_path, *args):
    out = tmp_path / "run"
    done = subprocess.run([CLI, "run", *args, "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(out / "trajectory.csv") as f:
        rows = list(csv.reader(f))
    return rows[0], np.array(rows[1:], dtype=float)


def free_body_state(model, data, body):
    """The trajectory.csv columns of one free body: qpos (7) and qvel (6) of its joint."""
    j = model.body_jntadr[model.body(body).id]
    q, v = model.jnt_qposadr[j], model.jnt_dofadr[j]
    return np.concatenate([data.qpos[q:q + 7], data.qvel[v:v + 6]])


def compare_with_run(tmp_path, model, data, header, rows, bodies):
    """Steps (model, data) with nereid.step and checks every recorded row bit for bit."""
    assert rows[0, 0] == data.time
    for k in range(len(rows)):
        if k > 0:
            nereid.step(model, data)
        assert data.time == rows[k, 0]
        state = np.concatenate([free_body_state(model, data, b) for b in bodies])
        expected = rows[k, 1:1 + len(state)]
        assert np.array_equal(state, expected), (k, np.abs(state - expected).max())


@needs_cli
def test_same_trajectory_bit_for_bit_as_nereid_run_on_a_model(tmp_path):
    path = nereid.model_path("bluerov2_heavy")
    header, rows = nereid_run(tmp_path, path, "--duration", "1")
    model, data = nereid.load(path)
    assert isinstance(model, mujoco.MjModel) and isinstance(data, mujoco.MjData)
    compare_with_run(tmp_path, model, data, header, rows, ["heavy"])


@needs_cli
def test_same_trajectory_bit_for_bit_as_nereid_run_on_a_scenario(tmp_path):
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({
        "model": nereid.model_path("bluerov2_heavy"), "duration": 2, "dt": 0.01, "integrator": "rk4",
        "current": {"velocity": [0.1, -0.2, 0.0]},
        "initial_state": {"bodies": {"heavy": {"velocity": [0.5, 0.1, 0.0], "angular_velocity": [0, 0.2, 0.3]}}}}))
    header, rows = nereid_run(tmp_path, str(scenario))
    model, data = nereid.load(scenario)
    assert model.opt.timestep == 0.01 and model.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
    assert nereid.stepper(model, data).integrator == "rk4"
    compare_with_run(tmp_path, model, data, header, rows, ["heavy"])


@needs_cli
def test_uk_connections_bit_for_bit_as_nereid_run(tmp_path):
    path = nereid.model_path("case_a_l1")
    header, rows = nereid_run(tmp_path, path, "--duration", "0.5", "--constraints", "uk")
    model, data = nereid.load(path, constraints="uk")
    assert nereid.stepper(model, data).constraints == "uk"
    compare_with_run(tmp_path, model, data, header, rows, ["A", "B"])


PLAIN = """<mujoco><option timestep="0.002"/><worldbody>
  <geom type="plane" size="5 5 0.1"/>
  <body name="ball" pos="0 0 0.3"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
  <body name="arm" pos="0.5 0 1"><joint type="hinge" axis="0 1 0" damping="0.1"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/></body>
</worldbody></mujoco>"""


def test_equals_mj_step_when_the_marine_physics_is_off(tmp_path):
    path = tmp_path / "plain.xml"
    path.write_text(PLAIN)
    model, data = nereid.load(path)
    ref_model = mujoco.MjModel.from_xml_path(str(path))
    ref = mujoco.MjData(ref_model)
    mujoco.mj_forward(ref_model, ref)
    for _ in range(500):  # the ball falls, hits the floor and bounces; the arm swings
        nereid.step(model, data)
        mujoco.mj_step(ref_model, ref)
    assert data.ncon == ref.ncon > 0  # the ball rests on the floor in both
    np.testing.assert_allclose(data.qpos, ref.qpos, rtol=0, atol=1e-12)
    np.testing.assert_allclose(data.qvel, ref.qvel, rtol=0, atol=1e-12)


def test_mujoco_functions_work_on_nereid_stepped_data():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    nereid.step(model, data, nstep=20)
    mujoco.mj_kinematics(model, data)
    assert np.isfinite(data.xpos).all()
    # added mass is in the engine's mass matrix: M00 = m + X_udot (seed 003 Table 2)
    nereid.forward(model, data)
    dense = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, dense)
    assert dense[0, 0] == pytest.approx(11.5 + 8.262, rel=1e-9)
    nereid.reset(model, data, key=0)
    assert data.time == 0.0


def test_errors_are_clear():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    stock = mujoco.MjData(model)  # made outside the engine: added mass dropped
    with pytest.raises(nereid.Error, match="made outside Nereid's engine.*nereid.make_data"):
        nereid.step(model, stock)
    other_model, _ = nereid.load(nereid.model_path("bluerov"))
    with pytest.raises(ValueError, match="made for another mujoco.MjModel"):
        nereid.Stepper(other_model, data)
    with pytest.raises(TypeError, match="expected a mujoco.MjModel"):
        nereid.Stepper("model.xml", data)
    with pytest.raises(ValueError, match="nstep must be >= 0"):
        nereid.step(model, data, nstep=-1)
    with pytest.raises(ValueError, match="the model has 1 keyframes"):
        nereid.reset(model, data, key=5)
    with pytest.raises(ValueError, match="constraints: expected 'mujoco' or 'uk'"):
        nereid.load(nereid.model_path("bluerov2_heavy"), constraints="rigid")
    with pytest.raises(nereid.Error, match="missing.xml"):
        nereid.load("missing.xml")
    with pytest.raises(ValueError, match="no shipped model named 'submarine'"):
        nereid.model_path("submarine")


def test_an_added_mass_body_compiled_simple_elsewhere_is_refused_and_the_model_stays_usable(tmp_path):
    # MuJoCo's compiler stores a lone free body with a diagonal inertia "simple" (a diagonal
    # mass matrix block, no room for the added-mass block's off-diagonal entries); nereid.load
    # recompiles such a body, a model compiled by mujoco itself is refused, naming the body
    xml = """<mujoco><option timestep='0.002' gravity='0 0 0'/>
    <extension><plugin plugin='nereid.hydrodynamics'><instance name='h'><config key='body' value='hull'/>
    <config key='added_mass' value='4 4 4 0.2 0.3 0.1'/><config key='linear_damping' value='0 0 0 0 0 0'/>
    <config key='quadratic_damping' value='0 0 0 0 0 0'/></instance></plugin></extension>
    <worldbody><body name='hull'><freejoint/><geom type='sphere' size='0.2'/></body></worldbody></mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    assert model.body_simple[1] == 1  # what the refusal is about
    data = nereid.make_data(model)
    with pytest.raises(nereid.Error, match="body 'hull' has no storage for its added-mass block in the mass "
                                           "matrix; set simple=\"false\" on the body, or compile the model "
                                           "with Nereid"):
        nereid.stepper(model, data)
    mujoco.mj_step(model, data)  # the refused attach left the caller's model and data alone
    assert np.isfinite(data.qpos).all()
    # loaded through Nereid the same MJCF steps, the body recompiled with room for the block
    path = tmp_path / "simple_hull.xml"
    path.write_text(xml)
    loaded, loaded_data = nereid.load(str(path))
    assert loaded.body_simple[1] == 0
    nereid.step(loaded, loaded_data, nstep=10)
    assert np.isfinite(loaded_data.qpos).all()


@pytest.mark.parametrize("spelling", ["&#37;", "&#x25;", "&#X25;", "&#0037;"])
def test_a_character_reference_for_percent_is_refused_not_an_abort(tmp_path, spelling):
    # MuJoCo's parser formats unknown class names as printf formats ("%n": a memory write,
    # the process aborts); the XML parser decodes these spellings to '%' (docs/robustness.md)
    source = nereid.model_path("bluerov2_heavy")
    text = open(source).read()
    geom = 'name="heavy_panel_port" class="visual"'  # one geom's class, as the fuzzer changed it
    assert geom in text
    mutated = tmp_path / "bluerov2_heavy.xml"
    mutated.write_text(text.replace(geom, f'name="heavy_panel_port" class="a{spelling}n{spelling}n{spelling}s"'))
    for name in os.listdir(os.path.dirname(source)):  # the model's meshes and included files
        if not (tmp_path / name).exists():
            os.symlink(os.path.join(os.path.dirname(source), name), tmp_path / name)
    with pytest.raises(nereid.Error, match=f"bluerov2_heavy.xml: line [0-9]+: '{spelling}' "
                                           r"\(a character reference for '%'\)"):
        nereid.load(str(mutated))


def test_divergence_is_an_exception():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    data.qvel[0] = 1e12
    with pytest.raises(nereid.DivergenceError, match="diverged"):
        nereid.step(model, data, nstep=5)


def test_steppers_are_cached_and_bounded():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    s = nereid.stepper(model, data)
    assert nereid.stepper(model, data) is s
    pairs = [(model, nereid.make_data(model)) for _ in range(nereid.engine.MAX_CACHED_STEPPERS + 3)]
    for m, d in pairs:
        nereid.step(m, d)
    assert len(nereid.engine._steppers) <= nereid.engine.MAX_CACHED_STEPPERS
    nereid.release(model, data)
    assert (model._address, data._address) not in nereid.engine._steppers


def _heavy_rollout_inputs(model, nroll=5, nstep=60, seed=0):
    rng = np.random.default_rng(seed)
    model0, data0 = model
    base = nereid.get_state(model0, data0)
    init = np.tile(base, (nroll, 1))
    j = model0.jnt_qposadr[0]
    init[:, 1 + j + 2] += rng.uniform(-0.5, 0.5, nroll)  # depth (after time in the state)
    lo, hi = model0.actuator_ctrlrange[:, 0], model0.actuator_ctrlrange[:, 1]
    control = rng.uniform(lo, hi, size=(nroll, nstep, model0.nu))
    return init, control


def test_rollout_equals_stepping_and_is_bitwise_the_same_for_any_thread_count():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    assert model.nu > 0
    init, control = _heavy_rollout_inputs((model, data))
    before = nereid.get_state(model, data)
    results = [nereid.rollout(model, data, init, control, nthread=n) for n in (1, 2, 3)]
    for state, sensors in results[1:]:
        assert np.array_equal(state, results[0][0]) and np.array_equal(sensors, results[0][1])
    state, sensors = results[0]
    assert state.shape == (5, 60, nereid.state_size(model))
    assert sensors.shape == (5, 60, model.nsensordata)
    assert np.array_equal(nereid.get_state(model, data), before)  # data untouched
    # rollout 3, stepped by hand with nereid.step: the same states, bit for bit
    d = nereid.make_data(model)
    mujoco.mj_setState(model, d, init[3], mujoco.mjtState.mjSTATE_FULLPHYSICS)
    for k in range(60):
        d.ctrl[:] = control[3, k]
        nereid.step(model, d)
        assert np.array_equal(nereid.get_state(model, d), state[3, k]), k
        assert np.array_equal(d.sensordata, sensors[3, k]), k
    # different controls give different trajectories
    assert not np.array_equal(state[0, -1], state[1, -1])


def test_rollout_broadcasts_controls_and_reports_errors():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    init, control = _heavy_rollout_inputs((model, data), nroll=2, nstep=10)
    same = nereid.rollout(model, data, init, control[0])  # (nstep, nu) for every rollout
    both = nereid.rollout(model, data, init, np.stack([control[0], control[0]]))
    assert np.array_equal(same[0], both[0])
    with pytest.raises(ValueError, match="initial_state: expected shape"):
        nereid.rollout(model, data, init[:, :-1], control)
    with pytest.raises(ValueError, match="control: expected shape"):
        nereid.rollout(model, data, init, control[:, :, :-1])
    with pytest.raises(nereid.Error, match="nthread 0; 1 to 256"):
        nereid.rollout(model, data, init, control, nthread=0)
    bad = init.copy()
    bad[1, 1 + model.nq] = 1e12  # rollout 1 starts with an absurd velocity
    with pytest.raises(nereid.DivergenceError, match="rollout 1: .*diverged"):
        nereid.rollout(model, data, bad, control, nthread=2)


def test_user_written_environment_example():
    from gymnasium.utils.env_checker import check_env

    from nereid.examples.depth_hold import HeavyDepthHoldEnv
    env = HeavyDepthHoldEnv(target_depth=3.0, current=(0.3, 0.0, 0.0), max_steps=30)
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=4)
    assert obs.shape == (env.model.nsensordata + 1,) and env.model.nsensordata == 13
    # the sensors read the state: framepos is the body position
    np.testing.assert_allclose(obs[:3], env.data.qpos[:3], atol=1e-12)
    total, steps, truncated = 0.0, 0, False
    while not truncated:
        obs, reward, terminated, truncated, info = env.step(np.zeros(8))
        total += reward
        steps += 1
        assert not terminated
    assert steps == 30 and total < 0
    # the current pushes the idle vehicle downstream (+x)
    assert env.data.qvel[0] > 0.05
    env.close()


def test_python_threads_step_their_own_data_as_alone():
    # the GIL is released while stepping: two threads on two pairs give what one thread gives
    import threading
    pairs = [nereid.load(nereid.model_path("bluerov2_heavy")) for _ in range(2)]
    alone = [nereid.load(nereid.model_path("bluerov2_heavy")) for _ in range(2)]
    for (m, d), push in zip(pairs + alone, (1600.0, 1400.0, 1600.0, 1400.0)):
        d.ctrl[:] = push
    for m, d in alone:
        nereid.step(m, d, nstep=300)
    threads = [threading.Thread(target=nereid.step, args=(m, d, 300)) for m, d in pairs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (m, d), (_, ref) in zip(pairs, alone):
        assert np.array_equal(d.qpos, ref.qpos) and np.array_equal(d.qvel, ref.qvel)


def test_a_plugin_that_fails_to_load_inside_engine_scope_says_why():
    """Inside nereid.engine_scope() a Nereid plugin keeps its load error rather than printing
    it, and MuJoCo says only "plugin->init failed": the scope raises it again with the
    plugin's reason (here the lumped tether, whose segment bodies only ExpandTethers makes).
    Outside a block's error, a stale reason is not attached to the next one."""
    import mujoco
    path = nereid.model_path("bluerov2_heavy_tether")
    with pytest.raises(nereid.Error, match=r"plugin->init failed.*: nereid\.tether instance 'tether': key 'model' = "
                                           r"'lumped': the segment body 'tether_seg0' is missing: .*ExpandTethers"):
        with nereid.engine_scope():
            mujoco.MjModel.from_xml_path(path)
    with pytest.raises(ValueError) as caught:
        with nereid.engine_scope():
            mujoco.MjModel.from_xml_string("<mujoco><worldbody><geom type='bad'/></worldbody></mujoco>")
    assert "ExpandTethers" not in str(caught.value)
