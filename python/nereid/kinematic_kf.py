"""A kinematic Kalman filter: velocities (and accelerations) from measured positions or angles.

Seed 000 §4.2 estimated the motion-capture velocities with a kinematic Kalman filter; replay
(`nereid replay`), free-run identification and any navigation code use this one.

Model, per coordinate (independent axes): the state x = [p, v, a] with a constant acceleration
driven by white jerk of spectral density `q` (units^2/s^5):

    x_{k+1} = F x_k + w_k,   F = [[1, h, h^2/2], [0, 1, h], [0, 0, 1]]   (h the sample interval)
    Q = q [[h^5/20, h^4/8, h^3/6], [h^4/8, h^3/3, h^2/2], [h^3/6, h^2/2, h]]
    y_k = p_k + e_k,         e_k ~ N(0, r)                                 (r in units^2)

(Bar-Shalom, Li and Kirubarajan 2001, §6.2.3, the "white-noise jerk" model). Samples may be
irregular. `smooth=True` adds the Rauch-Tung-Striebel pass (offline: each estimate uses the
whole record; no lag). Defaults (docs/logs.md): r = (1 mm)^2, the motion-capture noise of an
underwater Qualisys system, and q = 0.1 m^2/s^5 (rad^2/s^5 for angles): a random-walk
acceleration that changes by about 0.3 m/s^2 within a second, an ROV's thrust steps; on the
example trial (1 mm noise) it halves replay's error against q = 1 and q = 0.01.
`estimate_noise` gives r from the data's own second-difference scatter.
"""
import numpy as np

DEFAULT_Q = 0.1
DEFAULT_R = 1e-6


def _FQ(h, q):
    F = np.array([[1.0, h, 0.5 * h * h], [0.0, 1.0, h], [0.0, 0.0, 1.0]])
    Q = q * np.array([[h ** 5 / 20, h ** 4 / 8, h ** 3 / 6], [h ** 4 / 8, h ** 3 / 3, h ** 2 / 2],
                      [h ** 3 / 6, h ** 2 / 2, h]])
    return F, Q


def estimate_noise(t, y):
    """The measurement variance from the scatter of second differences of `y` (n,) or (n, d):
    for white noise of variance r on a smooth signal, var(y[k+1] - 2 y[k] + y[k-1]) = 6 r.
    Uses the median absolute deviation so a manoeuvre does not count as noise."""
    y = np.asarray(y, dtype=float).reshape(len(y), -1)
    d2 = y[2:] - 2 * y[1:-1] + y[:-2]
    mad = np.median(np.abs(d2 - np.median(d2, axis=0)), axis=0) * 1.4826
    return float(np.mean(mad ** 2) / 6)


def filter_kinematic(t, y, *, q=DEFAULT_Q, r=DEFAULT_R, smooth=True):
    """Positions `y` (n,) or (n, d) sampled at times `t` (n,, strictly increasing) -> (p, v, a),
    each of y's shape: the filtered (or, with `smooth`, smoothed) position, velocity and
    acceleration."""
    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    shape = y.shape
    Y = y.reshape(len(y), -1)
    n, d = Y.shape
    if n < 2:
        raise ValueError("filter_kinematic: at least 2 samples are needed")
    if np.any(np.diff(t) <= 0):
        raise ValueError("filter_kinematic: the times must increase strictly")
    H = np.array([1.0, 0.0, 0.0])
    out = np.empty((3, n, d))
    for j in range(d):
        xs = np.empty((n, 3))
        Ps = np.empty((n, 3, 3))
        xp_all = np.empty((n, 3))
        Pp_all = np.empty((n, 3, 3))
        x = np.array([Y[0, j], (Y[1, j] - Y[0, j]) / (t[1] - t[0]), 0.0])
        P = np.diag([r, 2 * r / (t[1] - t[0]) ** 2 + 1.0, 10.0])
        for k in range(n):
            if k:
                F, Q = _FQ(t[k] - t[k - 1], q)
                x = F @ x
                P = F @ P @ F.T + Q
            xp_all[k], Pp_all[k] = x, P
            S = P[0, 0] + r
            K = P[:, 0] / S
            x = x + K * (Y[k, j] - x[0])
            P = P - np.outer(K, H @ P)
            xs[k], Ps[k] = x, P
        if smooth:
            for k in range(n - 2, -1, -1):
                F, _ = _FQ(t[k + 1] - t[k], q)
                C = Ps[k] @ F.T @ np.linalg.inv(Pp_all[k + 1])
                xs[k] = xs[k] + C @ (xs[k + 1] - xp_all[k + 1])
                Ps[k] = Ps[k] + C @ (Ps[k + 1] - Pp_all[k + 1]) @ C.T
        out[:, :, j] = xs.T
    return tuple(o.reshape(shape) for o in out)


def rotation_increments(q):
    """Unit quaternions (n, 4) w x y z, world-from-body -> (n, 3) accumulated body-frame rotation
    vector: theta_0 = 0, theta_k = theta_{k-1} + log(q_{k-1}^-1 q_k). Its rate is the body angular
    velocity (exactly, while the axis of rotation is steady over a sample; the motion capture's
    rate makes the increments small), so `filter_kinematic` on it gives p, q, r."""
    q = np.asarray(q, dtype=float)
    conj = q[:-1] * np.array([1, -1, -1, -1])
    w0, v0 = conj[:, 0], conj[:, 1:]
    w1, v1 = q[1:, 0], q[1:, 1:]
    w = w0 * w1 - np.sum(v0 * v1, axis=1)
    v = w0[:, None] * v1 + w1[:, None] * v0 + np.cross(v0, v1)
    sign = np.where(w < 0, -1.0, 1.0)
    w, v = w * sign, v * sign[:, None]
    s = np.linalg.norm(v, axis=1)
    angle = 2 * np.arctan2(s, w)
    scale = np.where(s > 1e-12, angle / np.maximum(s, 1e-300), 2.0)
    inc = v * scale[:, None]
    return np.vstack([np.zeros(3), np.cumsum(inc, axis=0)])
