"""Damping from tow tests (seed 000 §4.1) and a simulated tow rig (docs/own_vehicle.md, Part 2).

    from nereid import towing
    points = towing.reduce_runs(runs)           # stationary segment -> mean, variance; eqs. (36)-(37)
    fit = towing.fit_damping(points)            # eq. (38) f = c1 |u| u + c2 u, bounded least squares
    runs = towing.tow_rig(model_path, "surge", speeds, ...)   # Nereid-made runs (needs the engine)

The reduction, fusion and fit are NumPy and SciPy (scipy.optimize.least_squares with bounds);
only `tow_rig` steps Nereid's engine (nereid.load / Stepper).
"""
import math
import os
import re
import tempfile
from dataclasses import dataclass, field

import numpy as np

from .logs import DOFS, ROTATIONAL, LogError, TowRun

SPEED_TOLERANCE = 0.02      # a plateau: |speed - plateau speed| <= 2 % of it (+ 1 mm/s or mrad/s)
SETTLE_FRACTION = 0.3       # the first 30 % of a plateau is the load's transient
END_FRACTION = 0.05         # and its last 5 % the deceleration's onset
MIN_SEGMENT_S = 1.0
MIN_SEGMENT_SAMPLES = 20
DRIFT_LIMIT = 6.0           # halves' means apart by more than 6 standard errors: not stationary


class IdentifyError(ValueError):
    """A tow test or a fit that cannot give an answer; the message names the file or the point."""


@dataclass
class Segment:
    run: TowRun
    t0: float
    t1: float
    speed: float            # mean carriage speed over the segment
    mean: float             # mu of the load
    variance: float         # sigma^2 of the load (seed 000 Fig. 6: P = sigma^2)
    samples: int
    automatic: bool


@dataclass
class Point:
    """Runs at one speed fused by eqs. (36)-(37)."""
    speed: float
    value: float
    variance: float
    runs: list = field(default_factory=list)
    excluded: str = ""      # why the point is left out of the fit ("" = fitted)


def stationary_segment(run, override=None):
    """The stationary part of a run (seed 000 Fig. 6): `override` (t0, t1), the run's
    `# stationary:`, or the longest plateau of the carriage speed less its first 30 % (the
    load's transient) and last 5 %. Raises IdentifyError when there is none."""
    span = override or run.stationary
    automatic = span is None
    if automatic:
        s = run.speed
        top = np.abs(s) >= 0.5 * np.max(np.abs(s))
        if np.max(np.abs(s)) <= 0:
            raise IdentifyError(f"{run.path}: no stationary segment: the carriage speed is 0 throughout "
                                "(column 'speed')")
        v = float(np.median(s[top]))
        on = np.abs(s - v) <= SPEED_TOLERANCE * abs(v) + 1e-3
        best, start = (0, 0), None
        for i, flag in enumerate(np.append(on, False)):
            if flag and start is None:
                start = i
            elif not flag and start is not None:
                if i - start > best[1] - best[0]:
                    best = (start, i)
                start = None
        i0, i1 = best
        n = i1 - i0
        i0, i1 = i0 + int(SETTLE_FRACTION * n), i1 - int(END_FRACTION * n)
        if i1 - i0 < 2:
            raise IdentifyError(f"{run.path}: no stationary segment: the carriage speed never holds within "
                                f"{SPEED_TOLERANCE:.0%} of {v:g} (column 'speed'); give '# stationary: t0,t1'")
        span = (run.t[i0], run.t[i1 - 1])
    t0, t1 = span
    sel = (run.t >= t0) & (run.t <= t1)
    n = int(np.count_nonzero(sel))
    where = "found" if automatic else "given"
    if n < MIN_SEGMENT_SAMPLES or t1 - t0 < MIN_SEGMENT_S:
        raise IdentifyError(f"{run.path}: no stationary segment: the {where} one ({t0:g}..{t1:g} s) has {n} "
                            f"samples over {t1 - t0:.3g} s (needs {MIN_SEGMENT_SAMPLES} and {MIN_SEGMENT_S:g} s)")
    load = run.load[sel]
    speed = run.speed[sel]
    mean, var = float(np.mean(load)), float(np.var(load, ddof=1))
    h = n // 2
    a, b = load[:h], load[h:]
    se = math.sqrt(np.var(a, ddof=1) / len(a) + np.var(b, ddof=1) / len(b)) if var > 0 else 0.0
    # white-noise standard error, widened by the lag-1 autocorrelation's variance factor
    d = load - mean
    rho = float(np.dot(d[1:], d[:-1]) / np.dot(d, d)) if var > 0 else 0.0
    se *= math.sqrt(max(1.0, (1 + rho) / (1 - rho))) if rho < 0.99 else 10.0
    if automatic and se > 0 and abs(np.mean(a) - np.mean(b)) > DRIFT_LIMIT * se:
        raise IdentifyError(f"{run.path}: no stationary segment: in {t0:g}..{t1:g} s the load drifts (halves' "
                            f"means {np.mean(a):.4g} and {np.mean(b):.4g}, column '{run.quantity}'); give "
                            "'# stationary: t0,t1' or --stationary")
    return Segment(run=run, t0=float(t0), t1=float(t1), speed=float(np.mean(speed)), mean=mean,
                   variance=var, samples=n, automatic=automatic)


def fuse(segments):
    """Eqs. (36)-(37): P0 = (sum P_i^-1)^-1, x0 = P0 sum P_i^-1 x_i over the runs at one speed."""
    P = np.array([max(s.variance, 1e-300) for s in segments])
    x = np.array([s.mean for s in segments])
    P0 = 1.0 / np.sum(1.0 / P)
    return float(P0 * np.sum(x / P)), float(P0)


def reduce_runs(runs, speed_tolerance=0.01, overrides=None):
    """Each run's stationary segment, grouped by speed (within `speed_tolerance` m/s or rad/s)
    and fused; the points sorted by speed."""
    segments = [stationary_segment(r, (overrides or {}).get(r.path)) for r in runs]
    segments.sort(key=lambda s: s.speed)
    groups = []
    for s in segments:
        if groups and abs(s.speed - groups[-1][0].speed) <= speed_tolerance:
            groups[-1].append(s)
        else:
            groups.append([s])
    points = []
    for g in groups:
        value, var = fuse(g)
        points.append(Point(speed=float(np.mean([s.speed for s in g])), value=value, variance=var, runs=g))
    return points


def exclude(points, ranges=(), listed=()):
    """Marks points out of the fit: speeds in any (lo, hi) of `ranges`, or listed speeds
    (matched within 1e-6 or 0.5 % of the speed)."""
    for p in points:
        for lo, hi in ranges:
            if lo <= p.speed <= hi:
                p.excluded = f"speed in {lo:g}..{hi:g}"
        for s in listed:
            if abs(p.speed - s) <= max(1e-6, 0.005 * abs(s)):
                p.excluded = "listed"
    return points


@dataclass
class Fit:
    c1: float               # quadratic, |u| u
    c2: float               # linear, u
    se: np.ndarray          # standard errors of (c1, c2)
    cov: np.ndarray
    dof_resid: int
    t95: float              # Student's t quantile for the 95 % intervals
    chi2_reduced: float
    cost: float
    points: list

    def predict(self, u):
        u = np.asarray(u, dtype=float)
        return self.c1 * np.abs(u) * u + self.c2 * u

    def band(self, u):
        """Half-width of the 95 % confidence band of the fitted curve at `u`."""
        u = np.asarray(u, dtype=float)
        g = np.stack([np.abs(u) * u, u], -1)
        return self.t95 * np.sqrt(np.einsum("...i,ij,...j->...", g, self.cov, g))

    def interval(self, k):
        c = (self.c1, self.c2)[k]
        return c - self.t95 * self.se[k], c + self.t95 * self.se[k]


def fit_damping(points, linear=True):
    """Eq. (38) f = c1 |u| u + c2 u on the points not excluded, weighted by 1/P0, by bounded
    nonlinear least squares (scipy.optimize.least_squares, c1, c2 >= 0). The covariance is
    (J^T W J)^-1 scaled by the reduced chi-square (the variances set the weights, the scatter
    the scale), and the 95 % intervals use Student's t with n - p degrees of freedom."""
    from scipy import optimize, stats

    used = [p for p in points if not p.excluded]
    npar = 2 if linear else 1
    if len(used) <= npar:
        raise IdentifyError(f"{len(used)} fitted speed(s) for {npar} parameter(s): eq. (38) needs more speeds "
                            f"than parameters (have {', '.join(f'{p.speed:g}' for p in used) or 'none'}; "
                            f"{len(points) - len(used)} excluded)")
    u = np.array([p.speed for p in used])
    y = np.array([p.value for p in used])
    w = 1.0 / np.sqrt(np.array([max(p.variance, 1e-300) for p in used]))

    def model(c):
        return c[0] * np.abs(u) * u + (c[1] * u if linear else 0.0)

    A = np.stack([np.abs(u) * u, u], -1)[:, :npar]
    x0 = np.clip(np.linalg.lstsq(A * w[:, None], y * w, rcond=None)[0], 0, None) + 1e-6
    result = optimize.least_squares(lambda c: (model(c) - y) * w, x0, bounds=(0, np.inf),
                                    jac=lambda c: A * w[:, None], x_scale="jac")
    if not result.success:
        raise IdentifyError(f"the fit of eq. (38) did not converge: {result.message}")
    J = result.jac
    dof_resid = len(used) - npar
    chi2 = float(2 * result.cost / dof_resid)
    try:
        cov = np.linalg.inv(J.T @ J) * chi2
    except np.linalg.LinAlgError:
        raise IdentifyError("the fit of eq. (38) is singular: the speeds do not tell |u| u from u "
                            "(use speeds of more than one magnitude)") from None
    c = np.zeros(2)
    c[:npar] = result.x
    full = np.zeros((2, 2))
    full[:npar, :npar] = cov
    return Fit(c1=float(c[0]), c2=float(c[1]), se=np.sqrt(np.diag(full)), cov=full, dof_resid=dof_resid,
               t95=float(stats.t.ppf(0.975, dof_resid)), chi2_reduced=chi2, cost=float(result.cost), points=points)


# --- seed 002 §3.2.3: scale model to full size; seed 000 §4.1.4: added-mass ratios ---------

def scale_to_full_size(c1, c2, scale, density_ratio=1.0):
    """Seed 002 §3.2.3's law for a scale model's tow tests: the forces scale by Froude's
    F_r = (rho_r / rho_m) lambda^3 F_m (eq. 3.24; lambda = full size / model length), so the
    quadratic damping F / U^2 (U ~ lambda^0.5) scales by (rho_r / rho_m) lambda^2, and the
    thesis applies "a scaling factor of lambda^2" to the linear terms as well. The thesis uses
    the same factors for every degree of freedom (its eq. 3.25), and so does this function.
    (Dimensional analysis would give moments lambda^5 and a linear force term lambda^2.5; the
    thesis's own law is the one reproduced here.)"""
    k = density_ratio * scale ** 2
    return c1 * k, c2 * k


def added_mass_extrapolation(measured, added_mass):
    """Seed 000 §4.1.4: an unmeasured dof's damping is a measured one's times the ratio of their
    added masses: Y = (Y_vdot / Z_wdot) Z (sway from heave), K = (K_pdot / M_qdot) M and
    N = (N_rdot / M_qdot) M (roll and yaw from pitch). `measured`: {dof: (c1, c2)};
    `added_mass`: the six diagonal added masses (surge..yaw). Returns {dof: (c1, c2, source)}."""
    rules = {"sway": "heave", "roll": "pitch", "yaw": "pitch"}
    out = {}
    for dof, src in rules.items():
        if dof in measured or src not in measured:
            continue
        ratio = added_mass[DOFS.index(dof)] / added_mass[DOFS.index(src)]
        c1, c2 = measured[src]
        out[dof] = (ratio * c1, ratio * c2, src, ratio)
    return out


# --- the simulated tow rig ------------------------------------------------------------------

def _config_override(xml, key, value):
    """The model text with every `<config key="key" value="...">` set to `value`."""
    pattern = re.compile(r'(<config\s+key="' + re.escape(key) + r'"\s+value=")[^"]*(")')
    if not pattern.search(xml):
        raise IdentifyError(f"the model has no <config key=\"{key}\"> to override")
    return pattern.sub(lambda m: m.group(1) + value + m.group(2), xml)


def rig_model(model_path, overrides=None):
    """A copy of MODEL.xml with plugin config values replaced ({key: "values"}), in a temporary
    file beside nothing (the shipped vehicle models reference no other file). Returns the path."""
    with open(model_path, encoding="utf-8") as f:
        xml = f.read()
    for k, v in (overrides or {}).items():
        xml = _config_override(xml, k, v)
    fd, path = tempfile.mkstemp(suffix=".xml", prefix="nereid_rig_")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(xml)
    return path


def _quat_to_rotvec(q):
    w, v = q[0], q[1:]
    s = np.linalg.norm(v)
    if s < 1e-12:
        return 2 * v
    if w < 0:
        w, v = -w, -v
    return 2 * math.atan2(s, w) * v / s


@dataclass
class _Rig:
    """The tow rig on Nereid's engine: the towed free body, its joint's qpos and qvel addresses,
    and the spring-damper's gains on the body axes."""
    model: object
    data: object
    stepper: object
    body: int
    qadr: int
    adr: int
    K: np.ndarray           # stiffness, N/m (3) then N m/rad (3)
    C: np.ndarray           # damping, N s/m (3) then N m s/rad (3)


def _load_rig(model_path, dof, overrides):
    """Nereid's engine on a copy of the model with `overrides` and, for roll and pitch, the centre
    of buoyancy at the CG (unless `overrides` sets it)."""
    from . import engine

    over = dict(overrides or {})
    if dof in ("roll", "pitch"):
        with open(model_path, encoding="utf-8") as f:
            if 'key="center_of_buoyancy"' in f.read():
                over.setdefault("center_of_buoyancy", "0 0 0")
    path = rig_model(model_path, over)
    try:
        model, data = engine.load(path)
    finally:
        os.unlink(path)
    return model, data


def _towed_body(model, model_path, body):
    """The body to tow: `body`, which must be a free body, else the model's first free body."""
    import mujoco

    free = [i for i in range(model.nbody) if model.body_jntnum[i] and
            model.jnt_type[model.body_jntadr[i]] == mujoco.mjtJoint.mjJNT_FREE]
    if body:
        b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body)
        if b not in free:
            raise IdentifyError(f"{model_path}: body {body!r} is not a free body of the model")
    elif free:
        b = free[0]
    else:
        raise IdentifyError(f"{model_path}: the model has no free body to tow")
    return b


def _spring_gains(model, data, adr, frequency_hz):
    """The spring-damper's stiffness and damping per body axis: critically damped at `frequency_hz`
    on the mass matrix's diagonal (with added mass) in the model's initial state."""
    import mujoco
    from . import engine

    engine.reset(model, data, 0 if model.nkey else None)
    engine.forward(model, data)
    M = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, M)
    m_eff = np.diag(M)[adr:adr + 6].copy()
    wn = 2 * math.pi * frequency_hz
    K = m_eff * wn ** 2
    C = 2 * m_eff * wn
    return K, C


def _carriage_speed(t, u, rest_s, ramp_s, hold_s):
    """The carriage's speed at time `t`: at rest, ramping to `u`, holding it, ramping back to 0."""
    if t < rest_s:
        vc = 0.0
    elif t < rest_s + ramp_s:
        vc = u * (t - rest_s) / ramp_s
    elif t < rest_s + ramp_s + hold_s:
        vc = u
    else:
        vc = u * max(0.0, 1 - (t - rest_s - ramp_s - hold_s) / ramp_s)
    return vc


def _tow_run(rig, u, rot, axis_flu, every, rest_s, ramp_s, hold_s):
    """One run at speed `u` from the model's initial state: the sample times, the carriage speeds
    and the spring's force (or moment) along `axis_flu`, untared."""
    import mujoco
    from . import engine

    model, data, b, qadr, adr = rig.model, rig.data, rig.body, rig.qadr, rig.adr
    dt = model.opt.timestep
    engine.reset(model, data, 0 if model.nkey else None)
    p0 = data.qpos[qadr:qadr + 3].copy()
    q0 = data.qpos[qadr + 3:qadr + 7].copy()
    R0 = np.empty(9)
    mujoco.mju_quat2Mat(R0, q0)
    R0 = R0.reshape(3, 3)
    total = rest_s + ramp_s + hold_s + ramp_s
    nstep = int(round(total / dt))
    ts, vs, loads = [], [], []
    pos, ang = 0.0, 0.0
    axis_w = R0 @ axis_flu                       # the tow axis in the world
    qc, qcw = np.empty(4), q0.copy()
    qerr, qinv = np.empty(4), np.empty(4)
    Kt, Ct, Kr, Cr = rig.K[:3], rig.C[:3], rig.K[3:], rig.C[3:]
    zero = np.zeros(3)
    for i in range(nstep):
        t = i * dt
        vc = _carriage_speed(t, u, rest_s, ramp_s, hold_s)
        # the carriage frame: world position and attitude, velocity and angular velocity
        if rot:
            mujoco.mju_axisAngle2Quat(qc, axis_w, ang)
            mujoco.mju_mulQuat(qcw, qc, q0)
            pc, vcw, wcw = p0, zero, axis_w * vc
        else:
            pc, vcw, wcw = p0 + axis_w * pos, axis_w * vc, zero
        R = data.xmat[b].reshape(3, 3)
        mujoco.mju_negQuat(qinv, data.qpos[qadr + 3:qadr + 7])
        mujoco.mju_mulQuat(qerr, qcw, qinv)
        # spring-damper with gains on the body axes (the mass matrix's diagonal):
        # R diag(K) R^T e, computed in the body frame
        f_body = Kt * (R.T @ (pc - data.qpos[qadr:qadr + 3])) + Ct * (R.T @ (vcw - data.qvel[adr:adr + 3]))
        m_body = Kr * (R.T @ _quat_to_rotvec(qerr)) + Cr * (R.T @ wcw - data.qvel[adr + 3:adr + 6])
        data.xfrc_applied[b, :3] = R @ f_body
        data.xfrc_applied[b, 3:] = R @ m_body
        if i % every == 0:
            ts.append(t)
            vs.append(vc)
            loads.append((m_body if rot else f_body) @ axis_flu)
        rig.stepper.step(1)
        pos += vc * dt
        ang += vc * dt
    data.xfrc_applied[b] = 0
    return np.array(ts), np.array(vs), np.array(loads)


def _load_cell(ts, loads, rest_s, bias, noise, rng):
    """The load cell's reading: the load tared at rest, plus `bias` and Gaussian `noise` from `rng`."""
    tare = np.mean(loads[ts < rest_s]) if np.any(ts < rest_s) else 0.0
    return loads - tare + bias + rng.normal(0.0, noise, loads.shape)


def tow_rig(model_path, dof, speeds, *, runs_per_speed=3, noise=0.5, bias=0.0, seed=0, rest_s=1.0,
            ramp_s=1.0, hold_s=6.0, sample_hz=100.0, body=None, frequency_hz=3.0, overrides=None):
    """Tows the model's vehicle at each speed (m/s, or rad/s for roll/pitch/yaw; SNAME signs: FRD
    body axes) through a carriage: a 6-DOF spring-damper (critically damped, `frequency_hz` on
    the vehicle's mass matrix with added mass) between the vehicle and a carriage frame that
    rests, ramps to the speed, holds it and stops. The load cell reads the spring's force (or
    moment) along the dof, tared at rest, plus a constant `bias` and Gaussian `noise` (standard
    deviation, N or N m) drawn from numpy's generator seeded `seed`. For roll and pitch the centre
    of buoyancy is moved to the CG (a PMM's rotation tests subtract the hydrostatic moment).
    Returns TowRun objects (write them with nereid.logs.write_tow_run)."""
    from . import engine

    if dof not in DOFS:
        raise IdentifyError(f"dof {dof!r} is not one of {', '.join(DOFS)}")
    k = DOFS.index(dof)
    rot = dof in ROTATIONAL
    model, data = _load_rig(model_path, dof, overrides)
    b = _towed_body(model, model_path, body)
    stepper = engine.stepper(model, data)
    dt = model.opt.timestep
    every = max(1, int(round(1.0 / (sample_hz * dt))))
    rng = np.random.default_rng(seed)
    axis_flu = np.zeros(3)
    axis_flu[k % 3] = (1.0, -1.0, -1.0)[k % 3]   # the SNAME (FRD) axis in FLU
    adr = model.jnt_dofadr[model.body_jntadr[b]]
    K, C = _spring_gains(model, data, adr, frequency_hz)
    rig = _Rig(model=model, data=data, stepper=stepper, body=b, qadr=model.jnt_qposadr[model.body_jntadr[b]],
               adr=adr, K=K, C=C)
    out = []
    for u in speeds:
        for r in range(runs_per_speed):
            ts, vs, loads = _tow_run(rig, u, rot, axis_flu, every, rest_s, ramp_s, hold_s)
            measured = _load_cell(ts, loads, rest_s, bias, noise, rng)
            meta = {"rig_speed": f"{u:g}", "rig_run": str(r + 1), "rig_noise": f"{noise:g}", "rig_bias": f"{bias:g}",
                    "rig_seed": str(seed)}
            out.append(TowRun(path=f"{dof}_{u:+.3f}_{r + 1}.csv", meta=meta, dof=dof, t=ts, speed=vs, load=measured,
                              quantity="moment" if rot else "force"))
    return out


def check_runs(runs):
    """All runs of one dof; returns it."""
    dofs = sorted({r.dof for r in runs})
    if len(dofs) != 1:
        first = {d: next(r.path for r in runs if r.dof == d) for d in dofs}
        raise LogError("runs of several dofs: " + ", ".join(f"{d} ({p})" for d, p in first.items()) +
                       "; give one dof's runs, or --dof to choose")
    return dofs[0]
