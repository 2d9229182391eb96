#!/usr/bin/env python3
"""nereid replay: drive the simulation with a trial log's commands and compare it with the
log's motion-capture poses (seed 000 §4.2; docs/own_vehicle.md, Part 2; format docs/logs.md).

    nereid replay LOG.csv --model MODEL.xml|SCENARIO.json [--out DIR] [--body NAME]
                  [--max-offset S] [--kf-q Q] [--kf-r R] [--initial-velocity kf|zero] [--no-plots]

The measured velocities come from the kinematic Kalman filter (nereid.kinematic_kf: constant
acceleration, white jerk q, position noise r, Rauch-Tung-Striebel smoothed). The simulation
starts from the first pose (the filtered position, the first 0.1 s's mean attitude) with the
filter's velocity, or at rest (--initial-velocity zero); commands are held between samples.
The time offset d (the log's motion lags the simulation by d) minimises the RMS velocity
difference over a grid of 5 ms, refined by a parabola. Reports RMSE and the DTW mean distance
(dtaidistance, seed 000's measure) of position and velocity, raw and after the offset, in
DIR/replay.json, with DIR/replay.png (seed 000 Figs. 13 and 16). Bad input exits 1.
"""
import json
import math
import os
import sys

import numpy as np
from tool_args import UsageParser, cut_long_words


class InputError(ValueError):
    pass


# the nereid package is imported once the command line has been checked (_load_nereid)
kinematic_kf = logs = None
LogError = InputError


def _load_nereid():
    global kinematic_kf, logs, LogError
    try:
        from nereid import kinematic_kf, logs
        from nereid.logs import LogError
    except ImportError as e:  # a package built for another MuJoCo, or not built: a message, not a traceback
        raise InputError(f"cannot import the nereid package: {e}") from None

MAX_DURATION_S = 3600.0


def dtw_mean_distance(a, b):
    """Seed 000's DTW error: the mean Euclidean distance between the points the warping path
    matches (dtaidistance's C implementation)."""
    from dtaidistance import dtw, dtw_ndim
    a = np.ascontiguousarray(np.asarray(a, dtype=np.double).reshape(len(a), -1))
    b = np.ascontiguousarray(np.asarray(b, dtype=np.double).reshape(len(b), -1))
    if a.shape[1] == 1:
        path = dtw.warping_path(a[:, 0].copy(), b[:, 0].copy(), use_c=True)
    else:
        path = dtw_ndim.warping_path(a, b, use_c=True)
    i, j = np.array(path).T
    return float(np.linalg.norm(a[i] - b[j], axis=1).mean())


def measured_motion(log, q=None, r=None):
    """Body-origin positions, world velocities, body angular rates and yaw from the log's poses
    through the kinematic Kalman filter."""
    if log.pose is None:
        raise InputError(f"{log.path}: the log has no pose columns ({','.join(logs.POSE_COLUMNS)}): nothing to compare")
    q = kinematic_kf.DEFAULT_Q if q is None else q
    r = kinematic_kf.DEFAULT_R if r is None else r
    t = log.pose.t
    quat = log.pose.values[:, 3:7]
    p_body = log.body_positions()
    p, v, _ = kinematic_kf.filter_kinematic(t, p_body, q=q, r=r)
    ang, w, _ = kinematic_kf.filter_kinematic(t, kinematic_kf.rotation_increments(quat), q=q, r=r)
    return {"t": t, "p": p_body, "p_filtered": p, "v": v, "w": w, "quat": quat}


def _has_free_joint(model, b):
    """Whether body b moves on a free joint (MuJoCo allows one only as a body's sole joint)."""
    import mujoco
    return model.body_jntnum[b] > 0 and model.jnt_type[model.body_jntadr[b]] == mujoco.mjtJoint.mjJNT_FREE


def _free_root(model, b):
    """The body with a free joint that carries body b (b itself or an ancestor), or -1."""
    while b > 0:
        if _has_free_joint(model, b):
            return b
        b = model.body_parentid[b]
    return -1


def _actuated_body(model, a):
    """The body actuator a's transmission acts on (its site's, joint's or body's), or -1 (a
    tendon)."""
    import mujoco
    trn = mujoco.mjtTrn
    kind, target = int(model.actuator_trntype[a]), int(model.actuator_trnid[a, 0])  # (numpy ints: `in` would miss)
    if kind in (int(trn.mjTRN_SITE), int(trn.mjTRN_SO3), int(trn.mjTRN_SLIDERCRANK)):
        return int(model.site_bodyid[target])
    if kind in (int(trn.mjTRN_JOINT), int(trn.mjTRN_JOINTINPARENT)):
        return int(model.jnt_bodyid[target])
    if kind == int(trn.mjTRN_BODY):
        return target
    return -1


def _vehicle(model, body, log=None):
    """The replayed vehicle: --body, else the one free body the log's commanded actuators
    move (a model may hold other free bodies: a dock, a float, a second vehicle), else the
    model's first free body."""
    import mujoco
    if body:
        try:
            b = model.body(body).id
        except KeyError:
            raise InputError(f"--body {body!r}: the model has no such body") from None
        if not _has_free_joint(model, b):
            raise InputError(f"--body {body!r}: the body has no free joint")
        return b
    if log is not None and log.commands is not None:
        moved = {}
        for name in log.names:
            a = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, name)
            root = _free_root(model, _actuated_body(model, a)) if a >= 0 else -1
            if root >= 0:
                moved.setdefault(root, name)
        if len(moved) > 1:
            which = ", ".join(f"'{model.body(b).name}' (cmd.{n})" if model.body(b).name else f"body {b} (unnamed; "
                              f"name it for --body) (cmd.{n})" for b, n in moved.items())
            raise InputError(f"{log.path}: the logged actuators move {len(moved)} free bodies ({which}): "
                             "give the vehicle with --body")
        if moved:
            return next(iter(moved))
    for b in range(model.nbody):
        if _has_free_joint(model, b):
            return b
    raise InputError("the model has no free body to replay")


def command_map(model, log):
    """Per logged command column: (actuator index, a function of the logged value -> ctrl)."""
    import mujoco
    out = []
    for j, name in enumerate(log.names):
        a = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, name)
        if a < 0:
            actuators = [model.actuator(i).name for i in range(model.nactuator)]
            raise InputError(f"{log.path}: column 'cmd.{name}': the model has no actuator '{name}' "
                             f"(it has {', '.join(actuators) or 'none'})")
        if model.actuator_ctrlnum[a] != 1:
            raise InputError(f"{log.path}: column 'cmd.{name}': actuator '{name}' takes "
                             f"{model.actuator_ctrlnum[a]} controls; a logged command drives an actuator with one")
        c = model.actuator_ctrladr[a]  # its control: ctrlrange and ctrllimited are per control
        lo, hi = model.actuator_ctrlrange[c]
        limited = bool(model.actuator_ctrllimited[c])
        if log.command_units == "normalized":
            if not limited:
                raise InputError(f"{log.path}: column 'cmd.{name}': normalized commands need the actuator's ctrlrange")
            out.append((a, lambda x, lo=lo, hi=hi: 0.5 * (lo + hi) + 0.5 * (hi - lo) * x))
        elif log.command_units == "pwm_us":
            if limited and not (400 <= lo and hi <= 2600):
                raise InputError(f"{log.path}: column 'cmd.{name}': pwm_us commands, but actuator '{name}' takes "
                                 f"{lo:g}..{hi:g} (not PWM): give the log's command_units as the model takes them")
            out.append((a, lambda x: x))
        else:
            out.append((a, lambda x: x))
    return out


def start_from_log(data, qadr, vadr, meas, initial_velocity):
    """The vehicle's free joint (position address qadr, velocity address vadr) at the log's
    first filtered position; the attitude the mean of the first 0.1 s of quaternions (signs
    aligned), against pose noise; with initial_velocity "kf" the filter's first velocities."""
    t0 = meas["t"][0]
    data.qpos[qadr:qadr + 3] = meas["p_filtered"][0]
    first = meas["quat"][meas["t"] <= t0 + 0.1]
    first = first * np.sign(first @ first[0])[:, None]
    q0 = first.mean(axis=0)
    data.qpos[qadr + 3:qadr + 7] = q0 / np.linalg.norm(q0)
    if initial_velocity == "kf":
        data.qvel[vadr:vadr + 3] = meas["v"][0]
        data.qvel[vadr + 3:vadr + 6] = meas["w"][0]


def neutral_controls(model):
    """Controls for the actuators a log does not drive: 0, or the range's middle where 0 is out
    of range."""
    out = np.zeros(model.nu)
    for c in range(model.nu):  # ctrlrange and ctrllimited are per control
        lo, hi = model.actuator_ctrlrange[c]
        out[c] = 0.5 * (lo + hi) if model.actuator_ctrllimited[c] and not lo <= 0 <= hi else 0.0
    return out


def simulate(model_path, log, meas, body=None, initial_velocity="kf"):
    """The model driven by the log's commands from the first measured pose; returns times,
    body positions, world velocities, body angular rates and quaternions at every step."""
    import nereid
    model, data = nereid.load(model_path)
    cmap = command_map(model, log) if log.commands is not None else []  # names checked first
    b = _vehicle(model, body, log)
    jnt = model.body_jntadr[b]
    qadr, vadr = model.jnt_qposadr[jnt], model.jnt_dofadr[jnt]
    t0, t1 = meas["t"][0], meas["t"][-1]
    if t1 - t0 > MAX_DURATION_S:
        raise InputError(f"{log.path}: the poses span {t1 - t0:g} s (the limit is {MAX_DURATION_S:g} s)")
    start_from_log(data, qadr, vadr, meas, initial_velocity)
    data.time = t0
    data.ctrl[:] = neutral_controls(model)  # actuators the log does not drive
    nereid.forward(model, data)
    s = nereid.stepper(model, data)
    dt = model.opt.timestep
    n = int(math.ceil((t1 - t0) / dt)) + 1
    out = {k: np.empty((n, d)) for k, d in (("p", 3), ("v", 3), ("w", 3), ("quat", 4))}
    out["t"] = t0 + dt * np.arange(n)
    ct = log.commands.t if log.commands is not None else np.array([])
    k = -1
    for i in range(n):
        t = out["t"][i]
        while k + 1 < len(ct) and ct[k + 1] <= t + 1e-9:
            k += 1
            for j, (a, f) in enumerate(cmap):
                data.ctrl[model.actuator_ctrladr[a]] = f(log.commands.values[k, j])
        out["p"][i] = data.xpos[b]
        out["quat"][i] = data.xquat[b]
        out["v"][i] = data.qvel[vadr:vadr + 3]
        out["w"][i] = data.qvel[vadr + 3:vadr + 6]
        if i + 1 < n:
            try:
                s.step(1)
            except nereid.DivergenceError as e:  # e.g. a pose that jumps gives a huge initial velocity
                raise InputError(f"{log.path}: the simulation from the log's first pose and velocity diverged "
                                 f"at t = {t:g} s ({e}); look for a jump in the log's poses") from None
    return out


def _interp(t, ts, x):
    return np.stack([np.interp(t, ts, x[:, j]) for j in range(x.shape[1])], -1)


def estimate_offset(meas, sim, max_offset):
    """d minimising the RMS of v_meas(t) - v_sim(t - d) over the overlap (5 ms grid, parabola)."""
    grid = np.arange(-max_offset, max_offset + 1e-9, 0.005)
    cost = np.full(len(grid), np.inf)
    t = meas["t"]
    for i, d in enumerate(grid):
        sel = (t - d >= sim["t"][0]) & (t - d <= sim["t"][-1])
        if np.count_nonzero(sel) < max(10, len(t) // 2):
            continue
        diff = meas["v"][sel] - _interp(t[sel] - d, sim["t"], sim["v"])
        cost[i] = float(np.sqrt(np.mean(np.sum(diff ** 2, axis=1))))
    i = int(np.argmin(cost))
    if not np.isfinite(cost[i]):
        raise InputError(f"--max-offset {max_offset:g}: no offset leaves half the record overlapping")
    d = grid[i]
    if 0 < i < len(grid) - 1 and np.all(np.isfinite(cost[i - 1:i + 2])):
        c0, c1, c2 = cost[i - 1:i + 2]
        den = c0 - 2 * c1 + c2
        if den > 0:
            d += 0.5 * 0.005 * (c0 - c2) / den
    return float(d), grid, cost


def yaw_of(quat):
    w, x, y, z = quat.T
    return np.unwrap(np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))


def compare(meas, sim, d):
    """RMSE and DTW of position (body origin, m) and velocity (world, m/s) with the simulation
    shifted by d."""
    t = meas["t"]
    sel = (t - d >= sim["t"][0]) & (t - d <= sim["t"][-1])
    ps = _interp(t[sel] - d, sim["t"], sim["p"])
    vs = _interp(t[sel] - d, sim["t"], sim["v"])
    pm, vm = meas["p"][sel], meas["v"][sel]
    return {"samples": int(np.count_nonzero(sel)),
            "rmse_position_m": float(np.sqrt(np.mean(np.sum((pm - ps) ** 2, axis=1)))),
            "rmse_velocity_mps": float(np.sqrt(np.mean(np.sum((vm - vs) ** 2, axis=1)))),
            "dtw_position_m": dtw_mean_distance(pm, ps), "dtw_velocity_mps": dtw_mean_distance(vm, vs)}


def plot(meas, sim, d, png, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(2, 2, figsize=(11, 7))
    tm, ts = meas["t"], sim["t"]
    for k, name in ((0, "x"), (1, "y")):
        ax[0, 0].plot(tm, meas["p"][:, k], f"C{k}.", ms=2, label=f"{name} measured")
        ax[0, 0].plot(ts, sim["p"][:, k], f"C{k}--", lw=1, label=f"{name} simulated")
        ax[0, 0].plot(ts + d, sim["p"][:, k], f"C{k}-", lw=1, label=f"{name} simulated + {d:.2f} s")
    ax[0, 0].set_ylabel("position [m] (Nereid world: x north, y west)")
    ax[0, 1].plot(tm, np.linalg.norm(meas["v"][:, :2], axis=1), "k.", ms=2, label="measured (KF)")
    ax[0, 1].plot(ts, np.linalg.norm(sim["v"][:, :2], axis=1), "C1--", lw=1, label="simulated")
    ax[0, 1].plot(ts + d, np.linalg.norm(sim["v"][:, :2], axis=1), "C1-", lw=1, label=f"simulated + {d:.2f} s")
    ax[0, 1].set_ylabel("horizontal speed [m/s]")
    ax[1, 0].plot(tm, np.degrees(yaw_of(meas["quat"])), "k.", ms=2, label="measured")
    ax[1, 0].plot(ts + d, np.degrees(yaw_of(sim["quat"])), "C2-", lw=1, label=f"simulated + {d:.2f} s")
    ax[1, 0].set_ylabel("yaw about z up [deg]")
    ax[1, 1].plot(tm, meas["w"][:, 2], "k.", ms=2, label="measured (KF)")
    ax[1, 1].plot(ts + d, sim["w"][:, 2], "C3-", lw=1, label=f"simulated + {d:.2f} s")
    ax[1, 1].set_ylabel("yaw rate (body z, FLU) [rad/s]")
    for a in ax.flat:
        a.set_xlabel("t [s]")
        a.grid(alpha=0.3)
        a.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    try:
        fig.savefig(png, dpi=80)
    except OSError as e:
        raise InputError(f"{png} (--out): cannot write: {e.strerror}") from None
    plt.close(fig)


def replay(args):
    log = logs.load_log(args.log)
    if log.commands is None:
        raise InputError(f"{args.log}: the log has no cmd.<actuator> columns: nothing drives the simulation")
    if not os.path.isfile(args.model):
        raise InputError(f"{args.model} (--model): no such file")
    meas = measured_motion(log, q=args.kf_q, r=args.kf_r)
    sim = simulate(args.model, log, meas, args.body, args.initial_velocity)
    d, grid, cost = estimate_offset(meas, sim, args.max_offset)
    raw, aligned = compare(meas, sim, 0.0), compare(meas, sim, d)
    report = {"tool": "nereid replay", "log": os.path.abspath(args.log), "model": os.path.abspath(args.model),
              "frame": log.frame, "marker_offset_body_flu_m": log.marker_offset.tolist(),
              "command_units": log.command_units, "commands": list(log.names),
              "kalman_filter": {"model": "constant acceleration, white jerk", "q": args.kf_q, "r": args.kf_r,
                                "smoothed": True, "r_from_data": kinematic_kf.estimate_noise(meas["t"], meas["p"])},
              "initial_velocity": args.initial_velocity, "time_offset_s": d, "time_offset_meaning": "the log's motion lags the simulation by this much",
              "raw": raw, "aligned": aligned}
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "replay.json")
    try:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
        os.replace(path + ".tmp", path)
    except OSError as e:
        raise InputError(f"{path} (--out): cannot write: {e.strerror}") from None
    if not args.no_plots:
        plot(meas, sim, d, os.path.join(args.out, "replay.png"),
             f"{os.path.basename(args.log)} on {os.path.basename(args.model)}: offset {d:.3f} s, DTW position "
             f"{aligned['dtw_position_m']:.3g} m, velocity {aligned['dtw_velocity_mps']:.3g} m/s")
    print(f"time offset {d:.3f} s (the log lags the simulation); aligned: RMSE {aligned['rmse_position_m']:.3g} m, "
          f"{aligned['rmse_velocity_mps']:.3g} m/s; DTW {aligned['dtw_position_m']:.3g} m, "
          f"{aligned['dtw_velocity_mps']:.3g} m/s; raw RMSE {raw['rmse_position_m']:.3g} m")
    print(f"wrote {path}")
    return report


def build_parser():
    p = UsageParser(prog="nereid replay", description=__doc__.split("\n")[0])
    p.add_argument("log")
    p.add_argument("--model", required=True)
    p.add_argument("--out", default="results/replay")
    p.add_argument("--body")
    p.add_argument("--max-offset", type=float, default=2.0)
    p.add_argument("--kf-q", type=float, default=0.1, help="white-jerk density (nereid.kinematic_kf.DEFAULT_Q)")
    p.add_argument("--kf-r", type=float, default=1e-6, help="position noise variance, m^2 (DEFAULT_R)")
    p.add_argument("--initial-velocity", choices=("kf", "zero"), default="kf",
                   help="start from the filter's velocity (default) or at rest (a log that starts at rest)")
    p.add_argument("--no-plots", action="store_true")
    return p


def main(argv=None):
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        for flag, x, hi in (("--max-offset", args.max_offset, 60.0), ("--kf-q", args.kf_q, 1e6),
                            ("--kf-r", args.kf_r, 1e2)):
            if not (math.isfinite(x) and 0 < x <= hi):
                raise InputError(f"{flag} {x!r}: expected a positive number up to {hi:g}")
        _load_nereid()
        replay(args)
        return 0
    except (InputError, LogError) as e:
        print(f"nereid: error: replay: {cut_long_words(str(e))}", file=sys.stderr)
        return 1
    except Exception as e:  # nereid.Error from loading the model names the file, element and key
        import nereid
        if isinstance(e, nereid.Error):
            print(f"nereid: error: replay: {cut_long_words(str(e))}", file=sys.stderr)
            return 1
        raise


if __name__ == "__main__":
    sys.exit(main())
