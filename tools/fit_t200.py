#!/usr/bin/env python3
"""Builds Nereid's T200 thrust maps from Blue Robotics' published T200 table.

Source: Blue Robotics T200 performance data (thrust, rpm vs ESC PWM at 12 V and 16 V),
as redistributed in vortexntnu/vortex-auv
motion/thruster_interface_auv/resources/T200-Thrusters-{12,16}V.csv; a sample of its rows
is kept with the project's shared reference documents (reference/t200/T200-samples.csv,
columns voltage_v, pwm_us, rpm, force_kgf). The table itself is not copied into the
project: this script prints the map Nereid's models use.

  PWM -> shaft speed: the table's (PWM, rpm) rows with rpm signed (negative below the
  dead band), interpolated linearly by nereid.thruster (`command_map`).
  shaft speed -> thrust: T = k |n| n, with k fitted by least squares separately for
  forward and reverse rows (`thrust_coefficient`).

Usage: fit_t200.py PATH/T200-samples.csv
"""
import csv
import sys

KGF = 9.80665  # N per kgf


def main(path: str) -> None:
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows.setdefault(int(float(r["voltage_v"])), []).append(
                (float(r["pwm_us"]), float(r["rpm"]), float(r["force_kgf"]) * KGF))
    for volts in sorted(rows):
        data = sorted(rows[volts])
        signed = [(p, -n if p < 1500 and n else n, t) for p, n, t in data]
        fit = {}
        for name, keep in (("forward", lambda n: n > 0), ("reverse", lambda n: n < 0)):
            num = sum(t * abs(n) * n for _, n, t in signed if keep(n))
            den = sum((abs(n) * n) ** 2 for _, n, t in signed if keep(n))
            fit[name] = num / den
        worst = max(abs(fit["forward" if n > 0 else "reverse"] * abs(n) * n - t)
                    for _, n, t in signed if n != 0)
        print(f"{volts} V: thrust_coefficient = {fit['forward']:.5e} {fit['reverse']:.5e} N/rpm^2"
              f"  (largest residual {worst:.2f} N)")
        print(f"  command_map (pwm rpm): " + " ".join(f"{p:g} {n:g}" for p, n, _ in signed))
        print(f"  thrust range: {min(t for *_, t in signed):.2f} .. {max(t for *_, t in signed):.2f} N")


if __name__ == "__main__":
    main(sys.argv[1])
