#!/usr/bin/env python3
"""PNG plots for `nereid crosscheck` (docs/crosscheck.md): reads DIR/report.json and
DIR/{uk,weld,merged}.csv, writes DIR/drift.png, DIR/com_difference.png, DIR/wrenches.png
and DIR/cost.png. Needs matplotlib (scripts/bootstrap.sh installs it)."""
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        rows = list(csv.reader(f))
    head, data = rows[0], [[float(x) for x in r] for r in rows[1:]]
    return {h: [r[i] for r in data] for i, h in enumerate(head)}


def main(out):
    report = json.load(open(os.path.join(out, "report.json")))
    runs = {m: load(os.path.join(out, m + ".csv")) for m in ("uk", "weld", "merged")}
    names = report["connections"]
    colours = {"uk": "tab:blue", "weld": "tab:orange", "merged": "tab:green"}

    fig, ax = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for m in ("uk", "weld"):
        r = runs[m]
        if not r:
            continue
        for n in names:
            ax[0].semilogy(r["t"], [max(v, 1e-16) for v in r[n + ":pos_err_mm"]], color=colours[m], alpha=0.8, label=f"{m} {n}")
            ax[1].semilogy(r["t"], [max(v, 1e-16) for v in r[n + ":ang_err_deg"]], color=colours[m], alpha=0.8, label=f"{m} {n}")
    ax[0].set_ylabel("position drift (mm)")
    ax[1].set_ylabel("angle drift (deg)")
    ax[1].set_xlabel("t (s)")
    ax[0].legend(fontsize=7)
    ax[0].set_title("relative-pose drift per connection")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "drift.png"), dpi=110)
    plt.close(fig)

    if runs["merged"]:
        fig, ax = plt.subplots(figsize=(8, 4))
        c = runs["merged"]
        for m in ("uk", "weld"):
            r = runs[m]
            if not r:
                continue
            n = min(len(r["t"]), len(c["t"]))
            d = [math.sqrt(sum((r[k][i] - c[k][i]) ** 2 for k in ("com_x", "com_y", "com_z"))) for i in range(n)]
            ax.semilogy(r["t"][:n], [max(v, 1e-16) for v in d], color=colours[m], label=f"{m} - merged")
        ax.set_xlabel("t (s)")
        ax.set_ylabel("|centre of mass difference| (m)")
        ax.set_title("assembly centre of mass against the merged rigid body")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "com_difference.png"), dpi=110)
        plt.close(fig)

    fig, ax = plt.subplots(len(names), 2, figsize=(10, 3 * len(names)), squeeze=False)
    for k, n in enumerate(names):
        for m, style in (("uk", "-"), ("weld", "--")):
            r = runs[m]
            if not r:
                continue
            for j, c in enumerate("xyz"):
                ax[k][0].plot(r["t"], r[f"{n}:f{c}"], style, color=f"C{j}", label=f"{m} f{c}")
                ax[k][1].plot(r["t"], r[f"{n}:t{c}"], style, color=f"C{j}", label=f"{m} t{c}")
        ax[k][0].set_ylabel(f"{n}\nforce on body1 (N)")
        ax[k][1].set_ylabel("torque (N m)")
    ax[0][0].legend(fontsize=7, ncol=2)
    ax[-1][0].set_xlabel("t (s)")
    ax[-1][1].set_xlabel("t (s)")
    fig.suptitle("constraint wrenches: UK (solid) vs MuJoCo weld (dashed)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "wrenches.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(5, 3.5))
    methods = [m for m in ("uk", "weld", "merged") if report["methods"].get(m, {}).get("ran")]
    ax.bar(methods, [report["methods"][m]["ns_per_step"] / 1e3 for m in methods],
           color=[colours[m] for m in methods])
    ax.set_ylabel("cost per step (us)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "cost.png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: crosscheck_plots.py DIR")
    main(sys.argv[1])
