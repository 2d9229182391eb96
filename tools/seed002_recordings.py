#!/usr/bin/env python3
"""Seed 002's recorded Gazebo runs, converted to Nereid's log format.

    python3 tools/seed002_recordings.py SOURCE [--out data/seed002_recordings]

SOURCE is the public repository dobots/tijmen_graduation (Apache-2.0) by the seed's
author: a bare git directory or a checkout (read at COMMIT), or a folder holding the
experiment folders. Read from `Plankton/bagfiles/exp{1,2,3}_pid_mpc/`:

  * `{pid,mpc}_pose_gt.csv`: the Raybot's ground-truth odometry (nav_msgs/Odometry) at
    20 Hz, no header: sec, nanosec, frame (world), child frame (raybot/base_link),
    x, y, z, qx, qy, qz, qw, 36 pose covariances, the twist's linear and angular velocity
    (columns 47-52, 0-based), 36 twist covariances;
  * `{pid,mpc}_id_N.csv`, N = 0..7: the thrust of thruster N in newtons as the UUV
    Simulator thruster plugin publishes it (topic /raybot/thrusters/id_N/thrust, the
    thrust after the thruster's dynamics): sec, nanosec, frame, thrust.

exp1's bags recorded the thrusters' `input` topic instead (the plugin's input before its
conversion to thrust, not newtons; the MPC run's stamps are wall-clock time), so exp1's
logs hold the pose only.

Written (one file per run, gzip): `exp<E>_<pid|mpc>.csv.gz` in the log format of
docs/logs.md (`# nereid-log: 1`): rows at the pose's 20 Hz samples,
`t` the Gazebo clock (s, sec + nanosec 1e-9), pose `x,y,z,qw,qx,qy,qz` in the Gazebo world
(ENU, z up: Nereid's own world frame, docs/conventions.md), body velocity `u,v,w,p,q,r`
in base_link (FLU, about the base link's origin, which is the CG in the author's
raybot_base.xacro: `# marker_offset: 0,0,0`), and the commands `cmd.thruster_0..7` (N):
at each pose time the last command published at or before it (zero-order hold, as a
thruster plugin holds its input); cells before every thruster's first sample are empty.

`# frame: NWU`: Gazebo's world is ENU by ROS REP 103, but its axes are used as Nereid's
world axes unchanged (z up, x towards the quay wall, y along it), as scenarios/seed002 place
the seed's path at the seed's coordinates; the loader's ENU would turn the runs 90 degrees
about z away from that path. Body frames are FLU in both.

Frames, checked on the data: the odometry's twist is in the world frame (Gazebo's p3d
plugin); its linear part equals the finite difference of the recorded position to
0.014 m/s (largest velocity 0.29 m/s). It is rotated into the body frame with the
recorded attitude here (the runs stay within 0.03 rad of level and heading 0, so the two
differ by little).

exp3's PID files are byte-identical to exp2's (the same git blobs): exp3_pid is not
written; its MPC run is its own.
"""
import argparse
import gzip
import pathlib
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _shared_logs():
    """nereid.logs, the one log format's loader and writer (pure NumPy: loaded from the
    source tree without the compiled package)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("nereid_logs", ROOT / "python" / "nereid" / "logs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


logs = _shared_logs()

COMMIT = "08ac0e53265739bdd7a0c21a07d0f3c813d12593"
REPO = "dobots/tijmen_graduation"
BAGS = "Plankton/bagfiles"
RUNS = (("exp1", "pid"), ("exp1", "mpc"), ("exp2", "pid"), ("exp2", "mpc"), ("exp3", "mpc"))
# exp1's bags hold /raybot/thrusters/id_N/input (the plugin's input before its conversion to
# thrust, in its own units: up to 2900) instead of .../thrust, and its MPC run's input stamps
# are wall-clock time, not the simulation's: exp1's logs have the pose only.
WITH_THRUST = {"exp2", "exp3"}
THRUSTERS = 8
NOTICE = ("Derived from dobots/tijmen_graduation (Copyright the repository's authors), "
          "licensed under the Apache License, Version 2.0: converted to the nereid-log "
          "format by tools/seed002_recordings.py")


class Source:
    """Files of the author's repository: a git directory (read at COMMIT) or a folder."""

    def __init__(self, where):
        self.where = pathlib.Path(where)
        self.git = (self.where / "HEAD").is_file() or (self.where / ".git").exists()

    def text(self, rel):
        if self.git:
            done = subprocess.run(["git", f"--git-dir={self._gitdir()}", "show", f"{COMMIT}:{rel}"],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                raise OSError(f"{self.where}: {COMMIT}:{rel}: {done.stderr.strip()}")
            return done.stdout
        for base in (self.where, self.where / BAGS):
            f = base / rel if base == self.where else base / rel.split(BAGS + "/", 1)[-1]
            if f.is_file():
                return f.read_text()
        raise OSError(f"{self.where}: no {rel}")

    def _gitdir(self):
        return self.where / ".git" if (self.where / ".git").exists() else self.where


def stamps(rows):
    return np.array([int(r[0]) + int(r[1]) * 1e-9 for r in rows])


def read_rows(text):
    return [line.split(",") for line in text.splitlines() if line.strip()]


def rotate_into_body(q_wxyz, v_world):
    """v_body = R(q)^T v_world for unit quaternions (w, x, y, z), row by row."""
    w, x, y, z = q_wxyz.T
    r = np.empty((len(w), 3, 3))
    r[:, 0] = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], 1)
    r[:, 1] = np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], 1)
    r[:, 2] = np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], 1)
    return np.einsum("nji,nj->ni", r, v_world)


def convert_run(src, exp, ctrl):
    """One run as the keyword arguments of nereid.logs.write_log."""
    folder = f"{BAGS}/{exp}_pid_mpc"
    pose = read_rows(src.text(f"{folder}/{ctrl}_pose_gt.csv"))
    t = stamps(pose)
    if np.any(np.diff(t) <= 0):
        raise ValueError(f"{folder}/{ctrl}_pose_gt.csv: times not strictly increasing")
    num = np.array([[float(v) for v in r[4:11] + r[47:53]] for r in pose])
    pos, qxyzw, lin, ang = num[:, 0:3], num[:, 3:7], num[:, 7:10], num[:, 10:13]
    qwxyz = np.concatenate([qxyzw[:, 3:4], qxyzw[:, 0:3]], axis=1)
    qwxyz /= np.linalg.norm(qwxyz, axis=1)[:, None]
    uvw = rotate_into_body(qwxyz, lin)
    pqr = rotate_into_body(qwxyz, ang)
    thrust = exp in WITH_THRUST
    cmds = []
    for i in range(THRUSTERS if thrust else 0):
        rows = read_rows(src.text(f"{folder}/{ctrl}_id_{i}.csv"))
        ct = stamps(rows)
        cv = np.array([float(r[3]) for r in rows])
        order = np.argsort(ct, kind="stable")  # equal stamps: the later line wins below
        ct, cv = ct[order], cv[order]
        k = np.searchsorted(ct, t + 1e-9, side="right") - 1  # last command at or before t
        cmds.append(np.where(k >= 0, cv[np.maximum(k, 0)], np.nan))
    cmds = np.array(cmds).T if thrust else np.zeros((len(t), 0))
    meta = {
        "vehicle": "raybot",
        "controller": "cascaded_pid" if ctrl == "pid" else "mpc",
        "experiment": exp,
        "pose_rate_hz": "20",
        "gazebo_frame": ("world (ENU by ROS REP 103) and base_link (FLU); its axes are Nereid's world axes "
                         "unchanged, as scenarios/seed002 place the seed's path at the seed's coordinates"),
        "commands": ("/raybot/thrusters/id_N/thrust (N), zero-order hold of each thruster's last sample at or before t"
                     if thrust else "none (the bag holds the thrusters' input topic, not their thrust)"),
        "license": f"Apache-2.0; {NOTICE}",
    }
    source = f"{REPO}@{COMMIT} {folder}/{ctrl}_pose_gt.csv" + (f", {ctrl}_id_0..7.csv" if thrust else "")
    return dict(t=t, pose=np.concatenate([pos, qwxyz], axis=1), velocity=np.concatenate([uvw, pqr], axis=1),
                commands=cmds if thrust else None, names=tuple(f"thruster_{i}" for i in range(THRUSTERS)),
                frame="NWU", marker_offset=np.zeros(3), command_units="newton" if thrust else None,
                source=source, extra_meta=meta)


def write_gz(path, run):
    """The log through nereid.logs.write_log, gzip-compressed (mtime 0: same input, same bytes)."""
    tmp = path.with_name(path.name[:-3] + ".tmp")
    logs.write_log(tmp, **run)
    data = tmp.read_bytes()
    tmp.unlink()
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
        f.write(data)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", help="dobots/tijmen_graduation: git directory, checkout or folder")
    ap.add_argument("--out", default=str(ROOT / "data" / "seed002_recordings"))
    a = ap.parse_args(argv)
    out = pathlib.Path(a.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        src = Source(a.source)
        for exp, ctrl in RUNS:
            run = convert_run(src, exp, ctrl)
            path = out / f"{exp}_{ctrl}.csv.gz"
            write_gz(path, run)
            print(f"{path}: {len(run['t'])} rows, {path.stat().st_size} bytes")
    except (OSError, ValueError) as e:  # logs.LogError is a ValueError
        print(f"seed002_recordings: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
