#!/usr/bin/env python3
"""The DVL survey's section of the validation report (docs/sensors.md, "Scenarios").

    python3 tools/validate_sensors.py [--nereid build/nereid] [--work results/validation_sensors]
                                      [--out docs]

Runs scenarios/sensors/heavy_dvl_survey.json (the BlueROV2 Heavy crossing a valley whose two
planes fall from 5 m to 18 m depth, its DVL limited to 10 m of altitude) and checks, at
every DVL sample, the beams against the geometry: each beam's geometric range is the
distance along it to the seabed plane it meets (closed form from the sampled pose and the
DVL's mounting), a beam counts when its altitude (range cos 22.5 deg) lies in the DVL's
window, and bottom lock is three or more counted beams. The recorded lock flag must equal
that prediction at every sample (lost exactly where the beams' altitude exceeds the maximum,
regained after), the recorded ranges must equal the geometric ones within the range noise
(0.5 % relative, 1 sigma), and the DVL velocity under lock is set against the true velocity
of the DVL point in its frame. Run alone, it rewrites its section of OUT/validation.md
(between the markers) and its run in OUT/validation/figures.json; `nereid validate` calls
section() with the other cases.
"""
import math
import pathlib
import sys

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
BEGIN = "<!-- sensors: begin (tools/validate_sensors.py) -->"
END = "<!-- sensors: end -->"
QUICK_RUNS = ["sensors_dvl_survey"]

SCENARIO = "scenarios/sensors/heavy_dvl_survey.json"
# the scenario's valley (survey_valley.csv, size [20, 10], depth [18, 5]): z = -18 + 0.65 |x|
DEEPEST, SHALLOWEST, HALF_X = 18.0, 5.0, 20.0
SLOPE = (DEEPEST - SHALLOWEST) / HALF_X
# the DVL (heavy_dvl_survey.xml; models/bluerov2_heavy/README.md): site at (-0.12, 0, -0.13)
# from the vehicle's origin O_0, which is 0.02 m above the body frame (the CG, where the free
# joint's position is): (-0.12, 0, -0.11) in the body; turned 180 deg about x; 4 beams at
# 22.5 deg, azimuth 45 deg; 0.05-10 m; 4 Hz
DVL_POS = np.array([-0.12, 0.0, -0.11])
DVL_ROT = np.diag([1.0, -1.0, -1.0])
ANGLE, AZIMUTH0, MIN_ALT, MAX_ALT, RATE = math.radians(22.5), math.radians(45), 0.05, 10.0, 4.0
RANGE_NOISE = 0.005


def load_csv(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {name: data[:, i] for i, name in enumerate(header)}


def quat_to_matrix(w, x, y, z):
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def beams():
    az = AZIMUTH0 + np.arange(4) * math.pi / 2
    return np.stack([math.sin(ANGLE) * np.cos(az), math.sin(ANGLE) * np.sin(az),
                     np.full(4, math.cos(ANGLE))], axis=1)


def seabed_range(p, d):
    """Distance along the unit direction d from p to the valley's surface (two planes that
    meet at x = 0), inf if it misses both within the field."""
    best = math.inf
    for side in (1.0, -1.0):  # z = -DEEPEST + SLOPE * side * x, on the side's half
        denom = d[2] - SLOPE * side * d[0]
        if abs(denom) < 1e-15:
            continue
        r = (-DEEPEST + SLOPE * side * p[0] - p[2]) / denom
        hit = p + r * d
        if r > 0 and side * hit[0] >= 0 and abs(hit[0]) <= HALF_X:
            best = min(best, r)
    return best


def analyse(t):
    """Per DVL sample: the geometric ranges, predicted and recorded lock, velocity error."""
    time = t["time"]
    # a row holds the sensors of the pass that started its step: the reading in row i was
    # sampled at the state of row i - 1; DVL samples every 1 / RATE s from t = 0. The t = 0
    # sample is left out: `nereid run` takes it as the model loads, before the scenario
    # places the vehicle (a scenario with a "seed" restarts the sensors after placing it)
    period = 1.0 / RATE
    rows = [i for i in range(2, len(time))
            if abs(time[i - 1] / period - round(time[i - 1] / period)) < 1e-6]
    B = beams()
    out = {k: [] for k in ("t", "x", "altitude", "geo", "rec", "lock_rec", "lock_geo", "v_err", "status", "speed")}
    for i in rows:
        s = i - 1
        R = quat_to_matrix(t["heavy.qw"][s], t["heavy.qx"][s], t["heavy.qy"][s], t["heavy.qz"][s])
        p_body = np.array([t["heavy.px"][s], t["heavy.py"][s], t["heavy.pz"][s]])
        Rs = R @ DVL_ROT
        p = p_body + R @ DVL_POS
        geo = np.array([seabed_range(p, Rs @ b) for b in B])
        counted = (geo * math.cos(ANGLE) >= MIN_ALT) & (geo * math.cos(ANGLE) <= MAX_ALT)
        rec = np.array([t[f"dvl.range{k}"][i] for k in range(4)])
        status = t["dvl.status"][i]
        # the true velocity of the DVL point in its frame: v + w x r (w in the body frame)
        v = np.array([t["heavy.vx"][s], t["heavy.vy"][s], t["heavy.vz"][s]])
        w = R @ np.array([t["heavy.wx"][s], t["heavy.wy"][s], t["heavy.wz"][s]])
        v_dvl = Rs.T @ (v + np.cross(w, R @ DVL_POS))
        v_rec = np.array([t["dvl.vx"][i], t["dvl.vy"][i], t["dvl.vz"][i]])
        out["t"].append(time[s])
        out["x"].append(p[0])
        out["altitude"].append(p[2] + DEEPEST - SLOPE * abs(p[0]))
        out["geo"].append(geo)
        out["rec"].append(rec)
        out["lock_rec"].append(status == 1)
        out["lock_geo"].append(int(counted.sum()) >= 3)
        out["v_err"].append(np.linalg.norm(v_rec - v_dvl) if status == 1 else math.nan)
        out["speed"].append(np.linalg.norm(v))
        out["status"].append(status)
    return {k: np.array(v) for k, v in out.items()}


def figure(a, figdir):
    fig, axes = plt.subplots(3, 1, figsize=(7, 7), sharex=True)
    axes[0].plot(a["x"], a["altitude"], "k-", label="altitude of the DVL (vertical)")
    for k in range(4):
        axes[0].plot(a["x"], a["geo"][:, k] * math.cos(ANGLE), lw=0.8, label=f"beam {k}: geometric range x cos 22.5°")
    axes[0].axhline(MAX_ALT, color="r", ls="--", lw=0.8, label="max_altitude 10 m")
    axes[0].set_ylabel("altitude (m)")
    axes[1].step(a["x"], a["lock_rec"].astype(int), where="post", label="recorded bottom lock")
    axes[1].step(a["x"], a["lock_geo"].astype(int) * 0.9, where="post", ls="--",
                 label="predicted from the geometry (x 0.9)")
    axes[1].set_ylabel("lock")
    axes[2].semilogy(a["x"], a["v_err"] * 1e3, ".", ms=3)
    axes[2].set_ylabel("|v_DVL - v_true| (mm/s)")
    axes[2].set_xlabel("x of the DVL (m)")
    axes[0].set_title("BlueROV2 Heavy DVL survey across a valley (heavy_dvl_survey.json)")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(figdir / "sensors_dvl_survey.png", dpi=110)
    plt.close(fig)


def section(r, figdir):
    out = r.run("sensors_dvl_survey", "run", SCENARIO, "--record-every", "1")
    a = analyse(load_csv(out / "trajectory.csv"))
    figure(a, figdir)
    n = len(a["t"])
    agree = int(np.sum(a["lock_rec"] == a["lock_geo"]))
    lost = np.flatnonzero(np.diff(a["lock_rec"].astype(int)) == -1)
    regained = np.flatnonzero(np.diff(a["lock_rec"].astype(int)) == 1)
    x_lost = float(a["x"][lost[0] + 1]) if len(lost) else math.nan
    x_regained = float(a["x"][regained[0] + 1]) if len(regained) else math.nan
    valid = a["rec"] > 0
    rel = (a["rec"][valid] - a["geo"][valid]) / a["geo"][valid]
    water = int(np.sum(a["status"] == 2))
    v_err = a["v_err"][~np.isnan(a["v_err"])]
    # the least-squares velocity noise of the Janus array (docs/sensors.md "Navigation"):
    # per beam sigma_b = 1 mm/s + 1 % of u sin(a)/sqrt(2); sigma_x = sigma_y = sigma_b/(sqrt(2) sin a),
    # sigma_z = sigma_b/(2 cos a)
    u = float(np.mean(a["speed"][~np.isnan(a["v_err"])]))
    sigma_b = 0.001 + 0.01 * u * math.sin(ANGLE) / math.sqrt(2)
    v_expected = math.sqrt(2 * sigma_b ** 2 / (2 * math.sin(ANGLE) ** 2) + sigma_b ** 2 / (4 * math.cos(ANGLE) ** 2))
    checks = {"lock": agree == n and len(lost) == 1 and len(regained) == 1,
              "ranges": abs(float(np.mean(rel))) < 3 * RANGE_NOISE / math.sqrt(len(rel)) + 1e-4
              and abs(float(np.std(rel)) / RANGE_NOISE - 1) < 0.1,
              "velocity": abs(float(np.sqrt(np.mean(v_err ** 2))) / v_expected - 1) < 0.2}
    r.figures["sensors_dvl_survey"]["checks"] = {
        "samples": n, "lock_agrees": agree, "x_lost_m": x_lost, "x_regained_m": x_regained,
        "range_rel_mean": float(np.mean(rel)), "range_rel_std": float(np.std(rel)), "beams_compared": int(len(rel)),
        "v_err_rms_m_s": float(np.sqrt(np.mean(v_err ** 2))), "v_err_expected_m_s": v_expected,
        "water_track_samples": water}
    verdict = "passes" if all(checks.values()) else "FAILS"
    return f"""{BEGIN}
## Sensors: a DVL survey over a sloping seabed

`{SCENARIO}` (docs/sensors.md, "Scenarios"): the BlueROV2 Heavy with its sensor suite holds
2 m depth on a straight survey line along +x (its cascaded PID) across a valley of two planes
(`survey_valley.csv`: 5 m deep at x = ±20 m, 18 m at x = 0); its DVL (Water Linked A50
defaults, 4 Hz) is limited to 10 m of altitude. At each of the run's {n} DVL samples after
t = 0 (taken as the model loads, before the scenario places the vehicle) the
beams' geometric ranges are computed in closed form from the sampled pose (the distance
along each beam to the plane it meets), a beam counts when its altitude (range × cos 22.5°)
lies in 0.05–10 m, and bottom lock is three counted beams or more.

| Check | Result |
|---|---|
| recorded lock flag = geometric prediction | {agree} of {n} samples |
| bottom lock lost at | x = {x_lost:.2f} m (once) |
| bottom lock regained at | x = {x_regained:.2f} m (once) |
| samples without lock (water track through still water) | {water} |
| beam range against the geometric distance, {len(rel)} beams | mean relative error {np.mean(rel) * 1e3:+.3f} ‰, standard deviation {np.std(rel) * 1e2:.3f} % (the DVL's range noise: 0.5 %) |
| DVL velocity under lock against the DVL point's true velocity | {np.sqrt(np.mean(v_err ** 2)) * 1e3:.2f} mm/s RMS; the Janus least-squares closed form at {u:.2f} m/s (per beam 1 mm/s + 1 % of its radial speed) {v_expected * 1e3:.2f} mm/s |

The check {verdict}: the lock is lost exactly where fewer than three beams remain within
10 m of altitude (the two beams that look down the slope pass it together) and regained
where three come back within it on the far flank.

![DVL survey](validation/sensors_dvl_survey.png)
{END}
"""


def main():
    sys.path.insert(0, str(ROOT / "tools"))
    import validate
    args = validate.section_parser(__doc__.splitlines()[0], "validation_sensors").parse_args()
    return validate.run_section(section, args, begin=BEGIN, end=END)


if __name__ == "__main__":
    sys.exit(main())
