"""nereid identify tow / rig (seed 000 §4.1) round trips: Nereid's tow rig with seed 000's
coefficients (models/bluerov, Table 3) and load-cell noise -> the fit recovers them; the 95 %
intervals cover the truth about 95 % of the time; bad runs give messages naming the file."""
import contextlib
import io
import json
import os
import sys

import numpy as np
import pytest

import nereid
from nereid import logs, towing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEEDS = [-1.0, -0.7, -0.4, 0.3, 0.5, 0.7, 1.0]


sys.path.insert(0, os.path.join(ROOT, "tools"))
import identify as identify_tool  # noqa: E402


class Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def identify(*args):
    """tools/identify.py's main in this process (the CLI's own test runs it through nereid)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = identify_tool.main([str(a) for a in args])
    return Result(code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("dof,c1,c2,noise", [("surge", 34.96, 0.0, 0.5), ("heave", 74.23, 0.19, 0.5)])
def test_rig_round_trip(tmp_path, dof, c1, c2, noise):
    """Seed 000's surge 34.96|u|u and heave 74.23|w|w + 0.19w: the quadratic term within 3 %,
    the linear term inside its 95 % interval. Seed 000's load cells are 18 kg HBM cells with
    'significant noise' (§4.1); 0.5 N standard deviation here."""
    speeds = SPEEDS if dof == "surge" else [0.2, 0.4, 0.5, 0.6, 0.8, 1.0]
    runs = towing.tow_rig(nereid.model_path("bluerov"), dof, speeds, runs_per_speed=2, noise=noise, seed=3,
                          hold_s=3.0)
    for r in runs:
        logs.write_tow_run(tmp_path / r.path, r.dof, r.t, r.speed, r.load, extra_meta=r.meta)
    out = tmp_path / "fit.json"
    plot = ("--plot", tmp_path / "fit.png") if dof == "heave" else ()
    p = identify("tow", tmp_path, "--out", out, *plot)
    assert p.returncode == 0, p.stderr
    e = json.loads(out.read_text())["dofs"][dof]
    assert abs(e["quadratic_damping"] / c1 - 1) < 0.03, e["quadratic_damping"]
    lo, hi = e["linear_damping_ci95"]
    assert lo <= c2 <= hi, (lo, hi)
    if plot:
        assert (tmp_path / "fit.png").stat().st_size > 1000


def test_interval_coverage():
    """Over 250 seeded replicates of fused points (3 runs of 200 samples per speed, Gaussian
    noise as the rig's), the 95 % intervals of c1 and c2 cover the truth 95 % of the time:
    accepted within [0.91, 0.99] (three binomial standard deviations, 1.4 % each)."""
    rng = np.random.default_rng(29)
    c1, c2, sigma = 74.23, 0.19, 0.5
    speeds = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    hits = np.zeros(2)
    reps = 250
    for _ in range(reps):
        points = []
        for u in speeds:
            segs = []
            for _ in range(3):
                x = c1 * abs(u) * u + c2 * u + rng.normal(0, sigma, 200)
                segs.append(towing.Segment(run=None, t0=0, t1=1, speed=u, mean=x.mean(), variance=x.var(ddof=1),
                                           samples=200, automatic=True))
            value, var = towing.fuse(segs)
            points.append(towing.Point(speed=u, value=value, variance=var, runs=segs))
        fit = towing.fit_damping(points)
        for k, true in enumerate((c1, c2)):
            lo, hi = fit.interval(k)
            hits[k] += lo <= true <= hi
    coverage = hits / reps
    assert np.all((coverage >= 0.91) & (coverage <= 0.99)), coverage


def test_fusion_is_eqs_36_37():
    segs = [towing.Segment(None, 0, 1, 0.5, m, v, 100, True) for m, v in ((1.0, 1.0), (2.0, 3.0))]
    value, var = towing.fuse(segs)
    assert var == pytest.approx(1 / (1 / 1.0 + 1 / 3.0))
    assert value == pytest.approx(var * (1.0 / 1.0 + 2.0 / 3.0))


def test_table3_extrapolation():
    """Seed 000 Table 3's sway, roll and yaw from its measured heave and pitch and its added
    masses: Y_vv = 18.5/13.3 x 74.23 = 103.25, Y_v 0.26, K_p 0.895, N_r 4.64 as printed; the
    quadratic K_pp and N_rr come out 0.0874 and 0.453 where the table prints 0.084 and 0.43."""
    am = [2.6, 18.5, 13.3, 0.054, 0.0173, 0.28]
    got = towing.added_mass_extrapolation({"heave": (74.23, 0.19), "pitch": (0.028, 0.287)}, am)
    assert got["sway"][0] == pytest.approx(103.25, abs=0.01) and got["sway"][1] == pytest.approx(0.26, abs=0.005)
    assert got["roll"][1] == pytest.approx(0.895, abs=0.002) and got["yaw"][1] == pytest.approx(4.64, abs=0.01)
    assert got["roll"][0] == pytest.approx(0.0874, abs=1e-3) and got["yaw"][0] == pytest.approx(0.453, abs=1e-3)


def test_bad_tow_input(tmp_path):
    flat = tmp_path / "flat.csv"
    t = np.arange(0, 5, 0.01)
    logs.write_tow_run(flat, "surge", t, np.where(t < 2.5, 0.5, 0.0) * (t > 0.1) + 0.3 * np.sin(7 * t),
                       np.zeros_like(t))
    p = identify("tow", flat)
    assert p.returncode == 1 and f"{flat}: no stationary segment" in p.stderr, p.stderr
    one = tmp_path / "one"
    one.mkdir()
    for i, u in enumerate((0.5, 0.5)):
        logs.write_tow_run(one / f"r{i}.csv", "surge", t, np.full_like(t, u), 8.0 + 0.1 * np.sin(50 * t))
    p = identify("tow", one)
    assert p.returncode == 1 and "1 fitted speed(s) for 2 parameter(s)" in p.stderr, p.stderr
    bad = tmp_path / "nan.csv"
    bad.write_text("# nereid-tow: 1\n# dof: surge\nt,speed,force\n0,0.5,1\n0.1,0.5,nan\n")
    p = identify("tow", bad)
    assert p.returncode == 1 and f"{bad}: line 5, column 'force': 'nan' is not finite" in p.stderr, p.stderr
    p = identify("tow", one, "--exclude", "surge=0.6:0.2")
    assert p.returncode == 1 and "LO > HI" in p.stderr
    p = identify("tow")
    assert p.returncode == 2
    # an integer option in other digits than ASCII's or with an underscore (int() takes both)
    for text in ("1_000", "\u0661\u0660"):
        p = identify("rig", "--runs", text)
        assert p.returncode == 2 and f"argument --runs: '{text}' is not an integer" in p.stderr, p.stderr
    # a number in a list: the same (float() reads '\u0660.\u0662' as 0.2)
    for text in ("0.2,\u0660.\u0662", "1_0"):
        p = identify("rig", "--dof", "surge", "--speeds", text, "--out", tmp_path / "rig")
        assert p.returncode == 1 and "--speeds '" in p.stderr and "expected a number" in p.stderr, p.stderr


def test_free_round_trip(tmp_path):
    """identify free (output error) on a Nereid-made trial of models/bluerov (1 mm, 2 mrad pose
    noise, marker offset), starting from a model with wrong surge and yaw damping (25 and 1
    for 34.96|u|u + 0 u; 0.7 and 3 for 0.43|r|r + 4.64 r): surge's quadratic and yaw's linear
    term within 3 %; surge's linear term near its 0 (< 0.5 kg/s); yaw's quadratic term, which
    the trial's yaw rates (<= 0.35 rad/s) hardly excite, within 0.15 kg m^2."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import make_example_logs
    model = nereid.model_path("bluerov")
    log = tmp_path / "free.csv"
    make_example_logs.make_trial(log, model, duration=12.0, delay=0.0, seed=11)
    wrong = tmp_path / "wrong.xml"
    wrong.write_text(open(model).read()
                     .replace('value="34.96 103.25 74.23 0.084 0.028 0.43"', 'value="25 103.25 74.23 0.084 0.028 0.7"')
                     .replace('value="0 0.26 0.19 0.895 0.287 4.64"', 'value="1 0.26 0.19 0.895 0.287 3"'))
    out = tmp_path / "free.json"
    p = identify("free", log, "--model", wrong, "--initial-velocity", "zero", "--out", out,
                 "--write-model", tmp_path / "fitted.xml")
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())["dofs"]
    assert abs(d["surge"]["quadratic_damping"] / 34.96 - 1) < 0.03, d
    assert abs(d["yaw"]["linear_damping"] / 4.64 - 1) < 0.03, d
    assert d["surge"]["linear_damping"] < 0.5 and abs(d["yaw"]["quadratic_damping"] - 0.43) < 0.15, d
    fitted = (tmp_path / "fitted.xml").read_text()
    assert "nereid identify free" in fitted
    nereid.load(str(tmp_path / "fitted.xml"))
    # --added-mass: the surge and yaw added masses too, from wrong ones (5 for 2.6 kg, 0.5 for
    # 0.28 kg m^2): a harder fit (added mass and damping trade off in the transients), so wider
    # tolerances: surge added mass within 10 %, surge quadratic within 5 %, yaw linear within 3 %
    wrong_am = tmp_path / "wrong_am.xml"
    wrong_am.write_text(wrong.read_text().replace('value="2.6 18.5 13.3 0.054 0.0173 0.28"',
                                                  'value="5 18.5 13.3 0.054 0.0173 0.5"'))
    out = tmp_path / "free_am.json"
    p = identify("free", log, "--model", wrong_am, "--initial-velocity", "zero", "--added-mass", "--out", out)
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())["dofs"]
    assert abs(d["surge"]["added_mass"] / 2.6 - 1) < 0.10, d
    assert abs(d["surge"]["quadratic_damping"] / 34.96 - 1) < 0.05, d
    assert abs(d["yaw"]["linear_damping"] / 4.64 - 1) < 0.03, d
    still = tmp_path / "still.csv"
    logs.write_log(still, np.arange(0, 2, 0.1), pose=np.tile([0, 0, -2, 1, 0, 0, 0], (20, 1)),
                   commands=np.full((20, 6), 1500.0), names=make_example_logs.NAMES, command_units="pwm_us")
    p = identify("free", still, "--model", wrong)
    assert p.returncode == 1 and "does not move in surge" in p.stderr, p.stderr
    p = identify("free", log, "--model", wrong, "--dofs", "surge,surge")
    assert p.returncode == 1 and "expected distinct dofs" in p.stderr, p.stderr


def test_scaling_extrapolation_and_write_model(tmp_path):
    """--scale 2 (seed 002 §3.2.3, eq. 3.24: lambda^2 for quadratic and linear terms) multiplies
    both by 4, standard errors alike; --added-mass extrapolates sway from heave with its ratio;
    --write-model writes a model Nereid loads, carrying the fitted terms."""
    tow = os.path.join(ROOT, "examples", "logs", "tow")
    base, scaled = tmp_path / "base.json", tmp_path / "scaled.json"
    assert identify("tow", tow, "--out", base).returncode == 0
    p = identify("tow", tow, "--out", scaled, "--scale", "2", "--added-mass", "2.6 18.5 2.6 0.054 0.0173 0.28",
                 "--model", nereid.model_path("bluerov"), "--write-model", tmp_path / "m.xml")
    assert p.returncode == 0, p.stderr
    b = json.loads(base.read_text())["dofs"]["surge"]
    s = json.loads(scaled.read_text())
    full = s["dofs"]["surge"]["full_size"]
    assert full["quadratic_damping"] == pytest.approx(4 * b["quadratic_damping"])
    assert full["linear_damping"] == pytest.approx(4 * b["linear_damping"])
    assert s["hydrodynamics"]["quadratic_damping_se"][0] == pytest.approx(4 * b["quadratic_damping_se"])
    # surge is not a source of the seed's rules: nothing is extrapolated from it
    assert s["extrapolated"] == {} and s["hydrodynamics"]["quadratic_damping"][1] is None
    text = (tmp_path / "m.xml").read_text()
    assert f"{full['quadratic_damping']:.6g} 103.25 74.23" in text
    nereid.load(str(tmp_path / "m.xml"))
    p = identify("tow", tow, "--write-model", tmp_path / "x.xml")
    assert p.returncode == 1 and "--write-model needs --model" in p.stderr


def test_free_setup_past_actuators_with_zero_or_several_controls(tmp_path, heavy_behind_multi_control_actuators_xml):
    """identify free on the Heavy behind an orientation servo, a 3-input PID and an input-less
    DC motor (whose float is the model's first free body): the trial's vehicle is the Heavy,
    the free body its logged thrusters move; each logged command lands in its thruster's
    control (6-13), the other controls stay neutral; the same commands as on the Heavy alone.
    --body float is refused: the coefficients fitted are the Heavy's."""
    import identify_free
    model_path = heavy_behind_multi_control_actuators_xml
    t = np.arange(0, 2.0, 0.05)
    names = [f"thr{i}" for i in range(1, 9)]
    commands = 1500 + 40 * np.sin(np.outer(t, np.arange(1, 9)))
    pose = np.tile([0, 0, -2, 1, 0, 0, 0], (len(t), 1))
    pose[:, 0] = 0.1 * t
    path = tmp_path / "trial.csv"
    logs.write_log(path, t, pose=pose, commands=commands, names=names, command_units="pwm_us")
    log = logs.load_log(path)
    identify_free.replay_tool._load_nereid()
    meas = identify_free.replay_tool.measured_motion(log)
    init, ctrl, ts, layout = identify_free._setup(model_path, log, meas, "zero", 0.0)
    alone = identify_free._setup(nereid.model_path("bluerov2_heavy"), log, meas, "zero", 0.0)
    assert ctrl.shape[1] == 14 and alone[1].shape[1] == 8
    assert np.array_equal(ctrl[:, 6:], alone[1])
    assert np.all(ctrl[:, :6] == 0)
    assert np.ptp(ctrl[:, 6]) > 30  # the commands really vary (40 sin t over 2 s)
    with pytest.raises(identify_tool.InputError,
                       match=r"identify free fits nereid.hydrodynamics instance 'heavy_hydro', on body 'heavy', "
                             r"but the trial's vehicle is body 'float' \(--body\)"):
        identify_free._setup(model_path, log, meas, "zero", 0.0, body="float")
    # a second instance: the file's first coefficients might be the other body's
    two = tmp_path / "two.xml"
    text = open(model_path).read()
    first = text.index("<instance name=\"heavy_hydro\">")
    end = text.index("</instance>", first) + len("</instance>")
    two.write_text(text[:first] + text[first:end].replace("heavy_hydro", "float_hydro")
                   .replace("value=\"heavy\"", "value=\"float\"") + text[first:])
    with pytest.raises(identify_tool.InputError, match=r"two.xml \(--model\): 2 nereid.hydrodynamics instances "
                                                      r"\('float_hydro', 'heavy_hydro'\); identify free fits a model with one"):
        identify_free._setup(str(two), log, meas, "zero", 0.0)
    # an instance attached to its body (<body><plugin instance=...>), without a body key
    attached = tmp_path / "attached.xml"
    key = text[first:end]
    body_key = key[key.index("<config key=\"body\""):]
    body_key = body_key[:body_key.index("/>") + 2]
    attached_text = text.replace(body_key, "", 1)
    at = attached_text.index("<body name=\"heavy\"")
    at = attached_text.index(">", at) + 1
    attached.write_text(attached_text[:at] + "<plugin instance=\"heavy_hydro\"/>" + attached_text[at:])
    assert np.array_equal(identify_free._setup(str(attached), log, meas, "zero", 0.0)[1], ctrl)
    with pytest.raises(identify_tool.InputError, match="instance 'heavy_hydro', on body 'heavy'"):
        identify_free._setup(str(attached), log, meas, "zero", 0.0, body="float")
    # a logged name the model lacks is named first (not hidden behind the choice of vehicle)
    wrong = tmp_path / "wrong_names.csv"
    logs.write_log(wrong, t, pose=pose, commands=commands[:, :2], names=["thr1x", "thr2x"], command_units="pwm_us")
    with pytest.raises(Exception, match="column 'cmd.thr1x': the model has no actuator 'thr1x'"):
        identify_free._setup(model_path, logs.load_log(wrong), meas, "zero", 0.0)
