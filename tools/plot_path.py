#!/usr/bin/env python3
"""Plots a path-following run (`nereid run` with a scenario controller) in the y-z plane.

Usage: plot_path.py RUN_DIR BODY OUT.png   (needs matplotlib: pip install matplotlib)
"""
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(run_dir: str, body: str, out: str) -> None:
    rows = list(csv.DictReader(open(os.path.join(run_dir, "trajectory.csv"))))
    path = list(csv.DictReader(open(os.path.join(run_dir, "path.csv"))))
    tracking = json.load(open(os.path.join(run_dir, "summary.json")))["tracking"]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.plot([float(p["y"]) for p in path], [float(p["z"]) for p in path], "g.", ms=3,
            label="path points")
    ax.plot([float(r[f"{body}.py"]) for r in rows], [float(r[f"{body}.pz"]) for r in rows], "b-",
            lw=1, label=f"{body} (cascaded PID)")
    ax.set_xlabel("y [m] (along the wall)")
    ax.set_ylabel("z [m] (up; surface at 0)")
    ax.set_aspect("equal")
    ax.set_title(f"completed in {tracking['completion_time_s']:.1f} s; MSE position "
                 f"{tracking['mse_position_m2']:.2e} m²", fontsize=9)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=90)


if __name__ == "__main__":
    main(*sys.argv[1:4])
