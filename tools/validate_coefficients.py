"""`nereid validate`'s section on `nereid coefficients` (docs/own_vehicle.md part 1):
closed forms (a sphere; Lamb's prolate spheroids of aspect 2 and 5 within 1 % at 1536
panels), seed 002 Appendix B's simplified BlueROV Heavy beside the thesis's Nemoh result
(eq. B.1) and the published coefficients it compares with (eq. B.2), seed 000 Table 2's
connection piece from square rods beside WADAM's values, and seed 002 §3.2.2's Raybot
(eq. 3.23) bracketed by its frame's solid box and its displaced volume as buoyant modules.

    python3 tools/validate_coefficients.py [--nereid build/nereid] [--work DIR]

runs the section alone and prints it.
"""
import json
import math
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
RHO = 1000.0
# the cheap run repeated by `nereid validate --quick`
QUICK_RUNS = ["coefficients_sphere"]

# seed 002 eq. B.1 (Nemoh on the thesis's simplified Heavy) and B.2 (the published values
# the thesis compares with, its ref. [25]): diagonal X Y Z K M N
SEED002_B1 = [8.262, 19.43, 19.97, 0.28, 0.20, 0.23]
SEED002_B2 = [5.5, 12.7, 14.57, 0.12, 0.12, 0.12]
# seed 000 Table 2: the connection piece's added mass by WADAM (decimal points restored as
# in the seed's table)
SEED000_T2 = [1.52, 0.52, 1.50, 0.021, 0.01, 0.025]
# seed 002 eq. 3.23: the Raybot's added mass (Nemoh on the thesis's simplified CAD model, 50 m
# deep, read as BEM-Rosetta's A-infinity), diagonal X Y Z K M N
SEED002_RAYBOT = [27.96, 20.35, 29.58, 3.90, 1.48, 4.06]
# the Raybot's assumed geometries (tools/validation_geometry/raybot_*.xml): the frame's solid
# box; the 26.3 L as one block of modules over the sensor space, split at the frame's ends,
# and as two 4" tubes along the frame's length
RAYBOT_VARIANTS = ["box", "top_modules", "end_modules", "tubes"]
DOFS = ["surge", "sway", "heave", "roll", "pitch", "yaw"]
TERMS = ["X_u̇ (kg)", "Y_v̇ (kg)", "Z_ẇ (kg)", "K_ṗ (kg m²)", "M_q̇ (kg m²)", "N_ṙ (kg m²)"]


def lamb_prolate(a, b):
    """Lamb's k1, k2, k' of a prolate spheroid, semi-axes a > b = c (Hydrodynamics, sec. 373)."""
    e = math.sqrt(1 - (b / a) ** 2)
    L = math.log((1 + e) / (1 - e))
    alpha0 = 2 * (1 - e * e) / e ** 3 * (0.5 * L - e)
    beta0 = 1 / e ** 2 - (1 - e * e) / (2 * e ** 3) * L
    return (alpha0 / (2 - alpha0), beta0 / (2 - beta0),
            e ** 4 * (beta0 - alpha0) / ((2 - e * e) * (2 * e * e - (2 - e * e) * (beta0 - alpha0))))


def run(r, name, *args):
    """`nereid coefficients ... --out WORK/NAME` through the report's runner; its JSON."""
    out = r.run(name, "coefficients", *map(str, args))
    return json.loads((ROOT / out).read_text())


def diag(res):
    return np.diag(np.array(res["added_mass"]))


def closed_forms(r):
    rows, checks = [], []
    sphere = run(r, "coefficients_sphere", "tools/validation_geometry/sphere.xml", "--body", "b",
                 "--max-panels", 600)
    half = 0.5 * RHO * 4 / 3 * math.pi * 0.5 ** 3
    d = diag(sphere)
    err = np.abs(d[:3] / half - 1).max()
    rot = np.abs(d[3:]).max() / half
    rows.append(f"| sphere r = 0.5 m, {sphere['panels']} panels | 0.5 ρV = {half:.2f} kg, rotations 0 | "
                f"{d[0]:.2f} {d[1]:.2f} {d[2]:.2f} kg; rotations ≤ {rot:.1e} of 0.5 ρV | {100 * err:.2f} % |")
    checks.append(err < 0.01)
    for ratio in (2, 5):
        a, b = 1.0, 1.0 / ratio
        res = run(r, f"coefficients_spheroid_{ratio}", f"tools/validation_geometry/spheroid_{ratio}.xml",
                  "--body", "b", "--max-panels", 1536)
        k1, k2, kp = lamb_prolate(a, b)
        vol = 4 / 3 * math.pi * a * b * b
        exact = np.array([k1, k2, k2, kp * (a * a + b * b) / 5, kp * (a * a + b * b) / 5]) * RHO * vol
        got = diag(res)[[0, 1, 2, 4, 5]]
        err = np.abs(got / exact - 1).max()
        conv = res["convergence"]
        monotone = all(np.all(np.abs(np.diag(np.array(conv["added_mass_frd"][k + 1]))[[0, 1, 2, 4, 5]] - exact)
                              <= np.abs(np.diag(np.array(conv["added_mass_frd"][k]))[[0, 1, 2, 4, 5]] - exact))
                       for k in range(len(conv["panels"]) - 1))
        rows.append(f"| prolate spheroid a/b = {ratio}, panels {conv['panels']} | Lamb k1 {k1:.4f}, k2 {k2:.4f}, "
                    f"k' {kp:.4f}: X {exact[0]:.2f}, Y = Z {exact[1]:.2f} kg, M = N {exact[3]:.3f} kg m² | "
                    f"X {got[0]:.2f}, Y {got[1]:.2f}, Z {got[2]:.2f} kg, M {got[3]:.3f}, N {got[4]:.3f} kg m²; "
                    f"convergence monotone: {'yes' if monotone else 'NO'} | {100 * err:.2f} % |")
        checks.append(err < 0.01 and monotone)
    return rows, all(checks)


def heavy(r):
    res = run(r, "coefficients_seed002_heavy", "tools/validation_geometry/bluerov2_heavy_simplified.xml", "--body", "heavy",
              "--max-panels", 2000)
    d = diag(res)
    rows = "\n".join(f"| {n} | {b1:g} | {b2:g} | {x:.3g} |" for n, b1, b2, x in zip(TERMS, SEED002_B1, SEED002_B2, d))
    change = res["convergence"]["largest_relative_change_last_level"]
    return res, rows, change


def connector(r):
    """Seed 000 Table 2 from two square rods (tools/validation_geometry/seed000_connector*.xml)."""
    runs = {}
    for variant in ("", "_long", "_wide"):
        runs[variant] = run(r, f"coefficients_seed000_connector{variant}",
                            f"tools/validation_geometry/seed000_connector{variant}.xml", "--body", "connector",
                            "--max-panels", 1500)
    d = {k: diag(v) for k, v in runs.items()}
    rows = "\n".join(f"| {n} | {t:g} | {a:.3g} | {b:.3g} | {c:.3g} |"
                     for n, t, a, b, c in zip(TERMS, SEED000_T2, d[""], d["_long"], d["_wide"]))
    change = max(v["convergence"]["largest_relative_change_last_level"] for v in runs.values())
    return runs[""], rows, change


def about_point(res, point_frd):
    """The added-mass matrix moved from its reference point to POINT (FRD, m): velocities at
    the reference are v + w x d with d = reference - point, so A_point = H^T A H,
    H = [[I, -S(d)], [0, I]] (Fossen 2011, sec. 3.3)."""
    d = np.array(res["reference_point"]) - np.array(point_frd)
    S = np.array([[0, -d[2], d[1]], [d[2], 0, -d[0]], [-d[1], d[0], 0]])
    H = np.eye(6)
    H[:3, 3:] = -S
    return H.T @ np.array(res["added_mass"]) @ H


def raybot(r):
    """Seed 002 eq. 3.23 bracketed: the frame's solid box and the 26.3 L as modules."""
    runs = {v: run(r, f"coefficients_seed002_raybot_{v}", f"tools/validation_geometry/raybot_{v}.xml",
                   "--body", "raybot", "--max-panels", 2000) for v in RAYBOT_VARIANTS}
    d = {v: diag(res) for v, res in runs.items()}
    rows = "\n".join(f"| {n} | {t:g} | " + " | ".join(f"{d[v][k]:.3g}" for v in RAYBOT_VARIANTS) + " |"
                     for k, (n, t) in enumerate(zip(TERMS, SEED002_RAYBOT)))
    # rotations about the frame's centre (the CG, as models/raybot assumes) instead of the CB
    at_cg = {v: np.diag(about_point(runs[v], [0, 0, 0])) for v in RAYBOT_VARIANTS}
    change = max(v["convergence"]["largest_relative_change_last_level"] for v in runs.values())
    panels = sorted(res["panels"] for res in runs.values())
    return runs, d, at_cg, rows, change, panels


def closed_forms_text(rows, ok):
    """The section's heading and its closed forms: closed_forms' rows as a table."""
    table = "\n".join(rows)
    return f"""## `nereid coefficients`: added mass from geometry

Capytaine 3.0.0 (direct boundary integral equation, constant panels, infinite frequency,
no free surface), run by `nereid coefficients` on MJCF bodies meshed from their geoms
(docs/own_vehicle.md part 1).

### Closed forms

| body | closed form | Nereid (finest mesh) | largest error |
|---|---|---|---|
{table}

All within 1 %: {'yes' if ok else 'NO'}. Lamb, *Hydrodynamics*, sec. 373 (k1 along the axis, k2 across,
k' for rotation about a transverse axis, as fractions of the displaced fluid's mass and
moment of inertia ρV(a² + b²)/5). The panels' vertices lie on the surface, so the
panelled body is slightly smaller and the values approach from below.
"""


def heavy_text(res, heavy_rows, change):
    """Seed 002 Appendix B's simplified Heavy: heavy's table and what its numbers say."""
    return f"""
### Seed 002 Appendix B: the simplified BlueROV Heavy

The thesis meshed a "simplified model of the BlueROV Heavy ... without rounded edges" and
ran Nemoh 50 m deep (eq. B.1); it compares with the published coefficients (eq. B.2, its
ref. [25]). It gives no drawing of that model, so Nereid's is rebuilt from Blue Robotics'
published dimensions, sharp-edged, as a union of geoms
(`tools/validation_geometry/bluerov2_heavy_simplified.xml`, every part an assumption
listed there): the 4" electronics and 3" battery enclosures, two buoyancy blocks and the
Heavy's two lateral thruster guards; displaced volume {1000 * res['volume']:.1f} L (the
vehicle displaces about 12 L). {res['panels']} panels, largest diagonal change at the last
refinement {100 * change:.1f} %.

| term | seed 002 eq. B.1 (Nemoh) | published, eq. B.2 | Nereid |
|---|---|---|---|
{heavy_rows}

Nereid's numbers sit near the published ones (B.2) and below the thesis's Nemoh result
(B.1), which the thesis itself calls high for its sharp-edged model. They depend on the
assumed parts: the two 12.7 mm side plates, left out, are thinner than any panel the solve
can afford; with them (meshed at 2000 panels) sway rose to about 41 kg and roll to
0.44 kg m² but moved 40 % between refinements, so that figure is not converged. Removing
the guards' or foam's volume moves surge and heave by about their own share of the
displaced volume.
"""


def connector_text(con, con_rows, con_change):
    """Seed 000 Table 2's connection piece: connector's table and its sensitivity."""
    return f"""
### Seed 000 Table 2: the connection piece

Seed 000 found the connection piece's added mass with the BEM code WADAM on "the exact
model", which it describes only as "built up by square rods" of aluminium profile joining
two BlueROVs side by side. Nereid's geometry is an assumption
(`tools/validation_geometry/seed000_connector.xml`): two 40 x 40 mm square rods along y
(the line between the two vehicles), 0.40 m long, their axes 0.15 m apart in x. The two
other columns show the sensitivity: rods 0.45 m long, and rods 0.20 m apart.
{con['panels']} panels, largest diagonal change at the last refinement {100 * con_change:.1f} %.

| term | seed 000 Table 2 (WADAM) | Nereid: 0.40 m, 0.15 m apart | 0.45 m long | 0.20 m apart |
|---|---|---|---|---|
{con_rows}

Surge, heave, roll, pitch and yaw fall within the spread that the assumed dimensions give
(the length moves surge, heave, roll and yaw; the spacing moves pitch). Sway does
not: two bare rods meet the water along y only with their 40 x 40 mm ends, while the real
piece has plates and brackets at its ends to bolt onto the vehicles, which face sway; the
seed does not give them.
"""


def raybot_text(ray, ray_rows, ray_change, ray_panels):
    """Seed 002 §3.2.2's Raybot: the four assumed geometries and raybot's table."""
    return f"""
### Seed 002 §3.2.2: the Raybot (eq. 3.23)

The thesis ran Nemoh 50 m deep on "a simplified version of the 3D CAD model" (its Figure
3.2, lost in the text) and read the added mass as BEM-Rosetta's A∞ (eq. 3.23). The text
gives only the frame's outer size, 0.33 x 1.29 x 0.59 m (§2.2.4: 20 mm aluminium profiles,
the thrusters placed around an open sensor space of 0.33 x 0.94 x 0.31 m, §2.1, §2.2.1),
two buoyant BlueROV2 electronics enclosures "at the top of the frame" (§2.2.3), the
displaced volume 26.3 L and the centre of buoyancy 0.2 m above the centre of mass (§3.2.1).
Nereid brackets eq. 3.23 with four assumed geometries
(`tools/validation_geometry/raybot_*.xml`, each assumption listed there): (a) the frame's
solid box, {1000 * ray['box']['volume']:.0f} L, an upper estimate, since the real frame is open and water
passes through it; then the 26.3 L alone, in the 0.14 m layer between the sensor space and
the top of the frame (centre 0.225 m above the frame's centre, near the thesis's centre of
buoyancy), laid out three ways: (b) one block of modules 0.33 x 0.569 x 0.14 m over the
sensor space, (c) the same block split in two at the frame's ends, (d) two 4" tubes (114 mm,
the enclosures' size) side by side along the frame's whole length, which hold exactly 26.3 L
({1000 * ray['tubes']['volume']:.1f} L once panelled). The 20 mm profiles are left out (no panel the solve can
afford resolves them; by 2-D strip theory, 1.19 ρa² a metre of square section of side a, the
5.0-8.5 m of profiles in models/raybot's frame that cross each direction add 2.4 kg in sway
to 4.0 kg in surge).
{ray_panels[0]}-{ray_panels[-1]} panels, largest diagonal change at the last refinement {100 * ray_change:.1f} %;
rotations about each body's centre of buoyancy, where its matrix is diagonal, as eq. 3.23 is.

| term | seed 002 eq. 3.23 (Nemoh) | (a) solid box | (b) 26.3 L, one top block | (c) 26.3 L, two end blocks | (d) 26.3 L, two 4" tubes |
|---|---|---|---|---|---|
{ray_rows}
"""


def raybot_reading_text(rd, ray_cg):
    """What the four geometries say about eq. 3.23, entry by entry."""
    top, end, box, tub = rd["top_modules"], rd["end_modules"], rd["box"], rd["tubes"]
    thesis = SEED002_RAYBOT
    pct = lambda v, k: f"{100 * (v[k] / thesis[k] - 1):+.0f} %"  # noqa: E731
    inside = [DOFS[k] for k in range(6) if min(rd[v][k] for v in rd) <= thesis[k] <= max(rd[v][k] for v in rd)]
    outside = "; ".join(
        f"{DOFS[k]} lies {'below' if thesis[k] < min(rd[v][k] for v in rd) else 'above'} all four, "
        f"{100 * min(abs(rd[v][k] / thesis[k] - 1) for v in rd):.0f} % from the nearest"
        for k in range(6) if DOFS[k] not in inside)
    box_above = all(box[k] > thesis[k] for k in range(6))
    volume_only = ("top_modules", "end_modules", "tubes")
    spread = max(range(6), key=lambda k: max(rd[v][k] for v in volume_only) / min(rd[v][k] for v in volume_only))
    spread_x = max(rd[v][spread] for v in volume_only) / min(rd[v][spread] for v in volume_only)
    cg_m = ", ".join(f"{ray_cg[v][4]:.2f}" for v in volume_only)
    return f"""
The solid box lies {'above eq. 3.23 in every entry' if box_above else 'NOT above eq. 3.23 in every entry'} (surge x{box[0] / thesis[0]:.0f}, sway
x{box[1] / thesis[1]:.1f}, heave x{box[2] / thesis[2]:.1f}, roll x{box[3] / thesis[3]:.1f}, pitch x{box[4] / thesis[4]:.1f}, yaw x{box[5] / thesis[5]:.1f}): the
thesis's model is far from a closed box. Eq. 3.23 lies inside the range of the four
geometries in {", ".join(inside)}; {outside or "no entry lies outside it"}. What each entry
says about the thesis's model:

- Surge and heave: a slender body across the flow carries about its own displaced mass
  (a 2-D cylinder exactly ρV), and eq. 3.23's are 1.06 and 1.12 ρV (ρV = 26.3 kg). The
  tubes give heave {tub[2]:.1f} kg ({pct(tub, 2)}) and surge {tub[0]:.1f} kg ({pct(tub, 0)}: the fore tube
  shields the aft one); the compact blocks give less surge ({end[0]:.1f}-{top[0]:.1f} kg) and, flat as
  they are, more heave ({end[2]:.1f}-{top[2]:.1f} kg).
- Sway: 20.35 kg (0.77 ρV) needs area facing y that the 26.3 L at the top does not give
  ({tub[1]:.1f} kg as tubes, {top[1]:.1f}-{end[1]:.1f} kg as blocks); only the solid box exceeds it. The
  thesis's model must present more surface to y (the thrusters' ducts at the frame's ends,
  the enclosures' end caps, plates) than its volume suggests; the profiles add about 2.4 kg.
- Roll and yaw follow the volume's spread along y: one central block {top[3]:.2f} and
  {top[5]:.2f} kg m², blocks at the ends {end[3]:.2f} and {end[5]:.2f}, the full-length tubes {tub[3]:.2f}
  ({pct(tub, 3)} of 3.90) and {tub[5]:.2f} ({pct(tub, 5)} of 4.06).
- Pitch: every volume-only layout gives {min(top[4], end[4], tub[4]):.2f}-{max(top[4], end[4], tub[4]):.2f} kg m² about its centre of
  buoyancy against 1.48; taken about the frame's centre (0.225 m lower, where models/raybot
  applies eq. 3.23) it becomes {cg_m} (b, c, d), with surge-pitch and sway-roll couplings that
  eq. 3.23 does not have. The thesis does not say about which point its matrix is.

So a volume-only model and the solid envelope bracket eq. 3.23 in {len(inside)} of its six
entries, but no geometry that the thesis's text pins down reproduces it: the layout of the
same 26.3 L alone moves one entry by up to x{spread_x:.0f} ({DOFS[spread]}), which is the
uncertainty the lost Figure 3.2 leaves. The closest layout, the tubes, is within
{max(abs(tub[2] / thesis[2] - 1), abs(tub[3] / thesis[3] - 1)) * 100:.0f} % in heave and roll and far off in sway; models/raybot keeps the thesis's matrix.
"""


def section(r, figdir=None):
    """The report's section: the four checks' runs, then their texts in order."""
    rows, ok = closed_forms(r)
    res, heavy_rows, change = heavy(r)
    con, con_rows, con_change = connector(r)
    ray, rd, ray_cg, ray_rows, ray_change, ray_panels = raybot(r)
    return (closed_forms_text(rows, ok) + heavy_text(res, heavy_rows, change)
            + connector_text(con, con_rows, con_change)
            + raybot_text(ray, ray_rows, ray_change, ray_panels) + raybot_reading_text(rd, ray_cg))


def main():
    import argparse
    sys.path.insert(0, str(ROOT / "tools"))
    import validate
    ap = argparse.ArgumentParser()
    ap.add_argument("--nereid", default=str(ROOT / "build" / "nereid"))
    ap.add_argument("--work", default=str(ROOT / "results" / "validation_coefficients"))
    args = ap.parse_args()
    r = validate.Runner(args.nereid, args.work)
    print(section(r))
    print(json.dumps({k: v["figures"].get("coefficients.volume") for k, v in r.figures.items()}))


if __name__ == "__main__":
    main()
