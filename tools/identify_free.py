"""nereid identify free: damping from a free-running trial log by an output-error fit.

Method: output error. The model, driven from the log's first pose by its commands (as
`nereid replay` drives it), is simulated for each trial value of the damping parameters (the
quadratic and linear damping of the chosen dofs, bounded >= 0); the residual is the simulated
body velocity minus the velocity the kinematic Kalman filter measures, per dof scaled by the
measured velocity's RMS, at every pose sample; scipy.optimize.least_squares minimises it.

Why output error rather than equation error: equation error needs the accelerations, the
second derivative of the poses, where motion-capture noise is amplified most and a smoother's
lag biases them; and it needs the thrust as a force, which for PWM logs only the thruster model
knows. Output error compares velocities (one derivative), lets Nereid's own engine supply
thrust, added mass and Coriolis terms, and is the comparison seed 000 §4.2 makes. Its cost is
one simulation per evaluation (a C++ rollout: milliseconds for a minute of trial).
"""
import os
import re

import numpy as np

import nereid
from nereid import logs, towing
from nereid.logs import DOFS

import replay as replay_tool
from identify import InputError, _model_config, _write_json, write_damping_model


def _hydrodynamics_instance(model_path, model):
    """(name, body) of the one nereid.hydrodynamics instance in MODEL.xml, the one whose
    coefficients identify free fits and writes (identify.py reads and writes the file's
    first linear_damping, quadratic_damping and added_mass: with two instances those could
    be another body's, so two are refused). The body is its `body` key, else the body the
    instance is attached to in `model` (<body><plugin instance=.../>); None if neither."""
    with open(model_path, encoding="utf-8") as f:
        xml = f.read()
    blocks = re.findall(r'<plugin\s+plugin="nereid\.hydrodynamics"\s*>(.*?)</plugin>', xml, re.S)
    instances = [m for block in blocks for m in re.finditer(r'<instance\s+name="([^"]*)"[^>]*>(.*?)</instance>', block, re.S)]
    if len(instances) > 1:
        names = ", ".join(f"'{m.group(1)}'" for m in instances)
        raise InputError(f"{model_path} (--model): {len(instances)} nereid.hydrodynamics instances ({names}); "
                         "identify free fits a model with one: give a model of the vehicle alone")
    if not instances:
        return None, None
    name, text = instances[0].group(1), instances[0].group(2)
    key = re.search(r'<config\s+key="body"\s+value="([^"]*)"', text)
    if key:
        return name, key.group(1)
    import mujoco
    plugin = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_PLUGIN, name)
    attached = [b for b in range(model.nbody) if plugin >= 0 and model.body_plugin[b] == plugin]
    return name, (model.body(attached[0]).name if attached else None)


def _setup(model_path, log, meas, initial_velocity, time_offset, body=None):
    """The control sequence (nstep, nu) and step times from the log, and the initial state."""
    model, data = nereid.load(model_path)
    cmap = replay_tool.command_map(model, log)  # the log's names checked before they choose the vehicle
    b = replay_tool._vehicle(model, body, log)
    instance, fitted = _hydrodynamics_instance(model_path, model)
    if instance is None:
        raise InputError(f"{model_path} (--model): no nereid.hydrodynamics instance in the file (identify free "
                         "fits its coefficients; a vehicle brought in by <include> is not read)")
    if fitted is None or fitted != model.body(b).name:
        how = "--body" if body else "the free body the logged actuators move"
        raise InputError(f"{model_path} (--model): identify free fits nereid.hydrodynamics instance '{instance}', "
                         + (f"on body '{fitted}'" if fitted else "whose body it cannot tell")
                         + f", but the trial's vehicle is body '{model.body(b).name}' ({how})")
    jnt = model.body_jntadr[b]
    qadr, vadr = model.jnt_qposadr[jnt], model.jnt_dofadr[jnt]
    t0, t1 = meas["t"][0], meas["t"][-1]
    replay_tool.start_from_log(data, qadr, vadr, meas, initial_velocity)
    nereid.forward(model, data)
    init = nereid.get_state(model, data)
    dt = model.opt.timestep
    n = int(np.ceil((t1 - t0) / dt))
    ts = t0 + dt * np.arange(n + 1)
    ctrl = np.tile(replay_tool.neutral_controls(model), (n, 1))
    idx = np.searchsorted(log.commands.t + time_offset, ts[:-1] + 1e-9, side="right") - 1
    ok = idx >= 0
    for j, (a, f) in enumerate(cmap):
        ctrl[ok, model.actuator_ctrladr[a]] = [f(x) for x in log.commands.values[idx[ok], j]]  # a: the actuator
    return init, ctrl, ts, (qadr, vadr, model.nq)


def _body_velocity(states, layout):
    qadr, vadr, nq = layout
    q = states[:, 1 + qadr + 3:1 + qadr + 7]
    v = states[:, 1 + nq + vadr:1 + nq + vadr + 3]
    w = states[:, 1 + nq + vadr + 3:1 + nq + vadr + 6]
    R = logs.quat_to_matrix(q)
    return np.hstack([np.einsum("nji,nj->ni", R, v), w])  # FLU body [u v w p q r]


_FLU_TO_SNAME = np.array([1, -1, -1, 1, -1, -1.0])


def _read_trial(args):
    """The trial log and the dofs to fit, with --model and --dofs checked."""
    log = logs.load_log(args.log)
    if log.commands is None or log.pose is None:
        raise InputError(f"{args.log}: identify free needs poses and cmd.<actuator> columns")
    if not os.path.isfile(args.model):
        raise InputError(f"{args.model} (--model): no such file")
    dofs = [d.strip() for d in args.dofs.split(",") if d.strip()]
    for d in dofs:
        if d not in DOFS:
            raise InputError(f"--dofs {args.dofs!r}: {d!r} is not one of {', '.join(DOFS)}")
    if not dofs or len(set(dofs)) != len(dofs):
        raise InputError(f"--dofs {args.dofs!r}: expected distinct dofs")
    return log, dofs


def _measured_velocity(log_path, meas, dofs):
    """The measured FLU body velocity [u v w p q r], the dofs' indices in it and their RMS
    velocities (the residual's scales); a dof the trial does not move in is an error."""
    R = logs.quat_to_matrix(meas["quat"])
    nu_meas = np.hstack([np.einsum("nji,nj->ni", R, meas["v"]), meas["w"]])
    k = [DOFS.index(d) for d in dofs]
    scale = np.sqrt(np.mean(nu_meas[:, k] ** 2, axis=0))
    for d, s in zip(dofs, scale):
        if s < 1e-3:
            raise InputError(f"{log_path}: the trial does not move in {d} (RMS velocity {s:.2g}): "
                             f"it cannot tell {d}'s damping; leave it out of --dofs")
    return nu_meas, k, scale


def _model_coefficients(model_path, added_mass):
    """The model's linear and quadratic damping, and with --added-mass its diagonal added mass (else None)."""
    lin0 = np.array(_model_config(model_path, "linear_damping"))
    quad0 = np.array(_model_config(model_path, "quadratic_damping"))
    am0 = None
    if added_mass:
        try:
            am0 = np.array(_model_config(model_path, "added_mass"))
        except InputError as e:
            raise InputError(f"{e} (--added-mass fits the diagonal: the model's added_mass must be six values, "
                             "the diagonal form)") from None
    return lin0, quad0, am0


def _trial_model(model_path, theta, k, quad0, lin0, am0):
    """A temporary copy of MODEL.xml with the trial values `theta` (the dofs' quadratic damping,
    linear damping, then added mass if fitted) in place of the model's; returns its path."""
    n = len(k)
    quad, lin = quad0.copy(), lin0.copy()
    quad[k], lin[k] = theta[:n], theta[n:2 * n]
    values = {"linear_damping": " ".join(f"{x:.17g}" for x in lin),
              "quadratic_damping": " ".join(f"{x:.17g}" for x in quad)}
    if am0 is not None:
        am = am0.copy()
        am[k] = theta[2 * n:]
        values["added_mass"] = " ".join(f"{x:.17g}" for x in am)
    return towing.rig_model(model_path, values)


def _simulate_trial(path, log_path, init, ctrl):
    """The states of the model at `path` (a temporary file, deleted once loaded) from `init` under
    `ctrl`, `init` first."""
    try:
        model, data = nereid.load(path)
    finally:
        os.unlink(path)
    try:
        states, _ = nereid.rollout(model, data, init, ctrl)
    except nereid.DivergenceError as e:  # e.g. a pose that jumps by 1e20 m gives the initial velocity
        raise InputError(f"{log_path}: the simulation from the log's first pose and velocity diverged "
                         f"({e}); look for a jump in the log's poses") from None
    finally:
        nereid.release(model, data)
    return np.vstack([init[None, :], states[0]])


def _fit(residual, k, quad0, lin0, am0, max_evaluations):
    """scipy's bounded least squares from the model's values (a zero one starts at a tenth of the
    largest damping, at least 0.1); an error unless it converges."""
    from scipy import optimize
    x0 = np.concatenate([quad0[k], lin0[k]] + ([am0[k]] if am0 is not None else []))
    x0 = np.where(x0 > 0, x0, 0.1 * np.maximum(np.concatenate([quad0[k], lin0[k]]).max(), 1.0))
    result = optimize.least_squares(residual, x0, bounds=(0, np.inf), x_scale=np.maximum(x0, 1e-3), diff_step=1e-3,
                                    max_nfev=max_evaluations)
    if result.status <= 0:
        raise InputError(f"the output-error fit did not converge in {max_evaluations} evaluations: "
                         f"{result.message}")
    return result


def _standard_errors(result):
    """The fitted values' standard errors from the Jacobian and the residual variance (inf if singular)."""
    J = result.jac
    m, p = len(result.fun), len(result.x)
    s2 = 2 * result.cost / max(m - p, 1)
    try:
        cov = np.linalg.inv(J.T @ J) * s2
        se = np.sqrt(np.diag(cov))
    except np.linalg.LinAlgError:
        se = np.full(p, np.inf)
    return se


def _report(args, dofs, result, se, evaluations, quad0, lin0, am0):
    """The result for --out, printing each dof's fit; and the fits {dof: (c1, c2)}."""
    n = len(dofs)
    out = {"tool": "nereid identify free", "method": "output error (tools/identify_free.py)", "log": args.log,
           "model": args.model, "dofs": {}, "rms_residual": float(np.sqrt(np.mean(result.fun ** 2))),
           "evaluations": evaluations,
           "note": "standard errors from the Jacobian with white residuals: the residuals of a trajectory are "
                   "correlated, so these are lower bounds"}
    fits = {}
    for i, d in enumerate(dofs):
        c1, c2 = float(result.x[i]), float(result.x[n + i])
        fits[d] = (c1, c2)
        out["dofs"][d] = {"quadratic_damping": c1, "quadratic_damping_se": float(se[i]),
                          "linear_damping": c2, "linear_damping_se": float(se[n + i]),
                          "model_quadratic_damping": float(quad0[DOFS.index(d)]),
                          "model_linear_damping": float(lin0[DOFS.index(d)])}
        if am0 is not None:
            out["dofs"][d].update({"added_mass": float(result.x[2 * n + i]), "added_mass_se": float(se[2 * n + i]),
                                   "model_added_mass": float(am0[DOFS.index(d)])})
            print(f"{d}: added mass {result.x[2 * n + i]:.4g} (+-{se[2 * n + i]:.2g}) "
                  f"(the model had {am0[DOFS.index(d)]:.4g})")
        print(f"{d}: {c1:.4g} (+-{se[i]:.2g}) |u|u + {c2:.4g} (+-{se[n + i]:.2g}) u "
              f"(the model had {quad0[DOFS.index(d)]:.4g}, {lin0[DOFS.index(d)]:.4g})")
    print(f"{evaluations} simulations; RMS residual {out['rms_residual']:.3g} (velocity RMS units)")
    return out, fits


def _write_results(args, out, fits, dofs, am0):
    """--out's JSON and --write-model's model with the fitted coefficients."""
    if args.out:
        _write_json(args.out, out, "--out")
    if args.write_model:
        write_damping_model(args.model, args.write_model, fits, f"nereid identify free {os.path.basename(args.log)}",
                            added_mass={d: out["dofs"][d]["added_mass"] for d in dofs} if am0 is not None else None)
        print(f"wrote {args.write_model}")


def free(args):
    replay_tool._load_nereid()
    log, dofs = _read_trial(args)
    meas = replay_tool.measured_motion(log)
    nu_meas, k, scale = _measured_velocity(args.log, meas, dofs)
    lin0, quad0, am0 = _model_coefficients(args.model, args.added_mass)
    init, ctrl, ts, layout = _setup(args.model, log, meas, args.initial_velocity, args.time_offset, args.body)
    evaluations = [0]

    def simulate(theta):
        states = _simulate_trial(_trial_model(args.model, theta, k, quad0, lin0, am0), args.log, init, ctrl)
        evaluations[0] += 1
        return states

    def residual(theta):
        nu = _body_velocity(simulate(theta), layout)
        sim = np.stack([np.interp(meas["t"], ts, nu[:, j]) for j in k], -1)
        return ((sim - nu_meas[:, k]) / scale).ravel()

    result = _fit(residual, k, quad0, lin0, am0, args.max_evaluations)
    out, fits = _report(args, dofs, result, _standard_errors(result), evaluations[0], quad0, lin0, am0)
    _write_results(args, out, fits, dofs, am0)
    return out
