#!/usr/bin/env python3
"""Seed 000's two-ROV pool trials, run as the seed ran them, and its metrics.

    python3 tools/seed000_trials.py [--nereid build/nereid] [--work results/seed000_trials]
                                    [--png FILE.png] [--json FILE.json]

The trials (scenarios/seed000/*.json, `nereid run`): the BlueROV pair of
models/multi/bluerov_pair_thrusters.xml with its twelve T200s driven by PWM through
nereid.thruster (seed 000 eq. 12, thrust moments at the mount positions), 3 s of zero input
(1500 us), then the surge thrusters at 1600, 1700 or 1800 us on both ROVs (straight runs,
section 4.2.1) or at 1700 us on the left ROV only (rotational run, section 4.2.2, Fig. 16's
Delta 200 us); each ROV's autopilot holds its depth, roll and pitch on its vertical
thrusters (scenario "stabilize", include/nereid/stabilize.h). 12 s, as the seed's datasets.

The seed's metrics (section 4.2): the steady speed, and the mean Euclidean distance between
two trajectories after dynamic time warping (DTW) -- x-y position (m) and the norm of the
horizontal velocity (m/s) for the straight runs (Fig. 14), heading (rad), speed and yaw rate
r (rad/s) for the rotational runs (Fig. 17) -- plus Pearson's R (Figs. 15, 18). The seed
compares simulation with pool measurements; the measurements are not published in the seed,
so here DTW compares what can be compared in Nereid:
  * the two constraint methods: MuJoCo's weld against Udwadia-Kalaba (`--constraints uk`);
  * the thruster model: eq. 12 with the inflow loss T_nu against T_nu = 0, to show how much
    the one assumed thruster parameter moves the result against the seed's error scale.
DTW is dtaidistance's (dtw_ndim.warping_path with use_c=True, its C implementation), on the
whole 12 s (every matched pair counts once in the mean).
"""
import argparse
import json
import pathlib
import re
import sys

import numpy as np

from seed000_bg_sweep import body_masses, load_csv, runner

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRIALS = (("pair_pwm1600", "straight", 1600), ("pair_pwm1700", "straight", 1700),
          ("pair_pwm1800", "straight", 1800), ("pair_rotational", "rotational", 1700))
BODIES = ("rov_left", "connector", "rov_right")
RECORD_EVERY = 4  # steps: dt 0.005 s, a sample every 0.02 s
LAST_S = 3.0      # window of the steady speed, s
ENGAGE_S = 3.0    # the surge thrusters start at t = 3 s
# the seed's figures (section 4.2.1): DTW errors of its Delta 300 us dataset, and the bound
# over all straight runs
SEED_DTW_D300 = (0.027, 0.025)  # m, m/s
SEED_DTW_BOUND = (0.15, 0.1)    # m, m/s


def series(out, masses):
    """Time series of one run: the assembly's centre of mass, its speed, heading and yaw rate,
    and the largest roll and pitch of the ROVs (from the autopilots' log)."""
    t = load_csv(out / "trajectory.csv")
    hold = load_csv(out / "stabilize.csv")
    total = sum(masses.values())
    com = {a: sum(masses[b] * t[f"{b}.p{a}"] for b in BODIES) / total for a in "xyz"}
    time = t["time"]
    vx, vy = np.gradient(com["x"], time), np.gradient(com["y"], time)
    # heading of the connector (the assembly's frame), z-up yaw unwrapped; the seed's NED
    # heading psi is its negative, r likewise
    w, z = t["connector.qw"], t["connector.qz"]
    x, y = t["connector.qx"], t["connector.qy"]
    yaw = np.unwrap(np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))
    rate = t["connector.wz"]  # body-frame yaw rate (FLU)
    return {"t": time, "x": com["x"], "y": com["y"], "z": com["z"], "speed": np.hypot(vx, vy),
            "psi": -yaw, "r": -rate,
            "max_roll_deg": max(np.degrees(np.abs(hold[f"{b}.roll"])).max() for b in ("rov_left", "rov_right")),
            "max_pitch_deg": max(np.degrees(np.abs(hold[f"{b}.pitch"])).max() for b in ("rov_left", "rov_right"))}


def dtw_mean_distance(a, b):
    """The seed's DTW error: the mean Euclidean distance between the points the warping path
    matches (a, b: arrays of shape (n, d) or (n,))."""
    from dtaidistance import dtw, dtw_ndim
    a = np.ascontiguousarray(np.asarray(a, dtype=np.double).reshape(len(a), -1))
    b = np.ascontiguousarray(np.asarray(b, dtype=np.double).reshape(len(b), -1))
    if a.shape[1] == 1:  # the C implementation takes 1-D series through dtw, not dtw_ndim
        path = dtw.warping_path(a[:, 0].copy(), b[:, 0].copy(), use_c=True)
    else:
        path = dtw_ndim.warping_path(a, b, use_c=True)
    i, j = np.array(path).T
    return float(np.linalg.norm(a[i] - b[j], axis=1).mean())


def pearson(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def compare(kind, s1, s2):
    """The seed's DTW errors and Pearson R between two runs of one trial."""
    out = {}
    if kind == "straight":
        out["dtw_position_m"] = dtw_mean_distance(np.column_stack([s1["x"], s1["y"]]),
                                                  np.column_stack([s2["x"], s2["y"]]))
        out["dtw_speed_mps"] = dtw_mean_distance(s1["speed"], s2["speed"])
        out["pearson_x"] = pearson(s1["x"], s2["x"])
        out["pearson_speed"] = pearson(s1["speed"], s2["speed"])
    else:
        out["dtw_heading_rad"] = dtw_mean_distance(s1["psi"], s2["psi"])
        out["dtw_speed_mps"] = dtw_mean_distance(s1["speed"], s2["speed"])
        out["dtw_r_radps"] = dtw_mean_distance(s1["r"], s2["r"])
        for k in ("x", "y", "speed", "r"):
            out[f"pearson_{k}"] = pearson(s1[k], s2[k])
    return out


def no_loss_copy(model, scenario, work):
    """Copies of the model with T_nu = 0 and of the scenario pointing at it."""
    text = pathlib.Path(model).read_text()
    edited, n = re.subn(r'(<config key="thrust_loss" value=")[^"]*(")', r"\g<1>0\g<2>", text)
    if n == 0:
        raise ValueError(f"{model}: no thrust_loss key to switch off")
    dst_model = work / "inputs" / (pathlib.Path(model).stem + "_no_inflow_loss.xml")
    dst_model.parent.mkdir(parents=True, exist_ok=True)
    dst_model.write_text(edited.replace("<mujoco model=", "<!-- tools/seed000_trials.py: thrust_loss "
                                        "set to 0 -->\n<mujoco model=", 1))
    spec = json.loads(pathlib.Path(scenario).read_text())
    spec["model"] = str(dst_model)
    dst = work / "inputs" / (pathlib.Path(scenario).stem + "_no_inflow_loss.json")
    dst.write_text(json.dumps(spec, indent=2))
    return dst


def run_trials(nereid, work, run=None):
    """Runs every trial three ways (weld; UK; weld without the inflow loss) and returns
    {trial: {"kind", "pwm", "runs": {variant: series}, "uk_vs_weld", "loss_vs_no_loss",
    "steady_speed_mps"}}."""
    work = pathlib.Path(work).resolve()

    go = runner(nereid, work, ROOT, run)

    results = {}
    for name, kind, pwm in TRIALS:
        scenario = ROOT / "scenarios" / "seed000" / f"{name}.json"
        model = (scenario.parent / json.loads(scenario.read_text())["model"]).resolve()
        masses = {b: m for b, m in body_masses(model).items() if b in BODIES}
        every = ("--record-every", str(RECORD_EVERY))
        runs = {
            "weld": series(go(f"{name}_weld", "run", str(scenario), "--constraints", "mujoco", *every), masses),
            "uk": series(go(f"{name}_uk", "run", str(scenario), "--constraints", "uk", *every), masses),
            "weld_no_loss": series(go(f"{name}_weld_no_loss", "run", str(no_loss_copy(model, scenario, work)),
                                      "--constraints", "mujoco", *every), masses),
        }
        w = runs["weld"]
        window = w["t"] > w["t"][-1] - LAST_S
        results[name] = {
            "kind": kind, "pwm": pwm, "runs": runs,
            "steady_speed_mps": {k: float(s["speed"][window].mean()) for k, s in runs.items()},
            "steady_yaw_rate_radps": {k: float(s["r"][window].mean()) for k, s in runs.items()},
            "uk_vs_weld": compare(kind, runs["weld"], runs["uk"]),
            "loss_vs_no_loss": compare(kind, runs["weld"], runs["weld_no_loss"]),
        }
    return results


def summary(results):
    """The results without the time series (for JSON)."""
    out = {}
    for name, r in results.items():
        out[name] = {k: v for k, v in r.items() if k != "runs"}
        out[name]["max_roll_deg"] = {k: s["max_roll_deg"] for k, s in r["runs"].items()}
        out[name]["max_pitch_deg"] = {k: s["max_pitch_deg"] for k, s in r["runs"].items()}
    return out


def plot(results, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(2, 2, figsize=(11, 7.5))
    for name, r in results.items():
        w, nl = r["runs"]["weld"], r["runs"]["weld_no_loss"]
        if r["kind"] == "straight":
            line, = ax[0, 0].plot(w["t"], w["x"], label=f"{r['pwm']} us")
            ax[0, 0].plot(nl["t"], nl["x"], "--", color=line.get_color(), alpha=0.6)
            ax[0, 1].plot(w["t"], w["speed"], color=line.get_color(), label=f"{r['pwm']} us")
            ax[0, 1].plot(nl["t"], nl["speed"], "--", color=line.get_color(), alpha=0.6)
        else:
            ax[1, 0].plot(w["x"], w["y"], label="weld (MuJoCo)")
            ax[1, 0].plot(r["runs"]["uk"]["x"], r["runs"]["uk"]["y"], ":", label="UK")
            ax[1, 0].plot(nl["x"], nl["y"], "--", alpha=0.6, label="T_nu = 0")
            ax[1, 1].plot(w["t"], np.degrees(w["psi"]), label="heading psi [deg] (NED)")
            ax2 = ax[1, 1].twinx()
            ax2.plot(w["t"], w["r"], color="C3", label="r [rad/s]")
            ax2.plot(w["t"], w["speed"], color="C2", label="||v|| [m/s]")
            ax2.set_ylabel("r [rad/s], ||v|| [m/s]")
            ax2.legend(loc="lower right", fontsize=8)
    for a in (ax[0, 0], ax[0, 1], ax[1, 1]):
        a.axvline(ENGAGE_S, color="grey", lw=0.8, ls="--")
        a.set_xlabel("time [s]")
        a.grid(alpha=0.3)
    ax[0, 0].set_ylabel("x of the assembly's CoM [m]")
    ax[0, 0].set_title("straight runs (Fig. 13a); dashed: T_nu = 0")
    ax[0, 1].set_ylabel("||v|| horizontal [m/s]")
    ax[0, 1].set_title("straight runs (Fig. 13c)")
    ax[1, 0].set_xlabel("x [m]"); ax[1, 0].set_ylabel("y [m] (z-up world)")
    ax[1, 0].set_title("rotational run, left ROV at 1700 us (Fig. 16a)")
    ax[1, 0].axis("equal"); ax[1, 0].grid(alpha=0.3)
    ax[1, 1].set_ylabel("psi [deg]")
    ax[1, 1].set_title("rotational run (Fig. 16b-d)")
    for a in (ax[0, 0], ax[0, 1], ax[1, 0]):
        a.legend(fontsize=8)
    ax[1, 1].legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def markdown_table(results):
    rows = ["| trial | steady speed (weld / UK / T_nu = 0) [m/s] | max roll, pitch [deg] | "
            "DTW UK vs weld | DTW T_nu vs 0 | Pearson R (T_nu vs 0) |",
            "|---|---|---|---|---|---|"]
    for name, r in results.items():
        s = r["steady_speed_mps"]
        w = r["runs"]["weld"]
        u, n = r["uk_vs_weld"], r["loss_vs_no_loss"]
        if r["kind"] == "straight":
            label = f"straight, {r['pwm']} us"
            d1 = f"{u['dtw_position_m']:.2g} m, {u['dtw_speed_mps']:.2g} m/s"
            d2 = f"{n['dtw_position_m']:.3f} m, {n['dtw_speed_mps']:.3f} m/s"
            p = f"x {n['pearson_x']:.4f}, \\|v\\| {n['pearson_speed']:.4f}"
        else:
            label = f"rotational, left {r['pwm']} us"
            d1 = f"psi {u['dtw_heading_rad']:.2g} rad, \\|v\\| {u['dtw_speed_mps']:.2g} m/s, r {u['dtw_r_radps']:.2g} rad/s"
            d2 = f"psi {n['dtw_heading_rad']:.3f} rad, \\|v\\| {n['dtw_speed_mps']:.3f} m/s, r {n['dtw_r_radps']:.3f} rad/s"
            p = f"x {n['pearson_x']:.4f}, y {n['pearson_y']:.4f}, r {n['pearson_r']:.4f}"
        rows.append(f"| {label} | {s['weld']:.3f} / {s['uk']:.3f} / {s['weld_no_loss']:.3f} | "
                    f"{w['max_roll_deg']:.2f}, {w['max_pitch_deg']:.2f} | {d1} | {d2} | {p} |")
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nereid", default=str(ROOT / "build" / "nereid"))
    ap.add_argument("--work", default=str(ROOT / "results" / "seed000_trials"))
    ap.add_argument("--png", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    results = run_trials(args.nereid, args.work)
    print(markdown_table(results))
    if args.png:
        plot(results, args.png)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(summary(results), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
