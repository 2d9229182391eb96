#!/usr/bin/env python3
"""Plots a tethered run: tether shape snapshots (x-z plane) and the tension history.

Usage: plot_tether.py REPORT_DIR OUT_PREFIX   (needs matplotlib: pip install matplotlib)

REPORT_DIR holds tether_shape.csv and tether_tension.csv written by
`build/tests/tether/nereid_tether_report SCENARIO.json REPORT_DIR`. Writes
OUT_PREFIX_shape.png and OUT_PREFIX_tension.png.
"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(report_dir: str, prefix: str) -> None:
    shape = defaultdict(list)
    for r in csv.DictReader(open(os.path.join(report_dir, "tether_shape.csv"))):
        shape[float(r["time"])].append((float(r["x"]), float(r["z"]), float(r["tension"])))
    rows = list(csv.DictReader(open(os.path.join(report_dir, "tether_tension.csv"))))

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    cmap = plt.get_cmap("viridis")
    times = sorted(shape)
    for i, t in enumerate(times):
        xs, zs, _ = zip(*shape[t])
        ax.plot(xs, zs, "-", color=cmap(i / max(1, len(times) - 1)), lw=1.2, label=f"t = {t:g} s")
        ax.plot(xs[-1], zs[-1], "ks", ms=4)
    ax.plot(0, 0, "r^", ms=8, label="surface anchor")
    ax.axhline(0, color="0.6", lw=0.8)
    ax.set_xlabel("x [m] (downstream, current 0.5 m/s)")
    ax.set_ylabel("z [m] (up; surface at 0)")
    ax.set_aspect("equal")
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title("tether shape (50 segments); vehicle holding station (squares)", fontsize=9)
    fig.tight_layout()
    fig.savefig(prefix + "_shape.png", dpi=110)

    t = [float(r["time"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    ax.plot(t, [float(r["tension_vehicle"]) for r in rows], "b-", lw=1.2, label="tension at the vehicle")
    ax.plot(t, [float(r["tension_anchor"]) for r in rows], "g--", lw=1.0, label="tension at the anchor")
    ax.plot(t, [float(r["vehicle_fx"]) for r in rows], "r:", lw=1.0, label="force on vehicle, x (downstream)")
    ax.plot(t, [float(r["vehicle_fz"]) for r in rows], "m:", lw=1.0, label="force on vehicle, z (up)")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("N")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    final = rows[-1]
    ax.set_title(f"final tension at the vehicle {float(final['tension_vehicle']):.2f} N", fontsize=9)
    fig.tight_layout()
    fig.savefig(prefix + "_tension.png", dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
