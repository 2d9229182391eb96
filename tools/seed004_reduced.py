"""Seed 004's reduced equations of motion, integrated as the seed does.

Seed 004 (004_aec040439a980bcd.txt) Appendix B builds, for the ROV's angular velocity w
and the prescribed arm angles th1 = theta(2), th2 = theta(3) (eq. 85):
  B (9 x 5) maps (w, th1', th2') to the three bodies' angular velocities,
  M = diag(J11, J11, J11, 0, 0, 0, J31, 0, J31),
  M* = B^T M B,  N* = B^T (M B' + D M B)  with D = blockdiag(skew(w_i)),
and solves rows 1-3 of M* q'' + N* q' = 0 for w' (eqs. 90-94), with RK4 at dt = 0.02 s for
1000 steps (section 3). This script repeats that with the paper's J11 = 2/3 m1 (m1 = 2000
kg) and J31 = m3/3 (m3 = 100 kg). It is the 'published' curve of docs/validation.md: the
seed's figures are not in its text, only the equations that drew them.
"""
import numpy as np

J11 = 2.0 / 3.0 * 2000.0
J31 = 100.0 / 3.0
A1, P1 = np.pi / 2, 10.0  # theta(2) = pi/2 sin(2 pi t / 10)
A2, P2 = np.pi / 2, 3.0   # theta(3) = pi/2 sin(2 pi t / 3)


def angles(t):
    w1, w2 = 2 * np.pi / P1, 2 * np.pi / P2
    return (A1 * np.sin(w1 * t), A1 * w1 * np.cos(w1 * t), -A1 * w1 * w1 * np.sin(w1 * t),
            A2 * np.sin(w2 * t), A2 * w2 * np.cos(w2 * t), -A2 * w2 * w2 * np.sin(w2 * t))


def skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def b_matrix(th1, th2):
    c1, s1, c2, s2 = np.cos(th1), np.sin(th1), np.cos(th2), np.sin(th2)
    R21 = np.array([[c1, -s1, 0], [s1, c1, 0], [0, 0, 1]])
    R32 = np.array([[1, 0, 0], [0, c2, -s2], [0, s2, c2]])
    e1, e3 = np.array([1.0, 0, 0]), np.array([0, 0, 1.0])
    B = np.zeros((9, 5))
    B[0:3, 0:3] = np.eye(3)
    B[3:6, 0:3] = R21.T
    B[3:6, 3] = e3
    B[6:9, 0:3] = R32.T @ R21.T
    B[6:9, 3] = R32.T @ e3
    B[6:9, 4] = e1
    return B


M = np.diag([J11, J11, J11, 0, 0, 0, J31, 0, J31])


def w_dot(t, w):
    th1, dth1, ddth1, th2, dth2, ddth2 = angles(t)
    B = b_matrix(th1, th2)
    h = 1e-6
    dB = (b_matrix(th1 + h * dth1, th2 + h * dth2) - b_matrix(th1 - h * dth1, th2 - h * dth2)) / (2 * h)
    qd = np.array([w[0], w[1], w[2], dth1, dth2])
    omegas = B @ qd
    D = np.zeros((9, 9))
    for i in range(3):
        D[3 * i:3 * i + 3, 3 * i:3 * i + 3] = skew(omegas[3 * i:3 * i + 3])
    Ms = B.T @ M @ B
    Ns = B.T @ (M @ dB + D @ M @ B)
    rhs = -Ns[0:3] @ qd - Ms[0:3, 3:5] @ np.array([ddth1, ddth2])
    return np.linalg.solve(Ms[0:3, 0:3], rhs)


def integrate(dt=0.02, steps=1000):
    t, w = 0.0, np.zeros(3)
    ts, ws = [t], [w.copy()]
    for _ in range(steps):
        k1 = w_dot(t, w)
        k2 = w_dot(t + dt / 2, w + dt / 2 * k1)
        k3 = w_dot(t + dt / 2, w + dt / 2 * k2)
        k4 = w_dot(t + dt, w + dt * k3)
        w = w + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += dt
        ts.append(t)
        ws.append(w.copy())
    return np.array(ts), np.array(ws)


if __name__ == "__main__":
    ts, ws = integrate()
    print("max |w| per axis (rad/s):", np.abs(ws).max(axis=0))
