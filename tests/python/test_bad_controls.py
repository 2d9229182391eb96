"""NaN, infinite or huge (beyond 1e10) controls given to Nereid from Python are refused
with a ValueError (nereid.Error) naming the actuator (name and index) and the value,
before anything is stepped: MuJoCo alone zeroes every control with only a warning and
steps on (docs/python.md, docs/robustness.md)."""
import numpy as np
import pytest

import nereid

BAD = [(np.nan, "nan"), (np.inf, "inf"), (-np.inf, "-inf"), (2e10, "2e\\+10")]


@pytest.fixture
def heavy():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    data.ctrl[:] = 1500.0
    return model, data


@pytest.mark.parametrize("value,text", BAD)
def test_step_and_forward_refuse_a_bad_control(heavy, value, text):
    model, data = heavy
    data.ctrl[2] = value
    before = nereid.get_state(model, data)
    for call in (lambda: nereid.step(model, data, nstep=10), lambda: nereid.forward(model, data)):
        with pytest.raises(nereid.Error, match=rf"data\.ctrl: actuator 'thr3' \(index 2\) is {text}; "
                                               "controls must be finite"):
            call()
        assert isinstance(nereid.Error("x"), ValueError)
    assert np.array_equal(nereid.get_state(model, data), before, equal_nan=True)  # nothing stepped
    data.ctrl[2] = 1500.0  # and the data steps on once the control is fixed
    nereid.step(model, data, nstep=10)
    assert data.time == pytest.approx(10 * model.opt.timestep)


@pytest.mark.parametrize("value,text", BAD)
def test_rollout_refuses_a_bad_control_naming_rollout_step_and_actuator(heavy, value, text):
    model, data = heavy
    initial = np.tile(nereid.get_state(model, data), (3, 1))
    control = np.full((3, 20, model.nu), 1500.0)
    control[1, 7, 5] = value
    with pytest.raises(nereid.Error, match=rf"rollout: control\[1, 7\]: actuator 'thr6' \(index 5\) is {text}"):
        nereid.rollout(model, data, initial, control, nthread=2)
    with pytest.raises(nereid.Error, match=rf"rollout: control\[0, 7\]: actuator 'thr6' \(index 5\) is {text}"):
        nereid.rollout(model, data, initial, control[1])  # (nstep, nu) for every rollout


def test_a_python_environment_on_nereid_step_refuses_a_nan_action():
    from nereid.examples.depth_hold import HeavyDepthHoldEnv
    env = HeavyDepthHoldEnv(max_steps=3)
    env.reset(seed=0)
    action = np.zeros(env.action_space.shape, np.float32)
    action[4] = np.nan  # np.clip keeps NaN: it reaches data.ctrl
    with pytest.raises(ValueError, match=r"actuator 'thr5' \(index 4\) is nan"):
        env.step(action)
    env.close()


def test_drive_and_set_current_refuse_non_finite_values(heavy):
    model, data = heavy
    s = nereid.stepper(model, data)
    with pytest.raises(ValueError, match=r"drive: wrench fz \(index 2\) is nan"):
        s.drive("heavy", [0, 0, np.nan, 0, 0, 0])
    with pytest.raises(ValueError, match=r"drive: wrench tx \(index 3\) is inf"):
        s.drive("heavy", [0, 0, 0, np.inf, 0, 0])
    assert np.all(data.ctrl == 1500.0)  # untouched
    with pytest.raises(ValueError, match="set_current: y velocity vy is nan"):
        s.set_current(0.1, np.nan, 0.0)
