#!/usr/bin/env python3
"""Runs `nereid validate` into a scratch folder and checks the report it writes.

    check_report.py NEREID OUT_DIR

The report must have a section for every seed case, every plot it links must exist and be
a non-empty PNG, and no figure may be NaN or infinite. The physics in the report is tested
elsewhere (tests/vms, tests/uk, ...); this test keeps the one command that regenerates
docs/validation.md working.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

nereid, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
shutil.rmtree(out, ignore_errors=True)
env = dict(os.environ, PYTHON=sys.executable)
done = subprocess.run([str(nereid), "validate", "--out", str(out / "docs"), "--work", str(out / "work")],
                      env=env, capture_output=True, text=True)
if done.returncode != 0:
    sys.exit(f"nereid validate failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")

report = (out / "docs" / "validation.md").read_text()
failures = []
for heading in ["## Seed 001", "### Case A", "### Case B", "## Seed 000", "### Seed 000: which BG", "### Seed 000: the pair trials", "## Seed 002", "### Table 6.1", "### Table 6.2", "## Seed 003",
                "### 6.4", "### 6.5", "### 6.6", "## Seed 004", "## Commands run"]:
    if not re.search(r"^" + re.escape(heading), report, re.M):
        failures.append(f"no section '{heading}'")
images = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", report)
if len(images) < 10:
    failures.append(f"only {len(images)} plots linked")
for image in images:
    path = out / "docs" / image
    if not path.is_file() or path.stat().st_size < 10000 or path.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
        failures.append(f"plot {image} missing or not a PNG")
for bad in re.findall(r"\b(?:nan|inf)\b", report, re.I):
    failures.append(f"non-finite figure '{bad}' in the report")
# seed 000's trials: the autopilots keep every run upright, and UK and MuJoCo's weld agree
trials = json.loads((out / "docs" / "validation" / "seed000_trials.json").read_text())
for name, trial in trials.items():
    for variant, pitch in trial["max_pitch_deg"].items():
        if not pitch < 10:
            failures.append(f"seed 000 {name} ({variant}): pitch reached {pitch:.1f} deg")
    uk = trial["uk_vs_weld"]
    if not uk["dtw_speed_mps"] < 1e-3:
        failures.append(f"seed 000 {name}: UK and weld differ by {uk['dtw_speed_mps']} m/s (DTW)")
if "nereid validate" not in report:
    failures.append("the report does not name the command that regenerates it")
if failures:
    sys.exit("\n".join(failures))
print(f"validation.md: {len(report.splitlines())} lines, {len(images)} plots")
