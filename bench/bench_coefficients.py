#!/usr/bin/env python3
"""Wall time and peak memory of `nereid coefficients`' boundary-element solve (the six
radiation problems at infinite frequency) per refinement: a sphere meshed with about 250,
500, 1000, 2000 and 4000 panels, each level in its own process so its peak resident
memory is its own.

Usage: bench_coefficients.py [--out FILE.json] [--panels 250,500,1000,2000,4000]
"""
import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))

CHILD = """
import sys, time, json, resource
sys.path.insert(0, {tools!r})
import coefficients as co
import capytaine  # imported before the clock starts
V, F = co.ellipsoid_mesh(0.5, 0.5, 0.5, {n})
t = time.perf_counter()
A = co.solve_added_mass(V, F, 1000.0, [0, 0, 0])
dt = time.perf_counter() - t
print(json.dumps({{"panels": len(F), "solve_s": dt, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "surge_over_half_rho_v": A[0, 0] / (0.5 * 1000 * 4 / 3 * 3.141592653589793 * 0.125)}}))
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="bench_coefficients.json")
    p.add_argument("--panels", default="250,500,1000,2000,4000")
    args = p.parse_args()
    rows = []
    for target in (int(x) for x in args.panels.split(",")):
        n = max(3, round(math.sqrt(target / 6)))
        out = subprocess.run([sys.executable, "-c", CHILD.format(tools=os.path.join(ROOT, "tools"), n=n)],
                             capture_output=True, text=True, check=True)
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(f"{row['panels']:5d} panels: {row['solve_s']:6.2f} s, peak {row['peak_rss_mb']:.0f} MB", flush=True)
    import capytaine
    import numpy
    report = {"benchmark": "nereid coefficients: six radiation problems, infinite frequency, unbounded fluid",
              "solver": f"Capytaine {capytaine.__version__}, direct BIE", "numpy": numpy.__version__,
              "cpu_count": os.cpu_count(), "machine": platform.machine(), "load_average": os.getloadavg(),
              "date": time.strftime("%Y-%m-%d %H:%M:%S"), "levels": rows}
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)
    print("wrote", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
