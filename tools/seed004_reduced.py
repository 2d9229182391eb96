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

`integrate()` takes every parameter as an argument; its defaults are the paper's case
above (the call `integrate()` is unchanged, bit for bit). `appendix_c()` is the variant
that the seed's Appendix C JavaScript (Main.js / Starter.js / Dynamics.js, seed lines
1000-1640) runs: see APPENDIX_C below for each value's seed line and what is assumed.
`js_browser()` replays that JavaScript's animation loop itself, artefacts included; it
is not physics (see its docstring) and serves only to document what the JS displays.
"""
import numpy as np

J11 = 2.0 / 3.0 * 2000.0
J31 = 100.0 / 3.0
A1, P1 = np.pi / 2, 10.0  # theta(2) = pi/2 sin(2 pi t / 10)
A2, P2 = np.pi / 2, 3.0   # theta(3) = pi/2 sin(2 pi t / 3)

# ---------------------------------------------------------------------------------------
# Seed 004 Appendix C (the JavaScript browser simulation). Taken from the seed, with the
# seed file's line numbers:
#   m1 = 2000 (l. 1321), m3 = 300 (l. 1322), ROV_length = 1.0 (l. 1318),
#   arm_length = .5 (l. 1320), J11 = ROV_length^2 m1 / 6 = 333.33 kg m^2 (l. 1323),
#   J31 = m3 arm_length^2 / 3 = 25 kg m^2 (l. 1324);
#   periods 10 s and 3 s (GUI defaults PER1: 10, PER2: 3, l. 1292-1293; PER1 = period(10),
#   PER2 = period(3), l. 1312-1313, period(s) = 2 pi / s, l. 1304-1306);
#   amplitudes 0.7 and 1.0 rad (GUI defaults AMP1: 0.7, AMP2: 1.0, l. 1294-1295);
#   phase = pi/2 (l. 1316): th = AMP sin(PER t + phase), th' = AMP PER cos(PER t + phase),
#   th'' = -AMP PER^2 sin(PER t + phase) (getTheta, l. 1329-1339; x = y = 0 unless the
#   GUI's periods are changed, l. 1431-1453), i.e. th = AMP cos(2 pi t / PER): the arms
#   start at rest at full deflection;
#   gravity moment (getMoments, l. 1419-1428): M1x = -m1 length g sin(q[0]),
#   M1y = m1 length g sin(q[1]), length = 0.5, g = 9.81, with m1 = 2000 (the ROV's mass,
#   passed at l. 1356), and q the ROV's angles from rotMatToAngle (l. 1497-1516):
#   q[0] = atan2(r12, r22), q[1] = atan2(r02, sqrt(r00^2 + r01^2)) of the ROV's rotation
#   matrix R (world from body: R <- R exp(skew(w) dt), getRotMat, l. 1533-1552);
#   how the moment enters (matlabFunction, l. 1341-1417): its M1x, M1y terms equal
#   M*_11^-1 (-M1x, -M1y, 0), i.e. a body-frame moment (-M1x, -M1y, 0) on the ROV added
#   to the right-hand side of rows 1-3 (checked numerically against the transcribed
#   expressions: 3e-15 relative). For small angles this is -m1 g 0.5 (roll, pitch, 0):
#   a restoring moment, the weight of the ROV 0.5 m below its rotation centre
#   (equivalently its buoyancy 0.5 m above it);
#   integration (l. 1014, 1470-1495): RK4, dt = 0.016 s (one animation frame).
# Assumptions (not in the seed, or choices between what it says):
#   * The inertial terms: the JS's matlabFunction is exactly the NEGATIVE of Appendix B's
#     equations (checked numerically: 2e-9 relative, the finite-difference error of B'
#     below). With th2 = 0 and the ROV held, the JS gives w3' = +J31/(J11 + J31) th1''
#     (the ROV turns with the arm: angular momentum is not conserved), Appendix A/B
#     -J31/(J11 + J31) th1''. The variant keeps Appendix B's signs (the thesis's
#     equations, validated by the main case) and takes only the parameters and the
#     moment from the JS.
#   * The JS's animation-loop artefacts are left out: w is multiplied by 0.9 after every
#     frame and the angles fed to getMoments by 0.9 (Main.js l. 1058-1059); the
#     amplitudes start at 0 and step by 0.005 per frame towards the GUI values, stopping
#     0.05 short (l. 1455-1458: they settle at 0.65 and 0.95 after 2.1 s and 3.0 s, and
#     th' ignores the ramp); the moment is frozen over each frame's RK4 and the rotation
#     updated once per frame from the new w (l. 1459-1460); getRotMat's quadratic term
#     comes out as c3 c2^2 skew(w)^2 because constMatMult scales skew(w) in place
#     (l. 1546-1547). `js_browser()` keeps all of them.
#   * Duration 20 s (the JS animates without end); the orientation (needed for the
#     moment) is integrated in the same RK4 as w, with q' = q (0, w) / 2.
# ---------------------------------------------------------------------------------------
APPENDIX_C = dict(
    dt=0.016, steps=1250,                       # l. 1014; 20 s
    J11=1.0 * 1.0 * 2000.0 / 6.0,               # l. 1318, 1321, 1323
    J31=300.0 * 0.5 * 0.5 / 3.0,                # l. 1320, 1322, 1324
    amp1=0.7, period1=10.0,                     # l. 1292, 1294
    amp2=1.0, period2=3.0,                      # l. 1293, 1295
    phase=np.pi / 2,                            # l. 1316
    gravity_moment="js", m1=2000.0, lever=0.5, g=9.81,  # l. 1356, 1419-1428
)


def angles(t, a1=A1, p1=P1, a2=A2, p2=P2, phase=0.0):
    w1, w2 = 2 * np.pi / p1, 2 * np.pi / p2
    return (a1 * np.sin(w1 * t + phase), a1 * w1 * np.cos(w1 * t + phase), -a1 * w1 * w1 * np.sin(w1 * t + phase),
            a2 * np.sin(w2 * t + phase), a2 * w2 * np.cos(w2 * t + phase), -a2 * w2 * w2 * np.sin(w2 * t + phase))


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


def mass_matrix(j11, j31):
    return np.diag([j11, j11, j11, 0, 0, 0, j31, 0, j31])


def w_dot(t, w, mass=M, ref=(A1, P1, A2, P2, 0.0), tau=None):
    """w' from rows 1-3 of M* q'' + N* q' = (tau, 0, 0); tau: body-frame moment on the ROV."""
    th1, dth1, ddth1, th2, dth2, ddth2 = angles(t, *ref)
    B = b_matrix(th1, th2)
    h = 1e-6
    dB = (b_matrix(th1 + h * dth1, th2 + h * dth2) - b_matrix(th1 - h * dth1, th2 - h * dth2)) / (2 * h)
    qd = np.array([w[0], w[1], w[2], dth1, dth2])
    omegas = B @ qd
    D = np.zeros((9, 9))
    for i in range(3):
        D[3 * i:3 * i + 3, 3 * i:3 * i + 3] = skew(omegas[3 * i:3 * i + 3])
    Ms = B.T @ mass @ B
    Ns = B.T @ (mass @ dB + D @ mass @ B)
    rhs = -Ns[0:3] @ qd - Ms[0:3, 3:5] @ np.array([ddth1, ddth2])
    if tau is not None:
        rhs = rhs + tau
    return np.linalg.solve(Ms[0:3, 0:3], rhs)


def quat_to_mat(q):
    """World-from-body rotation matrix of a unit quaternion (w, x, y, z)."""
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def js_angles(R):
    """The JS's rotMatToAngle (seed l. 1497-1516), first two angles (the third is unused)."""
    return np.arctan2(R[1, 2], R[2, 2]), np.arctan2(R[0, 2], np.sqrt(R[0, 0] ** 2 + R[0, 1] ** 2))


def gravity_torque(R, law, m1=2000.0, lever=0.5, g=9.81, angle_scale=1.0):
    """Body-frame moment on the ROV from its orientation R (world from body).

    law "js": the JS's getMoments as matlabFunction applies it, (-M1x, -M1y, 0) with
      M1x = -m1 lever g sin(q0), M1y = m1 lever g sin(q1), q = angle_scale * rotMatToAngle(R)
      (the JS's loop passes angle_scale = 0.9, Main.js l. 1059).
    law "weight": the exact moment of the weight m1 g hanging lever below the rotation
      centre in a z-up world (or, the same, a buoyancy m1 g acting lever above it):
      m1 g lever (-r21, r20, 0). It equals "js" to first order in the tilt; Nereid's
      rov_two_link_appendix_c.xml applies this one.
    """
    if law == "js":
        q0, q1 = js_angles(R)
        m1x = -m1 * lever * g * np.sin(angle_scale * q0)
        m1y = m1 * lever * g * np.sin(angle_scale * q1)
        return np.array([-m1x, -m1y, 0.0])
    if law == "weight":
        return m1 * g * lever * np.array([-R[2, 1], R[2, 0], 0.0])
    raise ValueError(f"gravity_moment must be None, 'js' or 'weight', not {law!r}")


def quat_dot(q, w):
    """q' = q (0, w) / 2 for the body-frame angular velocity w."""
    a, b, c, d = q
    return 0.5 * np.array([-b * w[0] - c * w[1] - d * w[2],
                           a * w[0] + c * w[2] - d * w[1],
                           a * w[1] - b * w[2] + d * w[0],
                           a * w[2] + b * w[1] - c * w[0]])


def integrate(dt=0.02, steps=1000, J11=J11, J31=J31, amp1=A1, period1=P1, amp2=A2, period2=P2,
              phase=0.0, gravity_moment=None, m1=2000.0, lever=0.5, g=9.81, angle_scale=1.0,
              return_orientation=False):
    """RK4 of the reduced equations from w = 0 (and the ROV level) at t = 0.

    Arm angles: th1 = amp1 sin(2 pi t / period1 + phase), th2 likewise with amp2, period2.
    gravity_moment: None (the paper's case: no moment), "js" or "weight" (gravity_torque);
    with a moment the ROV's orientation is integrated in the same RK4.
    Returns (t, w) arrays, plus the orientation quaternions when return_orientation.
    """
    mass = mass_matrix(J11, J31)
    ref = (amp1, period1, amp2, period2, phase)
    t, w, q = 0.0, np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0])
    ts, ws, qs = [t], [w.copy()], [q.copy()]
    if gravity_moment is None:
        for _ in range(steps):
            k1 = w_dot(t, w, mass, ref)
            k2 = w_dot(t + dt / 2, w + dt / 2 * k1, mass, ref)
            k3 = w_dot(t + dt / 2, w + dt / 2 * k2, mass, ref)
            k4 = w_dot(t + dt, w + dt * k3, mass, ref)
            w = w + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            t += dt
            ts.append(t)
            ws.append(w.copy())
    else:
        def f(t, w, q):
            tau = gravity_torque(quat_to_mat(q / np.linalg.norm(q)), gravity_moment, m1, lever, g, angle_scale)
            return w_dot(t, w, mass, ref, tau), quat_dot(q, w)
        for _ in range(steps):
            a1, b1 = f(t, w, q)
            a2, b2 = f(t + dt / 2, w + dt / 2 * a1, q + dt / 2 * b1)
            a3, b3 = f(t + dt / 2, w + dt / 2 * a2, q + dt / 2 * b2)
            a4, b4 = f(t + dt, w + dt * a3, q + dt * b3)
            w = w + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
            q = q + dt / 6 * (b1 + 2 * b2 + 2 * b3 + b4)
            q = q / np.linalg.norm(q)
            t += dt
            ts.append(t)
            ws.append(w.copy())
            qs.append(q.copy())
    if return_orientation:
        return np.array(ts), np.array(ws), np.array(qs)
    return np.array(ts), np.array(ws)


def appendix_c(**overrides):
    """Seed 004 Appendix C's variant (APPENDIX_C), with Appendix B's equations."""
    return integrate(**{**APPENDIX_C, **overrides})


def js_browser(duration=20.0, amp_targets=(0.7, 1.0)):
    """The Appendix C JavaScript's animation loop as it runs (Main.js l. 1050-1065,
    Dynamics.js l. 1430-1552), for reference only: w' = -(Appendix B's inertial terms)
    + M*_11^-1 (-M1x, -M1y, 0) (the JS's matlabFunction, see the notes above), the moment
    frozen over each frame's RK4 from the previous frame's angles x 0.9, the amplitude
    ramp with its 0.05 dead band, w x 0.9 after every frame, getRotMat as written.
    Returns the times and the w each frame's RK4 returns (ddq, before the x 0.9)."""
    dt, phase = 0.016, np.pi / 2
    j11, j31, m1 = APPENDIX_C["J11"], APPENDIX_C["J31"], 2000.0
    mass = mass_matrix(j11, j31)
    amp = [0.0, 0.0]
    dq, qang, R = np.zeros(3), np.zeros(2), np.eye(3)
    t, ts, ws = 0.0, [], []

    def js_f(t, w, tau):
        ref = (amp[0], 10.0, amp[1], 3.0, phase)
        inertial = w_dot(t, w, mass, ref)
        th1, _, _, th2, _, _ = angles(t, *ref)
        Ms = b_matrix(th1, th2).T @ mass @ b_matrix(th1, th2)
        return -inertial + np.linalg.solve(Ms[0:3, 0:3], tau)

    for _ in range(int(round(duration / dt))):
        for i, target in enumerate(amp_targets):
            a = amp[i]
            amp[i] = a - 0.005 if a > target + 0.05 else a + 0.005 if a < target - 0.05 else a
        m1x = -m1 * 0.5 * 9.81 * np.sin(qang[0])
        m1y = m1 * 0.5 * 9.81 * np.sin(qang[1])
        tau = np.array([-m1x, -m1y, 0.0])
        k1 = dt * js_f(t, dq, tau)
        k2 = dt * js_f(t + dt / 2, dq + k1 / 2, tau)
        k3 = dt * js_f(t + dt / 2, dq + k2 / 2, tau)
        k4 = dt * js_f(t + dt, dq + k3, tau)
        ddq = dq + (k1 + 2 * k2 + 2 * k3 + k4) / 6
        n = np.linalg.norm(ddq)
        if ddq[0] * ddq[1] * ddq[2] < 0:
            n = -n
        c2 = np.sin(dt * n) / n
        c3 = (1 - np.cos(dt * n)) / (n * n)
        S = c2 * skew(ddq)
        R = R @ (np.eye(3) + S + c3 * S @ S)
        ts.append(t + dt)
        ws.append(ddq.copy())
        dq = 0.9 * ddq
        qang = 0.9 * np.array(js_angles(R))
        t += dt
    return np.array(ts), np.array(ws)


if __name__ == "__main__":
    ts, ws = integrate()
    print("max |w| per axis (rad/s):", np.abs(ws).max(axis=0))
    ts, ws = appendix_c()
    print("Appendix C variant, max |w| per axis (rad/s):", np.abs(ws).max(axis=0))
