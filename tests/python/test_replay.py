"""nereid replay and the kinematic Kalman filter: a Nereid-made log with pose noise, a marker
offset and poses 0.3 s late -> replay finds the delay and reports DTW at the noise level."""
import contextlib
import io
import json
import os
import sys

import numpy as np
import pytest

import nereid
from nereid import kinematic_kf, logs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import make_example_logs  # noqa: E402
import replay as replay_tool  # noqa: E402


def replay(*args):
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = replay_tool.main([str(a) for a in args])
    return code, err.getvalue()


def test_kalman_filter_on_a_parabola():
    """p = 0.5 a t^2 + v0 t with 1 mm noise at 50 Hz: the smoothed velocity is within 1 cm/s
    RMS of v0 + a t (the raw finite difference's noise is 7 cm/s), the acceleration near a."""
    rng = np.random.default_rng(1)
    t = np.arange(0, 10, 0.02)
    a, v0 = 0.2, 0.1
    y = 0.5 * a * t ** 2 + v0 * t + rng.normal(0, 1e-3, t.shape)
    p, v, acc = kinematic_kf.filter_kinematic(t, y)
    assert np.sqrt(np.mean((v - (v0 + a * t)) ** 2)) < 0.01
    assert np.sqrt(np.mean((acc[50:-50] - a) ** 2)) < 0.05
    assert kinematic_kf.estimate_noise(t, y) == pytest.approx(1e-6, rel=0.3)
    # a steady turn: the accumulated rotation increments' rate is the body rate
    ang = 0.3 * t
    q = np.stack([np.cos(ang / 2), 0 * t, 0 * t, np.sin(ang / 2)], -1)
    _, w, _ = kinematic_kf.filter_kinematic(t, kinematic_kf.rotation_increments(q))
    np.testing.assert_allclose(w[:, 2], 0.3, atol=1e-6)


def test_replay_finds_the_delay(tmp_path):
    log = tmp_path / "trial.csv"
    make_example_logs.make_trial(log, nereid.model_path("bluerov"), duration=12.0, delay=0.3, pose_noise=1e-3,
                                 angle_noise=2e-3, seed=5)
    out = tmp_path / "out"
    code, err = replay(log, "--model", nereid.model_path("bluerov"), "--out", out, "--initial-velocity", "zero")
    assert code == 0, err
    r = json.loads((out / "replay.json").read_text())
    assert r["time_offset_s"] == pytest.approx(0.3, abs=0.02)
    # 1 mm per axis is 1.7 mm in 3-D: DTW within 3x that, the velocity within 1 cm/s
    assert r["aligned"]["dtw_position_m"] < 5e-3 and r["aligned"]["dtw_velocity_mps"] < 0.01
    assert r["raw"]["rmse_position_m"] > 10 * r["aligned"]["rmse_position_m"]
    assert (out / "replay.png").stat().st_size > 1000


def test_replay_bad_input(tmp_path):
    model = nereid.model_path("bluerov")
    poses = tmp_path / "poses.csv"
    logs.write_log(poses, [0, 0.1, 0.2], pose=[[0, 0, 0, 1, 0, 0, 0]] * 3)
    code, err = replay(poses, "--model", model, "--out", tmp_path)
    assert code == 1 and f"{poses}: the log has no cmd.<actuator> columns" in err
    other = tmp_path / "other.csv"
    logs.write_log(other, [0, 0.1], pose=[[0, 0, 0, 1, 0, 0, 0]] * 2, commands=[[1500], [1500]], names=["prop9"],
                   command_units="pwm_us")
    code, err = replay(other, "--model", model, "--out", tmp_path)
    assert code == 1 and "column 'cmd.prop9': the model has no actuator 'prop9'" in err
    code, err = replay(other, "--model", tmp_path / "absent.xml")
    assert code == 1 and "absent.xml (--model): no such file" in err
    code, err = replay(other, "--model", model, "--max-offset", "nan")
    assert code == 1 and "--max-offset nan" in err
    # a number in other digits than ASCII's (Python's float() reads '\u0661' as 1), with an
    # underscore or blanks: a usage error naming the option and the value
    for text in ("\u0661", "1_0", " 1"):
        code, err = replay(other, "--model", model, "--max-offset", text)
        assert code == 2 and f"argument --max-offset: '{text}' is not a number" in err
    nan = tmp_path / "nan.csv"
    nan.write_text("# nereid-log: 1\n# command_units: pwm_us\nt,cmd.thr1\n0,1500\n0.1,nan\n")
    code, err = replay(nan, "--model", model)
    assert code == 1 and f"{nan}: line 5, column 'cmd.thr1'" in err


def test_a_pose_jump_that_makes_the_simulation_diverge_is_an_error(tmp_path):
    """A pose jumping by 1e20 m (the fuzzer's file kind) gives the filter's initial velocity a
    size that makes the first step diverge: replay and identify free say so, naming the log,
    instead of a traceback (about 1 s)."""
    import identify as identify_tool
    t = np.arange(0, 0.4, 0.02)
    pose = np.tile([0.0, 0, 1, 1, 0, 0, 0], (len(t), 1))
    pose[3, 2] = 1e20
    jump = tmp_path / "jump.csv"
    logs.write_log(jump, t, pose=pose, commands=[[1500] * 6] * len(t),
                   names=[f"thr{i}" for i in range(1, 7)], command_units="pwm_us")
    model = nereid.model_path("bluerov")
    code, err = replay(jump, "--model", model, "--out", tmp_path, "--no-plots")
    assert code == 1 and f"{jump}: the simulation from the log's first pose and velocity diverged" in err, err
    out = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(out):
        code = identify_tool.main(["free", str(jump), "--model", model, "--dofs", "heave", "--max-evaluations", "2",
                                   "--out", str(tmp_path / "fit.json")])
    assert code == 1 and f"{jump}: the simulation from the log's first pose and velocity diverged" in out.getvalue()


def test_neutral_controls_past_actuators_with_zero_or_several_controls(heavy_behind_multi_control_actuators):
    """MuJoCo 3.14: an orientation servo and a <pid input="pos vel ff"> take 3 controls
    each, a <dcmotor input="none"> none; the Heavy's thrusters after them (actuators 3-10)
    hold controls 6-13, which a log's undriven thrusters set to their PWM range's middle; a
    logged command for the pid is refused."""
    model = heavy_behind_multi_control_actuators
    neutral = replay_tool.neutral_controls(model)
    assert neutral.shape == (14,)
    assert list(neutral[:6]) == [0.0] * 6
    assert list(neutral[6:]) == [1500.0] * 8

    class Log:
        names = ["arm_pid"]
        path = "log.csv"
        command_units = "pwm"
    with pytest.raises(replay_tool.InputError, match="actuator 'arm_pid' takes 3 controls"):
        replay_tool.command_map(model, Log())


def test_the_vehicle_is_the_free_body_the_logged_actuators_move(heavy_behind_multi_control_actuators):
    """The fixture's first free body is a float (an orientation servo's), the Heavy the second:
    a log of the Heavy's thrusters replays the Heavy; without commands the first free body;
    commands that move both are refused with both named; --body still decides."""
    model = heavy_behind_multi_control_actuators
    heavy, float_body = model.body("heavy").id, model.body("float").id
    assert float_body < heavy

    class Log:
        path = "log.csv"
        commands = np.zeros((1, 8))
        names = [f"thr{i}" for i in range(1, 9)]
    assert replay_tool._vehicle(model, None, Log()) == heavy
    assert replay_tool._vehicle(model, None) == float_body
    Log.names = ["thr1", "gimbal"]
    with pytest.raises(replay_tool.InputError,
                       match=r"log.csv: the logged actuators move 2 free bodies \('heavy' \(cmd.thr1\), "
                             r"'float' \(cmd.gimbal\)\): give the vehicle with --body"):
        replay_tool._vehicle(model, None, Log())
    assert replay_tool._vehicle(model, "float", Log()) == float_body
