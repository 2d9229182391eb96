#!/usr/bin/env python3
"""nereid identify: damping from tow tests (seed 000 §4.1), from a free-running trial, and a
simulated tow rig (docs/own_vehicle.md, Part 2; formats in docs/logs.md).

    nereid identify tow RUNS... [--dof D] [--exclude [DOF=]LO:HI|[DOF=]SPEED]... [--stationary T0:T1]
                        [--scale LAMBDA [--density-ratio R]] [--added-mass "X Y Z K M N"] [--out FILE.json] [--plot FILE.png]
                        [--model MODEL.xml --write-model OUT.xml]
    nereid identify rig --dof D --speeds U1,U2,... --out DIR [--model MODEL.xml] [--runs N]
                        [--noise SIGMA] [--bias B] [--seed S] [--hold S] [--damping "c1 c2"]
    nereid identify free LOG.csv --model MODEL.xml [--dofs surge,yaw,...] [--initial-velocity kf|zero]
                        [--added-mass] [--time-offset S] [--body NAME] [--out FILE.json] [--write-model OUT.xml]

Bad input exits 1 with a message naming the file, line and column; usage errors exit 2.
"""
import glob
import json
import math
import os
import re
import sys

import numpy as np
from tool_args import UsageParser, cut_long_words, is_number

DOFS = ("surge", "sway", "heave", "roll", "pitch", "yaw")  # nereid.logs.DOFS


class InputError(ValueError):
    pass


# the nereid package is imported once the command line has been checked (_load_nereid): a
# usage error costs no MuJoCo start-up
logs = towing = None
LogError = IdentifyError = InputError


def _load_nereid():
    global logs, towing, LogError, IdentifyError
    try:
        from nereid import logs, towing
        from nereid.logs import LogError
        from nereid.towing import IdentifyError
    except ImportError as e:  # a package built for another MuJoCo, or not built: a message, not a traceback
        raise InputError(f"cannot import the nereid package: {e}") from None
    assert logs.DOFS == DOFS

UNITS = {False: ("N", "m/s", "kg/m", "kg/s"), True: ("N m", "rad/s", "kg m^2", "kg m^2/s")}
MAX_RUNS = 10000
MAX_SPEEDS = 1000


class _ArgError(Exception):
    pass


def _number(text, flag, lo=-math.inf, hi=math.inf, positive=False):
    if not is_number(text):  # ASCII digits: float() would also take '\u0661' (1), '1_000'
        raise InputError(f"{flag} {text!r}: expected a number")
    x = float(text)
    if not math.isfinite(x) or x < lo or x > hi or (positive and x <= 0):
        bound = "a positive number" if positive else f"a number in [{lo:g}, {hi:g}]"
        raise InputError(f"{flag} {text!r}: expected {bound}")
    return x


def _vector(text, flag, n, positive=False):
    parts = [p for p in re.split(r"[,\s]+", text.strip()) if p]
    if len(parts) != n:
        raise InputError(f"{flag} {text!r}: expected {n} numbers")
    return [_number(p, flag, positive=positive) for p in parts]


def _model_config(model, key):
    """The first nereid.hydrodynamics <config key=...> values of MODEL.xml (six numbers)."""
    try:
        with open(model, encoding="utf-8") as f:
            xml = f.read()
    except OSError as e:
        raise InputError(f"{model} (--model): cannot read: {e.strerror}") from None
    m = re.search(r'<config\s+key="' + key + r'"\s+value="([^"]*)"', xml)
    if not m:
        raise InputError(f"{model} (--model): no nereid.hydrodynamics <config key=\"{key}\">")
    return _vector(m.group(1), f"{model}: {key}", 6)


def write_damping_model(model, out, fits, stamp, added_mass=None):
    """A copy of MODEL.xml whose first nereid.hydrodynamics instance has the fitted dofs' linear
    and quadratic damping (diagonal entries: the same in FRD and FLU), and `added_mass`
    ({dof: value}) in a six-value diagonal added_mass."""
    if os.path.abspath(out) == os.path.abspath(model):
        raise InputError(f"{out} (--write-model): would overwrite the input")
    lin = _model_config(model, "linear_damping")  # names an unreadable model
    quad = _model_config(model, "quadratic_damping")
    with open(model, encoding="utf-8") as f:
        xml = f.read()
    for dof, (c1, c2) in fits.items():
        quad[DOFS.index(dof)] = c1
        lin[DOFS.index(dof)] = c2
    keys = [("linear_damping", lin), ("quadratic_damping", quad)]
    if added_mass:
        am = _model_config(model, "added_mass")
        for dof, value in added_mass.items():
            am[DOFS.index(dof)] = value
        keys.append(("added_mass", am))
    for key, vals in keys:
        xml = re.sub(r'(<config\s+key="' + key + r'"\s+value=")[^"]*(")',
                     lambda m: m.group(1) + " ".join(f"{v:.6g}" for v in vals) + m.group(2), xml, count=1)
    xml = re.sub(r"(<mujoco\b[^>]*>)", lambda m: m.group(1) + f"\n  <!-- damping: {stamp} -->", xml, count=1)
    try:
        with open(out + ".tmp", "w", encoding="utf-8") as f:
            f.write(xml)
        os.replace(out + ".tmp", out)
    except OSError as e:
        raise InputError(f"{out} (--write-model): cannot write: {e.strerror}") from None


def _run_files(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(glob.glob(os.path.join(p, "*.csv")))
            if not found:
                raise InputError(f"{p}: the folder holds no .csv runs")
            files += found
        else:
            files.append(p)
    if len(files) > MAX_RUNS:
        raise InputError(f"{len(files)} runs (the limit is {MAX_RUNS})")
    return files


def _parse_excludes(items):
    """--exclude [DOF=]LO:HI or [DOF=]SPEED -> {dof or None: (ranges, speeds)}."""
    out = {}
    for item in items:
        dof, sep, spec = item.partition("=")
        if not sep:
            dof, spec = None, item
        elif dof not in DOFS:
            raise InputError(f"--exclude {item!r}: {dof!r} is not one of {', '.join(DOFS)}")
        ranges, speeds = out.setdefault(dof, ([], []))
        if ":" in spec:
            lo, _, hi = spec.partition(":")
            lo, hi = _number(lo, "--exclude"), _number(hi, "--exclude")
            if lo > hi:
                raise InputError(f"--exclude {item!r}: LO:HI with LO > HI")
            ranges.append((lo, hi))
        else:
            speeds.append(_number(spec, "--exclude"))
    return out


def tow(args):
    files = _run_files(args.runs)
    runs = [logs.load_tow_run(f) for f in files]
    if args.dof:
        runs = [r for r in runs if r.dof == args.dof]
        if not runs:
            raise InputError(f"no {args.dof} runs among the {len(files)} given (their '# dof:' lines)")
    overrides = {}
    if args.stationary:
        lo, sep, hi = args.stationary.partition(":")
        if not sep:
            raise InputError(f"--stationary {args.stationary!r}: expected T0:T1 (s)")
        span = (_number(lo, "--stationary"), _number(hi, "--stationary"))
        if span[0] >= span[1]:
            raise InputError(f"--stationary {args.stationary!r}: T0 must be before T1")
        overrides = {r.path: span for r in runs}
    excludes = _parse_excludes(args.exclude)
    result = {"tool": "nereid identify tow", "method": "seed 000 §4.1: stationary segment -> mean, variance; "
              "eqs. (36)-(37) fusion; eq. (38) f = c1|u|u + c2 u by bounded least squares (SciPy)", "dofs": {}}
    fits = {}
    ses = {}  # standard errors of what `fits` holds (full size with --scale)
    by_dof = {}
    for r in runs:
        by_dof.setdefault(r.dof, []).append(r)
    for dof in sorted(by_dof, key=DOFS.index):
        points = towing.reduce_runs(by_dof[dof], overrides=overrides)
        if len(points) > MAX_SPEEDS:
            raise InputError(f"{dof}: {len(points)} speeds (the limit is {MAX_SPEEDS})")
        for key in (None, dof):
            ranges, speeds = excludes.get(key, ([], []))
            towing.exclude(points, ranges, speeds)
        try:
            fit = towing.fit_damping(points, linear=not args.quadratic_only)
        except IdentifyError as e:
            raise IdentifyError(f"{dof} ({len(by_dof[dof])} runs from {by_dof[dof][0].path}...): {e}") from None
        rot = dof in logs.ROTATIONAL
        c1, c2 = fit.c1, fit.c2
        entry = {
            "runs": len(by_dof[dof]), "speeds": len(points), "fitted_speeds": sum(not p.excluded for p in points),
            "quadratic_damping": c1, "quadratic_damping_se": float(fit.se[0]),
            "quadratic_damping_ci95": list(fit.interval(0)),
            "linear_damping": c2, "linear_damping_se": float(fit.se[1]), "linear_damping_ci95": list(fit.interval(1)),
            "units": {"quadratic_damping": UNITS[rot][2], "linear_damping": UNITS[rot][3], "load": UNITS[rot][0],
                      "speed": UNITS[rot][1]},
            "reduced_chi2": fit.chi2_reduced, "t95": fit.t95, "covariance": fit.cov.tolist(),
            "points": [{"speed": p.speed, "mean": p.value, "variance": p.variance, "runs": len(p.runs),
                        "excluded": p.excluded,
                        "segments": [{"file": s.run.path, "t0": s.t0, "t1": s.t1, "mean": s.mean, "variance": s.variance,
                                      "samples": s.samples, "automatic": s.automatic} for s in p.runs]}
                       for p in points],
        }
        if args.scale:
            s1, s2 = towing.scale_to_full_size(c1, c2, args.scale, args.density_ratio)
            f = towing.scale_to_full_size(1.0, 1.0, args.scale, args.density_ratio)[0]
            entry["full_size"] = {"scale": args.scale, "density_ratio": args.density_ratio,
                                  "quadratic_damping": s1, "linear_damping": s2,
                                  "quadratic_damping_se": float(fit.se[0]) * f, "linear_damping_se": float(fit.se[1]) * f,
                                  "law": "seed 002 §3.2.3: F_r = (rho_r/rho_m) lambda^3 F_m (eq. 3.24); quadratic "
                                         "and linear damping x (rho_r/rho_m) lambda^2 in every dof, as the thesis"}
            c1, c2 = s1, s2
        result["dofs"][dof] = entry
        fits[dof] = (c1, c2)
        ses[dof] = ((entry["full_size"]["quadratic_damping_se"], entry["full_size"]["linear_damping_se"])
                    if args.scale else (float(fit.se[0]), float(fit.se[1])))
        print(f"{dof}: {len(by_dof[dof])} runs, {len(points)} speeds ({entry['fitted_speeds']} fitted): "
              f"f = {fit.c1:.4g} (+-{fit.t95 * fit.se[0]:.2g}) |u|u + {fit.c2:.4g} (+-{fit.t95 * fit.se[1]:.2g}) u "
              f"[{UNITS[rot][0]}], 95 % intervals" + (f"; full size x{args.scale:g}: {c1:.4g} |u|u + {c2:.4g} u"
                                                       if args.scale else ""))
    extrapolated = {}
    if args.added_mass:
        am = _vector(args.added_mass, "--added-mass", 6, positive=True)
        for dof, (c1, c2, src, ratio) in towing.added_mass_extrapolation(fits, am).items():
            extrapolated[dof] = {"quadratic_damping": c1, "linear_damping": c2, "from": src, "ratio": ratio,
                                 "rule": "seed 000 §4.1.4: added-mass ratio"}
            fits[dof] = (c1, c2)
            ses[dof] = (ratio * ses[src][0], ratio * ses[src][1])
            extrapolated[dof]["quadratic_damping_se"], extrapolated[dof]["linear_damping_se"] = ses[dof]
            print(f"{dof}: extrapolated from {src} by the added-mass ratio {ratio:.4g}: {c1:.4g} |u|u + {c2:.4g} u")
    result["extrapolated"] = extrapolated
    result["hydrodynamics"] = {
        "quadratic_damping": [fits[d][0] if d in fits else None for d in DOFS],
        "linear_damping": [fits[d][1] if d in fits else None for d in DOFS],
        "quadratic_damping_se": [ses[d][0] if d in ses else None for d in DOFS],
        "linear_damping_se": [ses[d][1] if d in ses else None for d in DOFS],
        "order": list(DOFS), "frame": "diagonal: the same in frd and flu",
        "size": f"full size (--scale {args.scale:g})" if args.scale else "as towed",
    }
    if args.out:
        _write_json(args.out, result, "--out")
    if args.plot:
        plot_tow(result, args.plot)
    if args.write_model:
        write_damping_model(args.model, args.write_model, fits,
                            f"nereid identify tow ({len(runs)} runs; " + ", ".join(sorted(fits, key=DOFS.index)) + ")")
        print(f"wrote {args.write_model}")
    return result


def _write_json(path, obj, flag):
    try:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=1)
        os.replace(path + ".tmp", path)
    except OSError as e:
        raise InputError(f"{path} ({flag}): cannot write: {e.strerror}") from None


def plot_tow(result, png):
    """Seed 000 Figs. 7-8: the fused points, the excluded ones, the fit and its 95 % band."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dofs = list(result["dofs"])
    fig, axes = plt.subplots(1, len(dofs), figsize=(5 * len(dofs), 4), squeeze=False)
    for ax, dof in zip(axes[0], dofs):
        e = result["dofs"][dof]
        pts = e["points"]
        u = np.array([p["speed"] for p in pts])
        y = np.array([p["mean"] for p in pts])
        sd = np.sqrt([p["variance"] for p in pts])
        ex = np.array([bool(p["excluded"]) for p in pts])
        grid = np.linspace(min(u.min(), 0), max(u.max(), 0), 200)
        c1, c2 = e["quadratic_damping"], e["linear_damping"]
        cov = np.array(e["covariance"])
        g = np.stack([np.abs(grid) * grid, grid], -1)
        f = g @ np.array([c1, c2])
        band = e["t95"] * np.sqrt(np.einsum("ni,ij,nj->n", g, cov, g))
        ax.fill_between(grid, f - band, f + band, color="C0", alpha=0.25, label="95 % band")
        ax.plot(grid, f, "C0", label=f"fit {c1:.4g}|u|u + {c2:.3g}u")
        ax.errorbar(u[~ex], y[~ex], yerr=1.96 * sd[~ex], fmt="kx", ms=5, capsize=2, label="fitted data")
        if ex.any():
            ax.errorbar(u[ex], y[ex], yerr=1.96 * sd[ex], fmt="o", mfc="none", color="C3", ms=5, capsize=2,
                        label="excluded")
        ax.set_xlabel(f"{dof} speed [{e['units']['speed']}]")
        ax.set_ylabel(f"load [{e['units']['load']}]")
        ax.set_title(f"{dof} drag")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    try:
        fig.savefig(png, dpi=90)
    except OSError as e:
        raise InputError(f"{png} (--plot): cannot write: {e.strerror}") from None
    plt.close(fig)


def rig(args):
    from nereid import model_path
    model = args.model or model_path("bluerov")
    if not os.path.isfile(model):
        raise InputError(f"{model} (--model): no such file")
    speeds = [_number(s, "--speeds", -10, 10) for s in args.speeds.split(",") if s.strip()]
    if not speeds:
        raise InputError(f"--speeds {args.speeds!r}: expected a comma-separated list of speeds")
    if len(speeds) > MAX_SPEEDS:
        raise InputError(f"--speeds: {len(speeds)} speeds (the limit is {MAX_SPEEDS})")
    if not 0 <= args.seed < 2 ** 32:
        raise InputError(f"--seed {args.seed}: expected 0..{2 ** 32 - 1}")
    if not 1 <= args.runs <= 100:
        raise InputError(f"--runs {args.runs}: expected 1..100")
    noise = _number(str(args.noise), "--noise", 0, 1e6)
    bias = _number(str(args.bias), "--bias", -1e6, 1e6)
    hold = _number(str(args.hold), "--hold", 1.5, 600)
    overrides = {}
    if args.damping:
        c1, c2 = _vector(args.damping, "--damping", 2)
        k = DOFS.index(args.dof)
        lin = _model_config(model, "linear_damping")
        quad = _model_config(model, "quadratic_damping")
        quad[k], lin[k] = c1, c2
        overrides = {"linear_damping": " ".join(f"{x:.17g}" for x in lin), "quadratic_damping": " ".join(f"{x:.17g}" for x in quad)}
    if not os.path.isdir(args.out):
        try:
            os.makedirs(args.out)
        except OSError as e:
            raise InputError(f"{args.out} (--out): cannot create the folder: {e.strerror}") from None
    runs = towing.tow_rig(model, args.dof, speeds, runs_per_speed=args.runs, noise=noise, bias=bias, seed=args.seed,
                          hold_s=hold, overrides=overrides)
    for r in runs:
        path = os.path.join(args.out, r.path)
        try:
            logs.write_tow_run(path, r.dof, r.t, r.speed, r.load,
                               source=f"nereid identify rig, {os.path.basename(model)}", extra_meta=r.meta)
        except OSError as e:
            raise InputError(f"{path} (--out): cannot write: {e.strerror}") from None
    print(f"wrote {len(runs)} {args.dof} runs into {args.out}")


def build_parser():
    p = UsageParser(prog="nereid identify", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("tow", help="damping from tow-test runs (seed 000 §4.1)")
    t.add_argument("runs", nargs="+", help="tow-run CSV files or folders of them (docs/logs.md)")
    t.add_argument("--dof", choices=DOFS)
    t.add_argument("--exclude", action="append", default=[], help="[DOF=]LO:HI or [DOF=]SPEED")
    t.add_argument("--stationary", help="T0:T1, s: the stationary segment of every run")
    t.add_argument("--quadratic-only", action="store_true", help="fit f = c1 |u| u alone")
    t.add_argument("--scale", type=float, help="full size / model length: seed 002's scaling to full size")
    t.add_argument("--density-ratio", type=float, default=1.0,
                   help="rho full size / rho of the tank (seed 002 eq. 3.24), with --scale")
    t.add_argument("--added-mass", help="six diagonal added masses: extrapolate sway, roll, yaw (seed 000 §4.1.4)")
    t.add_argument("--out")
    t.add_argument("--plot")
    t.add_argument("--model", help="the model --write-model copies")
    t.add_argument("--write-model")
    r = sub.add_parser("rig", help="simulated tow tests of a model")
    r.add_argument("--dof", choices=DOFS, required=True)
    r.add_argument("--speeds", required=True, help="comma-separated speeds, m/s or rad/s")
    r.add_argument("--out", required=True, help="folder for the runs")
    r.add_argument("--model")
    r.add_argument("--runs", type=int, default=3)
    r.add_argument("--noise", type=float, default=0.5)
    r.add_argument("--bias", type=float, default=0.0)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--hold", type=float, default=6.0)
    r.add_argument("--damping", help="'c1 c2': the dof's quadratic and linear damping instead of the model's")
    f = sub.add_parser("free", help="damping from a free-running trial log")
    f.add_argument("log")
    f.add_argument("--model", required=True)
    f.add_argument("--dofs", default="surge,yaw", help="the dofs whose damping is fitted")
    f.add_argument("--initial-velocity", choices=("kf", "zero"), default="kf")
    f.add_argument("--time-offset", type=float, default=0.0, help="s: the log's commands are this late")
    f.add_argument("--body", help="the vehicle's body (default: the free body the logged actuators move)")
    f.add_argument("--max-evaluations", type=int, default=200)
    f.add_argument("--added-mass", action="store_true", help="fit the dofs' diagonal added mass too")
    f.add_argument("--out")
    f.add_argument("--write-model")
    return p


def main(argv=None):
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        if args.command == "rig":
            if not 0 <= args.seed < 2 ** 32:
                raise InputError(f"--seed {args.seed}: expected 0..{2 ** 32 - 1}")
            if not 1 <= args.runs <= 100:
                raise InputError(f"--runs {args.runs}: expected 1..100")
            _number(str(args.hold), "--hold", 1.5, 600)
        elif args.command == "free":
            if not 1 <= args.max_evaluations <= 10000:
                raise InputError(f"--max-evaluations {args.max_evaluations}: expected 1..10000")
        _load_nereid()
        if args.command == "tow":
            if args.scale is not None:
                _number(str(args.scale), "--scale", positive=True)
                if args.scale > 1000:
                    raise InputError(f"--scale {args.scale:g}: expected at most 1000")
            if not (math.isfinite(args.density_ratio) and 0.5 <= args.density_ratio <= 2):
                raise InputError(f"--density-ratio {args.density_ratio!r}: expected 0.5..2 (a ratio of water densities)")
            if args.write_model and not args.model:
                raise InputError("--write-model needs --model (the model to copy)")
            if args.model and not os.path.isfile(args.model):
                raise InputError(f"{args.model} (--model): no such file")
            for flag, path in (("--out", args.out), ("--plot", args.plot), ("--write-model", args.write_model)):
                if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
                    raise InputError(f"{path} ({flag}): the folder does not exist")
            tow(args)
        elif args.command == "rig":
            rig(args)
        else:
            if not 1 <= args.max_evaluations <= 10000:
                raise InputError(f"--max-evaluations {args.max_evaluations}: expected 1..10000")
            if not (math.isfinite(args.time_offset) and abs(args.time_offset) <= 60):
                raise InputError(f"--time-offset {args.time_offset!r}: expected a number of seconds within 60")
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            sys.modules.setdefault("identify", sys.modules[__name__])  # run as a script: one InputError
            from identify_free import free
            free(args)
        return 0
    except (InputError, LogError, IdentifyError) as e:
        print(f"nereid: error: identify {args.command}: {cut_long_words(str(e))}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
