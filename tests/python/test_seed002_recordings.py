"""Seed 002's recorded Gazebo runs (data/seed002_recordings, tools/seed002_recordings.py)
and the seed's own error measure (tools/seed002_measure.py): Table 6.1's PID row
(1.208e-3, 1.931e-6, 183.70 s; seed 002 Table 6.1, computed by the author's
exp2_pid_mpc/plot_graphs_2.py) comes back from the recording to every printed digit."""
import os
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import seed002_measure  # noqa: E402
from nereid.logs import load_log  # noqa: E402

DATA = ROOT / "data" / "seed002_recordings"


def read_log(path):
    """The log through the shared loader: (meta, {column: values}) on the log's rows."""
    log = load_log(str(path))
    cols = {"t": log.pose.t}
    for name, i in zip(("x", "y", "z", "qw", "qx", "qy", "qz"), range(7)):
        cols[name] = log.pose.values[:, i]
    assert np.array_equal(log.velocity.t, log.pose.t)
    for name, i in zip("uvwpqr", range(6)):
        cols[name] = log.velocity.values[:, i]
    if log.commands is not None:
        full = np.full((len(log.pose.t), len(log.names)), np.nan)
        full[np.searchsorted(log.pose.t, log.commands.t)] = log.commands.values
        for i, n in enumerate(log.names):
            cols[f"cmd.{n}"] = full[:, i]
    return log.meta, cols


def test_table_6_1_pid_row_from_the_recording():
    meta, log = read_log(DATA / "exp2_pid.csv.gz")
    assert meta["nereid-log"] == "1" and meta["frame"] == "NWU" and meta["command_units"] == "newton"
    lo, hi = seed002_measure.PID_WINDOW_EXP2
    t = log["t"][lo:hi]
    pos = np.stack([log[c][lo:hi] for c in "xyz"], axis=1)
    q = np.stack([log[c][lo:hi] for c in ("qx", "qy", "qz", "qw")], axis=1)
    m = seed002_measure.measure(t, pos, q)
    # the printed digits of Table 6.1: 1.208e-3 m^2, 1.931e-6, 183.70 s
    assert round(m["mse_position_m2"], 6) == 1.208e-3
    assert round(m["mse_rotation"], 9) == 1.931e-6
    assert round(m["completion_s"], 2) == 183.70


def test_the_path_is_the_seeds_zigzag():
    p = seed002_measure.path_points(1000)
    # six 2 m strokes at y = 0 .. 6.25 between z = -2 and -4, half circles of radius 0.625
    # below and above them (so z spans -4.625 .. -1.375)
    assert p[:, 1].min() == 0 and abs(p[:, 1].max() - 6.25) < 1e-12
    assert abs(p[:, 2].max() + 1.375) < 1e-5 and abs(p[:, 2].min() + 4.625) < 1e-5
    strokes = p[np.isin(p[:, 1], 1.25 * np.arange(6))]
    assert abs(strokes[:, 2].max() + 2) < 1e-12 and abs(strokes[:, 2].min() + 4) < 1e-12
    assert np.all(p[:, 0] == 0)
    # samples 1/1000 apart along the strokes, about 1/1000 m along the arcs
    steps = np.linalg.norm(np.diff(p, axis=0), axis=1)
    assert steps.max() < 2e-3 and np.median(steps) == pytest.approx(1e-3, rel=1e-6)


def test_a_point_on_the_path_has_no_error_and_an_offset_its_square():
    p = seed002_measure.path_points(1000)[5000:5001]  # on the second half circle or a stroke
    t = np.array([0.0, 1.0])
    q = np.array([[0, 0, 0, 1.0]] * 2)
    exact = seed002_measure.measure(t, np.repeat(p, 2, axis=0), q)
    assert exact["mse_position_m2"] == 0 and exact["mse_rotation"] == 0
    off = seed002_measure.measure(t, np.repeat(p + [0.1, 0, 0], 2, axis=0), q)
    assert off["mse_position_m2"] == pytest.approx(0.01, rel=1e-12)  # x is normal to the y-z path
    tilt = np.array([[np.sin(0.05), 0, 0, np.cos(0.05)]] * 2)  # 0.1 rad about x
    assert seed002_measure.measure(t, np.repeat(p, 2, axis=0), tilt)["mse_rotation"] == pytest.approx(np.sin(0.05) ** 2)


@pytest.mark.parametrize("name", ["exp1_pid", "exp1_mpc", "exp2_pid", "exp2_mpc", "exp3_mpc"])
def test_the_logs_follow_the_format(name):
    meta, log = read_log(DATA / f"{name}.csv.gz")
    assert meta["source"].startswith("dobots/tijmen_graduation@08ac0e5")
    assert "Apache" in meta["license"]
    t = log["t"]
    assert np.all(np.diff(t) > 0)
    assert np.allclose(np.diff(t), 0.05, atol=1e-6)  # 20 Hz odometry
    q = np.stack([log[c] for c in ("qw", "qx", "qy", "qz")], axis=1)
    assert np.allclose(np.linalg.norm(q, axis=1), 1, atol=1e-8)
    if name.startswith("exp1"):  # exp1's bags hold the thrusters' input topic, not their thrust
        assert "command_units" not in meta and not any(c.startswith("cmd.") for c in log)
    else:
        assert meta["command_units"] == "newton"
        cmd = np.stack([log[f"cmd.thruster_{i}"] for i in range(8)], axis=1)
        present = ~np.isnan(cmd)
        assert np.all(present.all(1) | (~present).all(1))  # a group is all present or all empty
        assert present[-len(t) // 2:].all() and present.mean() > 0.97  # empty only before the first samples
        assert np.nanmax(cmd) <= 36 + 1e-6 and np.nanmin(cmd) >= -28 - 1e-6  # the T200 bounds of eq. 4.4
    # body velocity against the finite difference of the position (level, heading 0 runs)
    fd = np.gradient(np.stack([log[c] for c in "xyz"], axis=1), t, axis=0)
    vel = np.stack([log[c] for c in "uvw"], axis=1)
    assert np.abs(fd - vel).max() < 0.02


def test_a_gzip_log_reads_as_its_plain_text(tmp_path):
    import gzip
    plain = tmp_path / "exp1_mpc.csv"
    plain.write_bytes(gzip.open(DATA / "exp1_mpc.csv.gz").read())
    a, b = load_log(str(plain)), load_log(str(DATA / "exp1_mpc.csv.gz"))
    assert a.meta == b.meta and np.array_equal(a.pose.values, b.pose.values)
    bad = tmp_path / "broken.csv.gz"
    bad.write_bytes(gzip.compress(plain.read_bytes())[:200])  # truncated
    with pytest.raises(ValueError, match="broken.csv.gz: cannot read"):
        load_log(str(bad))


@pytest.mark.parametrize("controller,key,latency", [("pid_table61", "latency", -0.1), ("pid_table61", "latency", "0.1"),
                                                    ("mpc_run2", "latency", 10.5), ("pid_table61", "at_pose_rate", "yes")])
def test_a_latency_out_of_range_is_refused_naming_the_key(tmp_path, controller, key, latency):
    import json
    import subprocess
    cli = os.environ.get("NEREID_CLI", str(ROOT / "build" / "nereid"))
    scenario = json.loads((ROOT / "scenarios" / "seed002" / f"{controller}.json").read_text())
    scenario["model"] = str(ROOT / "models" / "raybot" / "raybot.xml")
    scenario["controller"][key] = latency
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario))
    done = subprocess.run([cli, "run", str(path), "--out", str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1
    assert f"/controller/{key}" in done.stderr and "Traceback" not in done.stderr, done.stderr
