#!/usr/bin/env python3
"""Makes the synthetic example logs in examples/logs/ (docs/logs.md) with Nereid's own
simulation of models/bluerov (seed 000 Table 3), since the seeds do not contain their tank or
pool measurements:

- tow/surge_*.csv: `nereid identify rig` runs of surge at 7 speeds, 0.5 N load-cell noise, 20 Hz;
- trial.csv: a free-running trial (surge thrusters at 1600 us, a turn, 1570 us) logged in NED with
  the marker 0.12 m above and 0.05 m ahead of the CG, 1 mm pose noise at 50 Hz, commands at
  10 Hz, and the poses 0.3 s late (`nereid replay` finds it).

    PYTHONPATH=build/python python3 tools/make_example_logs.py [--out examples/logs]
"""
import argparse
import math
import os

import numpy as np

import nereid
from nereid import logs, towing

NAMES = ("thr1", "thr2", "thr3", "thr4", "thr5", "thr6")


def schedule(t):
    """PWM of the six thrusters at time t: rest 2 s, surge at 1600 us, a turn, a slower surge.
    Gentle, as the model has no attitude hold (seed 000's trials ran ArduSub's)."""
    u = np.full(6, 1500.0)
    if 2.0 <= t < 6.0:
        u[0] = u[1] = 1600.0
    elif 6.0 <= t < 9.0:
        u[0], u[1] = 1620.0, 1480.0
    elif 9.0 <= t < 12.0:
        u[0] = u[1] = 1570.0
    return u


def simulate_trial(model_path, duration, schedule_fn=schedule, damping=None):
    """Times, body positions (n, 3), quaternions (n, 4) and commands (n, 6) at every step."""
    path = model_path
    if damping:
        path = towing.rig_model(model_path, damping)
    try:
        model, data = nereid.load(path)
    finally:
        if damping:
            os.unlink(path)
    b = model.body("rov").id
    s = nereid.stepper(model, data)
    dt = model.opt.timestep
    n = int(round(duration / dt)) + 1
    t = dt * np.arange(n)
    P, Q, U = np.empty((n, 3)), np.empty((n, 4)), np.empty((n, 6))
    for i in range(n):
        U[i] = schedule_fn(t[i])
        data.ctrl[:6] = U[i]
        P[i], Q[i] = data.xpos[b], data.xquat[b]
        if i + 1 < n:
            s.step(1)
    return t, P, Q, U


def make_trial(path, model_path, *, duration=14.0, delay=0.3, pose_noise=1e-3, angle_noise=2e-3, pose_hz=50.0,
               cmd_hz=10.0, marker_offset=(0.05, 0.0, 0.12), seed=0, frame="NED", damping=None):
    """Writes a trial log: commands at cmd_hz at their true times, marker poses at pose_hz `delay`
    seconds late, with Gaussian position and small-angle noise. `marker_offset` is FLU (m)."""
    rng = np.random.default_rng(seed)
    t, P, Q, U = simulate_trial(model_path, duration + delay, damping=damping)
    r = np.asarray(marker_offset, dtype=float)
    tp = np.arange(0.0, duration, 1.0 / pose_hz)
    src = np.clip(tp - delay, 0.0, None)      # the pose logged at tp is the vehicle's at tp - delay
    idx = np.searchsorted(t, src - 1e-9)
    Pm = P[idx] + np.einsum("nij,j->ni", logs.quat_to_matrix(Q[idx]), r) + rng.normal(0, pose_noise, (len(tp), 3))
    dq = np.hstack([np.ones((len(tp), 1)), 0.5 * rng.normal(0, angle_noise, (len(tp), 3))])
    Qm = logs.quat_multiply(Q[idx], dq)
    Qm /= np.linalg.norm(Qm, axis=1, keepdims=True)
    tc = np.arange(0.0, duration, 1.0 / cmd_hz)
    Uc = U[np.searchsorted(t, tc - 1e-9)]
    times = np.union1d(np.round(tp, 6), np.round(tc, 6))
    pose = np.full((len(times), 7), np.nan)
    cmds = np.full((len(times), 6), np.nan)
    pose[np.searchsorted(times, np.round(tp, 6))] = np.hstack([Pm, Qm])
    cmds[np.searchsorted(times, np.round(tc, 6))] = Uc
    logs.write_log(path, times, pose=pose, commands=cmds, names=NAMES, frame=frame, marker_offset=r,
                   command_units="pwm_us", source=f"synthetic: Nereid simulation of {os.path.basename(model_path)}, "
                   f"poses {delay:g} s late, {pose_noise * 1e3:g} mm noise (tools/make_example_logs.py)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                  "examples", "logs"))
    args = ap.parse_args()
    model = nereid.model_path("bluerov")
    os.makedirs(os.path.join(args.out, "tow"), exist_ok=True)
    runs = towing.tow_rig(model, "surge", [-0.8, -0.4, 0.2, 0.4, 0.6, 0.8, 1.0], runs_per_speed=1, noise=0.5,
                          seed=1, hold_s=5.0, sample_hz=20.0)
    for r in runs:
        logs.write_tow_run(os.path.join(args.out, "tow", r.path), r.dof, r.t, r.speed, r.load,
                           source="synthetic: nereid identify rig on models/bluerov (seed 000 Table 3)",
                           extra_meta=r.meta)
    make_trial(os.path.join(args.out, "trial.csv"), model)
    print(f"wrote {len(runs)} tow runs and trial.csv into {args.out}")


if __name__ == "__main__":
    main()
