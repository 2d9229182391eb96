#!/usr/bin/env python3
"""Seed 000: which metacentric height BG keeps the BlueROV pair upright at 1700 and 1800 us.

    python3 tools/seed000_bg_sweep.py [--nereid build/nereid] [--work results/seed000_bg_sweep]
                                      [--png FILE.png]

The pair model (models/multi/bluerov_pair.xml, written by scripts/make_multi_models.py)
puts each ROV's centre of buoyancy BG = 0.02 m above its CG (models/bluerov/README.md,
assumption 3: seed 000 gives no CB; 0.02 m is the BlueROV2 Heavy's CG offset of seed 003
section 6.1). At that BG the straight runs at 1700 and 1800 us tumble (docs/validation.md,
"Seed 000"). This sweep raises the CB of every ROV to BG above its CG and leaves
everything else as it is: the connector, the masses, the added mass and damping, and the
buoyancy volume (so W and B are unchanged, only their lever arm grows).

For every BG and PWM it writes, into WORK:
  - a copy of the pair model with the ROVs' `center_of_buoyancy` set to (0, 0, -BG) (FRD,
    i.e. BG above the CG), relative file references resolved against the original;
  - a `nereid run` scenario with the crosscheck scenario's model, duration, dt,
    integrator and wrenches (scenarios/crosscheck/bluerov_pair_pwm{1700,1800}.json: a
    constant body-frame surge force on each ROV as a stand-in for two T200s);
and runs it with `nereid run` (MuJoCo's weld equality, default solref/solimp, as
`nereid crosscheck`'s method (b); Nereid's stepper with added mass in M). The welds hold
the bodies' relative orientation to well under a degree, so every body's attitude is
the assembly's; the reported angles are the largest over all three bodies.

Measured per run, from trajectory.csv:
  - the largest |pitch| and |roll| (Z-Y-X Euler angles of each body's world-from-body
    quaternion, z-up world, FLU body; once the assembly pitches past 90 deg the Z-Y-X
    roll jumps to 180 deg, so a tumble shows in both columns) and the largest tilt (the
    angle between the body's z axis and the world's, 0-180 deg);
  - upright: |pitch| < 30 deg and |roll| < 30 deg at every recorded sample;
  - the mean horizontal speed of the assembly's centre of mass over the last 3 s (as the
    "Seed 000" section of docs/validation.md measures it from crosscheck's uk.csv).
"""
import argparse
import json
import pathlib
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import numpy as np

BG_VALUES = (0.02, 0.03, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.3)  # m
PWMS = (1700, 1800)  # us
ROV_BODIES = ("rov_left", "rov_right")
UPRIGHT_DEG = 30.0  # |pitch| and |roll| must stay below this at every sample
LAST_S = 3.0  # window of the final mean speed
RECORD_EVERY = 4  # steps (dt 0.005 s: a sample every 0.02 s)
SCENARIO = "scenarios/crosscheck/bluerov_pair_pwm{pwm}.json"
# keys of a crosscheck scenario that `nereid run` does not take
CROSSCHECK_ONLY = ("weld", "uk", "peak", "reference", "record_every", "methods")
FILE_ATTRS = {"include": "file", "mesh": "file", "texture": "file", "hfield": "file", "skin": "file",
              "model": "file"}


def _parse(path):
    return ET.parse(path, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))


def write_model(src, dst, bg, rov_bodies=ROV_BODIES):
    """Copies the MJCF `src` to `dst` with every ROV's centre of buoyancy BG above its CG.

    The buoyancy plugin's `center_of_buoyancy` is in the plugin's frame: FRD in the pair
    model (z down), so BG above the CG is (0, 0, -BG); an FLU instance gets (0, 0, +BG).
    Relative file references (include, meshes, textures, compiler directories) are made
    absolute against the source model's folder, so the copy loads from anywhere.
    """
    src = pathlib.Path(src).resolve()
    tree = _parse(src)
    root = tree.getroot()
    base = src.parent
    for comp in root.iter("compiler"):
        for key in ("meshdir", "texturedir", "assetdir"):
            if key in comp.attrib and not pathlib.Path(comp.attrib[key]).is_absolute():
                comp.attrib[key] = str((base / comp.attrib[key]).resolve())
    has_dirs = any(k in c.attrib for c in root.iter("compiler") for k in ("meshdir", "texturedir", "assetdir"))
    for tag, attr in FILE_ATTRS.items():
        for el in root.iter(tag):
            f = el.attrib.get(attr)
            # asset files resolve against the compiler's directories when those are given
            if f and not pathlib.Path(f).is_absolute() and (tag == "include" or not has_dirs):
                el.attrib[attr] = str((base / f).resolve())
    found = set()
    for plugin in root.iter("plugin"):
        if plugin.attrib.get("plugin") != "nereid.buoyancy":
            continue
        for inst in plugin.iter("instance"):
            cfg = {c.attrib["key"]: c for c in inst.iter("config")}
            body = cfg["body"].attrib["value"] if "body" in cfg else None
            if body not in rov_bodies:
                continue
            frame = cfg["frame"].attrib["value"].lower() if "frame" in cfg else "flu"
            z = -bg if frame in ("frd", "ned") else bg
            if "center_of_buoyancy" in cfg:
                cfg["center_of_buoyancy"].attrib["value"] = f"0 0 {z:.6g}"
            else:
                ET.SubElement(inst, "config", key="center_of_buoyancy", value=f"0 0 {z:.6g}")
            found.add(body)
    missing = set(rov_bodies) - found
    if missing:
        raise ValueError(f"{src}: no nereid.buoyancy instance for {sorted(missing)}")
    note = ET.Comment(f" tools/seed000_bg_sweep.py: copy of {src} with the centre of buoyancy of "
                      f"{', '.join(rov_bodies)} BG = {bg:g} m above the CG; nothing else changed ")
    note.tail = "\n  "
    root.insert(0, note)
    dst = pathlib.Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    tree.write(dst, encoding="unicode", xml_declaration=True)
    return dst


def write_scenario(src, dst, model):
    """Copies a crosscheck scenario as a `nereid run` scenario on `model`.

    The crosscheck's wrenches default to the body frame, `nereid run`'s to the world
    frame, so the frame is written out.
    """
    src = pathlib.Path(src)
    s = json.load(open(src))
    for k in CROSSCHECK_ONLY:
        s.pop(k, None)
    s["model"] = str(pathlib.Path(model).resolve())
    s["wrenches"] = [dict(w, frame=w.get("frame", "body")) for w in s.get("wrenches", [])]
    s["description"] = f"tools/seed000_bg_sweep.py: {src.name} on {pathlib.Path(model).name}. " + s.get("description", "")
    dst = pathlib.Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    json.dump(s, open(dst, "w"), indent=2)
    return dst


def load_csv(path):
    """The columns of a CSV file with a header row, as float arrays."""
    with open(path) as f:
        names = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {n: data[:, i] for i, n in enumerate(names)}


def body_masses(model):
    """Body name -> mass from the <inertial> elements of an MJCF file."""
    out = {}
    for body in _parse(model).getroot().iter("body"):
        inert = body.find("inertial")
        if inert is not None and "name" in body.attrib:
            out[body.attrib["name"]] = float(inert.attrib["mass"])
    return out


def attitude(t, body):
    """Z-Y-X roll, pitch (rad) and tilt (angle between body z and world z) of a body."""
    w, x, y, z = (t[f"{body}.q{c}"] for c in "wxyz")
    n = np.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    r20 = 2 * (x * z - w * y)
    r21 = 2 * (y * z + w * x)
    r22 = 1 - 2 * (x * x + y * y)
    roll = np.arctan2(r21, r22)
    pitch = -np.arcsin(np.clip(r20, -1, 1))
    tilt = np.arccos(np.clip(r22, -1, 1))
    return roll, pitch, tilt


def measure(traj, model):
    """Largest pitch/roll/tilt (deg), upright flag and final mean horizontal CoM speed."""
    t = load_csv(traj)
    masses = body_masses(model)
    bodies = [b for b in masses if f"{b}.qw" in t]
    att = {b: attitude(t, b) for b in bodies}
    roll = np.max([np.abs(np.degrees(att[b][0])) for b in bodies], axis=0)
    pitch = np.max([np.abs(np.degrees(att[b][1])) for b in bodies], axis=0)
    tilt = np.max([np.degrees(att[b][2]) for b in bodies], axis=0)
    mtot = sum(masses[b] for b in bodies)
    com = {c: sum(masses[b] * t[f"{b}.p{c}"] for b in bodies) / mtot for c in "xyz"}
    time_s = t["time"]
    speed = np.hypot(np.gradient(com["x"], time_s), np.gradient(com["y"], time_s))
    last = time_s > time_s[-1] - LAST_S
    # the assembly's own attitude for the plot: the connector (the middle body) if present
    ref = "connector" if "connector" in att else bodies[0]
    return {
        "max_pitch_deg": float(pitch.max()),
        "max_roll_deg": float(roll.max()),
        "max_tilt_deg": float(tilt.max()),
        "upright": bool(pitch.max() < UPRIGHT_DEG and roll.max() < UPRIGHT_DEG),
        "final_speed_mps": float(speed[last].mean()),
        "series": {"t": time_s, "pitch_deg": np.degrees(att[ref][1]), "tilt_deg": np.degrees(att[ref][2]),
                   "speed_mps": speed},
    }


def runner(nereid, work_dir, cwd, run=None):
    """A function go(name, *args) that runs `nereid *args --out work_dir/name` and returns the
    output folder: through `run` (e.g. tools/validate.py's Runner.run, which adds --out and
    logs the command; name is then relative to its work folder), else directly from `cwd`."""
    work_dir = pathlib.Path(work_dir)

    def go(name, *args):
        if run is not None:
            return pathlib.Path(run(f"{work_dir.name}/{name}", *args))
        out = work_dir / name
        cmd = [str(nereid), *args, "--out", str(out)]
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")
        return out
    return go


def run_sweep(nereid, source_root, work_dir, bg_values=BG_VALUES, pwms=PWMS, run=None,
              record_every=RECORD_EVERY):
    """Runs every (BG, PWM) and returns a list of rows (dicts), one per run.

    nereid: the `nereid` binary; source_root: the repository (for the model and the
    crosscheck scenarios); work_dir: where the model and scenario copies and the run
    outputs go. run: optional callable run(name, *args) -> output folder (such as
    tools/validate.py's Runner.run, which adds `--out` and logs the command; name is then
    relative to its work folder); without it the binary is called directly with
    --out work_dir/name. Each row: bg_m, pwm, max_pitch_deg, max_roll_deg, max_tilt_deg,
    upright, final_speed_mps, series (t, pitch_deg, tilt_deg, speed_mps), model, scenario.
    """
    source_root = pathlib.Path(source_root).resolve()
    work_dir = pathlib.Path(work_dir).resolve()
    inputs = work_dir / "inputs"
    base_model = source_root / "models" / "multi" / "bluerov_pair.xml"

    go = runner(nereid, work_dir, source_root, run)
    rows = []
    for bg in bg_values:
        tag = f"bg{bg * 1000:05.1f}mm"
        model = write_model(base_model, inputs / f"bluerov_pair_{tag}.xml", bg)
        for pwm in pwms:
            scen = write_scenario(source_root / SCENARIO.format(pwm=pwm), inputs / f"pair_pwm{pwm}_{tag}.json", model)
            args = ("run", str(scen), "--record-every", str(record_every))
            out = go(f"pwm{pwm}_{tag}", *args)
            row = {"bg_m": bg, "pwm": pwm, "model": str(model), "scenario": str(scen)}
            row.update(measure(out / "trajectory.csv", model))
            rows.append(row)
    return rows


def static_bg_estimate(model, speed, rov_body=ROV_BODIES[0], g=9.81):
    """BG (m) at which W BG equals the Munk moment's stiffness (Z_wdot - X_udot) u^2 of one ROV.

    The static estimate for a body whose velocity stays fixed while it pitches: the Munk
    moment (Z_wdot - X_udot) u w with w = u sin(theta) against the righting moment
    W BG sin(theta). It leaves out the pitch and heave damping and the thrust that turns
    the velocity with the body, so it is a rough scale, not the threshold.
    """
    root = _parse(model).getroot()
    mass = body_masses(model)[rov_body]
    for inst in root.iter("instance"):
        cfg = {c.attrib["key"]: c.attrib["value"] for c in inst.iter("config")}
        if cfg.get("body") == rov_body and "added_mass" in cfg:
            am = [float(v) for v in cfg["added_mass"].split()]
            return (am[2] - am[0]) * speed ** 2 / (mass * g)
    raise ValueError(f"{model}: no added_mass for {rov_body}")


def smallest_upright_bg(rows, pwms=PWMS):
    """The smallest BG at which every run in `pwms` is upright and every larger BG is too."""
    bgs = sorted({r["bg_m"] for r in rows})
    ok = {bg: all(r["upright"] for r in rows if r["bg_m"] == bg and r["pwm"] in pwms) for bg in bgs}
    best = None
    for bg in reversed(bgs):
        if not ok[bg]:
            break
        best = bg
    return best


def markdown_table(rows, pwms=PWMS):
    bgs = sorted({r["bg_m"] for r in rows})
    by = {(r["bg_m"], r["pwm"]): r for r in rows}
    head = "| BG [m] | " + " | ".join(
        f"{p} us: max pitch | max roll | max tilt | upright? | speed, last {LAST_S:g} s" for p in pwms) + " |"
    sep = "|---|" + "---|" * (5 * len(pwms))
    lines = [head, sep]
    for bg in bgs:
        cells = [f"{bg:g}"]
        for p in pwms:
            r = by[(bg, p)]
            cells += [f"{r['max_pitch_deg']:.1f} deg", f"{r['max_roll_deg']:.1f} deg", f"{r['max_tilt_deg']:.1f} deg",
                      "yes" if r["upright"] else "**no**", f"{r['final_speed_mps']:.3f} m/s"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows, png, pwms=PWMS):
    """Pitch of the assembly over time per BG and PWM, and max tilt / final speed against BG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    bgs = sorted({r["bg_m"] for r in rows})
    by = {(r["bg_m"], r["pwm"]): r for r in rows}
    cmap = plt.get_cmap("viridis")
    fig, ax = plt.subplots(2, len(pwms), figsize=(5.5 * len(pwms), 7.5))
    ax = np.atleast_2d(ax)
    for j, p in enumerate(pwms):
        a = ax[0, j]
        for i, bg in enumerate(bgs):
            s = by[(bg, p)]["series"]
            a.plot(s["t"], s["tilt_deg"], color=cmap(i / max(1, len(bgs) - 1)), lw=1.2, label=f"BG = {bg:g} m")
        a.axhline(UPRIGHT_DEG, color="r", ls="--", lw=0.8)
        a.set_title(f"PWM {p} us: tilt of the connector (body z from vertical)")
        a.set_xlabel("time [s]"); a.set_ylabel("tilt [deg]"); a.grid(alpha=0.3)
        a.set_ylim(0, 185); a.legend(fontsize=7, ncol=2)
    a = ax[1, 0]
    for j, p in enumerate(pwms):
        a.plot(bgs, [by[(bg, p)]["max_pitch_deg"] for bg in bgs], f"C{j}o-", label=f"{p} us, max |pitch|")
        a.plot(bgs, [by[(bg, p)]["max_roll_deg"] for bg in bgs], f"C{j}s:", label=f"{p} us, max |roll|")
    a.axhline(UPRIGHT_DEG, color="r", ls="--", lw=0.8, label=f"upright limit {UPRIGHT_DEG:g} deg")
    a.set_xlabel("BG [m]"); a.set_ylabel("largest angle [deg] (Z-Y-X Euler)"); a.grid(alpha=0.3)
    a.legend(fontsize=7); a.set_title("largest pitch and roll against BG")
    if ax.shape[1] > 1:
        a = ax[1, 1]
        for j, p in enumerate(pwms):
            a.plot(bgs, [by[(bg, p)]["final_speed_mps"] for bg in bgs], f"C{j}o-", label=f"{p} us")
            up = [bg for bg in bgs if by[(bg, p)]["upright"]]
            a.plot(up, [by[(bg, p)]["final_speed_mps"] for bg in up], f"C{j}o", ms=10, mfc="none")
        a.set_xlabel("BG [m]"); a.set_ylabel(f"mean horizontal CoM speed, last {LAST_S:g} s [m/s]")
        a.grid(alpha=0.3); a.legend(fontsize=8); a.set_title("final speed (circled: upright run)")
    fig.suptitle("Seed 000 BlueROV pair: CB raised to BG above each ROV's CG (nereid run, MuJoCo weld)")
    fig.tight_layout()
    png = pathlib.Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return png


def main():
    root = pathlib.Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nereid", default=str(root / "build" / "nereid"))
    ap.add_argument("--work", default=str(root / "results" / "seed000_bg_sweep"))
    ap.add_argument("--png", default=None, help="also write the plot here")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rows = run_sweep(args.nereid, root, args.work)
    elapsed = time.perf_counter() - t0
    print(markdown_table(rows))
    best = smallest_upright_bg(rows)
    print(f"\nsmallest BG keeping {' and '.join(map(str, PWMS))} us upright "
          f"(|pitch|, |roll| < {UPRIGHT_DEG:g} deg throughout): {best if best is not None else 'none in the sweep'} m")
    print(f"sweep: {len(rows)} runs in {elapsed:.2f} s")
    if args.png:
        print("wrote", plot(rows, args.png))


if __name__ == "__main__":
    sys.exit(main())
