"""Seed 002's own error measure (Table 6.1), re-implemented from its description.

The seed's author computed Table 6.1 with the script `Plankton/bagfiles/exp2_pid_mpc/
plot_graphs_2.py` of the public repository dobots/tijmen_graduation (Apache-2.0, commit
08ac0e53265739bdd7a0c21a07d0f3c813d12593; read, not copied). Its measure, as that script
applies it:

  * the path: the zig-zag of seed 002 in the y-z plane of the Gazebo world (ENU, metres),
    six 2 m vertical strokes at y = 0, 1.25, ..., 6.25 m between z = -2 and z = -4 m, the
    first going down, joined by half circles of radius 0.625 m below (after a downward
    stroke) and above (after an upward one); x = 0;
  * sampled at `per_unit` = 1000 points per unit of the path parameter: each stroke at
    2 * per_unit points z = -2 - s (downward) or z = s - 4 (upward), s = k / per_unit,
    k = 1 .. 2 per_unit; each half circle at the angles a = j * pi / (1.96 per_unit),
    j = 1 .. 1.96 (per_unit - 1), i.e. about 1.96 per_unit points per half circle;
  * position error of a sample: the squared distance from the recorded position to the
    closest path point (of the sampled set, not the continuous path), averaged over the
    samples of the window ("MSE position", m^2);
  * rotation error of a sample: qx^2 + qy^2 + qz^2 of the recorded unit quaternion, i.e.
    sin^2(angle / 2) to the path's level attitude (about a quarter of the squared angle),
    averaged over the window ("MSE rotation");
  * completion time: the window's last time minus its first. The window is the recording
    from its first sample to sample 3675 for the PID run (20 Hz: 183.70 s) and samples
    324 to 2072 for the MPC run of exp2, cut by hand in the author's script.

`measure()` takes positions and quaternions in the seed's world frame (ENU, the Gazebo
world); `nereid_pose()` gives a Nereid run of scenarios/seed002 in that form.
"""
import numpy as np

PER_UNIT = 1000
STROKES = 6
SPACING = 1.25
TOP, BOTTOM = -2.0, -4.0

# Table 6.1's windows (sample indices into the 20 Hz pose recording, end exclusive),
# as the author's plot_graphs_2.py cuts them for exp2.
PID_WINDOW_EXP2 = (0, 3675)
MPC_WINDOW_EXP2 = (324, 2072)


def path_points(per_unit=PER_UNIT):
    """The sampled path as an (n, 3) array of (x, y, z) in the seed's ENU world."""
    s = np.arange(1, 2 * per_unit + 1) / per_unit
    da = np.pi / per_unit
    a = np.arange(da, per_unit * da, da / 1.96)  # the seed's half-circle sampling
    radius = SPACING / 2
    pieces = []
    for k in range(STROKES):
        y = SPACING * k
        down = k % 2 == 0
        z = TOP - s if down else s + BOTTOM
        pieces.append(np.stack([0 * s, 0 * s + y, z], axis=1))
        if k < STROKES - 1:
            yc = -radius * np.cos(a) + radius + y
            zc = (-radius * np.sin(a) + BOTTOM) if down else (radius * np.sin(a) + TOP)
            pieces.append(np.stack([0 * a, yc, zc], axis=1))
    return np.concatenate(pieces)


def closest_squared_distance(positions, points, chunk=256):
    """For each row of positions (m, 3), the squared distance to the closest of points (n, 3)."""
    positions = np.asarray(positions, float)
    out = np.empty(len(positions))
    pn = (points ** 2).sum(1)
    for i in range(0, len(positions), chunk):
        p = positions[i:i + chunk]
        d = (p ** 2).sum(1)[:, None] - 2 * p @ points.T + pn[None, :]
        j = d.argmin(1)
        out[i:i + chunk] = ((p - points[j]) ** 2).sum(1)  # exact, not the expanded form
    return out


def measure(t, positions, quaternions_xyzw, per_unit=PER_UNIT):
    """Seed 002's Table 6.1 figures of one window: dict with mse_position_m2,
    mse_rotation (mean qx^2+qy^2+qz^2) and completion_s.
    positions (n, 3) and quaternions (n, 4, x y z w order as ROS writes them) in the seed's
    ENU world; t (n,) in seconds."""
    t = np.asarray(t, float)
    q = np.asarray(quaternions_xyzw, float)
    if len(t) < 2 or len(q) != len(t) or len(positions) != len(t):
        raise ValueError("measure: t, positions and quaternions need the same length >= 2")
    q = q / np.linalg.norm(q, axis=1)[:, None]
    return {"mse_position_m2": float(closest_squared_distance(positions, path_points(per_unit)).mean()),
            "mse_rotation": float((q[:, :3] ** 2).sum(1).mean()),
            "completion_s": float(t[-1] - t[0])}


def nereid_pose(pos, quat_wxyz):
    """A Nereid run's positions and w x y z quaternions in the order measure() takes.
    Nereid's world is z up and its bodies FLU (docs/conventions.md), the frames of the
    seed's Gazebo world (ENU) and base_link (FLU), and scenarios/seed002 place the path at
    the seed's coordinates, so the positions are used as they are and only the quaternion's
    order changes."""
    q = np.asarray(quat_wxyz, float)
    return np.asarray(pos, float), np.stack([q[:, 1], q[:, 2], q[:, 3], q[:, 0]], axis=1)
