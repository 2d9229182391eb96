#!/usr/bin/env python3
"""`nereid validate --quick`'s comparison (tools/validate.py) fails when a figure moves.

Runs the comparison on a stand-in runner whose runs write a fixed summary.json, against a
reference that agrees, one whose figure moved by 1e-5 (relative), one missing a figure and
one whose run cannot be repeated; and checks which numbers count as figures.
"""
import json
import math
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import validate  # noqa: E402

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


# which numbers are figures: wall-clock keys left out, booleans as 0/1, long series skipped
figures = validate.numeric_figures({
    "tracking": {"mse_position_m2": 1.5e-4, "completed": True, "completion_time_s": 102.5},
    "controller": {"solve_time_median_s": 0.02, "plans": 220},
    "realtime_factor": 7.7, "methods": {"uk": {"ns_per_step": 2e4, "first_peak_s": 1.25}},
    "series": list(range(validate.MAX_FIGURE_LIST + 1)), "short": [1.0, 2.0], "name": "text"})
check(figures == {"tracking.mse_position_m2": 1.5e-4, "tracking.completed": 1.0,
                  "tracking.completion_time_s": 102.5, "controller.plans": 220.0,
                  "methods.uk.first_peak_s": 1.25, "short[0]": 1.0, "short[1]": 2.0},
      f"numeric_figures: {figures}")
# the tolerance: 1e-6 relative
check(not validate.figure_moved(1.0 + 1e-9, 1.0), "1e-9 relative counted as moved")
check(validate.figure_moved(1.0 + 1e-5, 1.0), "1e-5 relative not counted as moved")
check(validate.figure_moved(0.0, 1e-9), "a figure leaving zero not counted as moved")
check(not validate.figure_moved(math.nan, math.nan), "NaN against NaN counted as moved")
check(validate.figure_moved(1.0, math.nan), "a number against NaN not counted as moved")


class StandIn(validate.Runner):
    """Writes summary.json with mse = 2.5e-4 instead of running nereid."""

    def run(self, name, *args):
        out = self.work / name
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps({"tracking": {"mse_position_m2": 2.5e-4},
                                                      "solve_time_median_s": 0.1}))
        self.figures[name] = self.record(args, out, 0.0)
        return out


def quick(reference_figures, replayable=True):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        validate.QUICK_RUNS[:] = ["one"]
        ref = {"runs": {"one": {"command": ["run", "{scenario}"], "scenario": {"model": "{root}/models/x.xml"},
                                "replayable": replayable, "figures": reference_figures}}}
        (tmp / "ref.json").write_text(json.dumps(ref))
        r = StandIn("nereid", tmp / "work")
        (tmp / "fig").mkdir()
        moved = validate.quick(r, tmp / "ref.json", tmp / "fig")
        if replayable:
            written = json.loads((tmp / "work" / "one.json").read_text())
            check(written["model"] == f"{validate.ROOT}/models/x.xml", f"{{root}} not replaced: {written}")
        return moved


check(quick({"summary.tracking.mse_position_m2": 2.5e-4}) == 0, "an equal figure counted as moved")
check(quick({"summary.tracking.mse_position_m2": 2.5e-4 * (1 + 1e-5)}) == 1, "a moved figure passed")
check(quick({"summary.tracking.mse_position_m2": 2.5e-4, "summary.tracking.completed": 1.0}) == 1,
      "a figure missing from the run passed")
check(quick({"summary.tracking.mse_position_m2": 2.5e-4}, replayable=False) == 1,
      "a run that cannot be repeated passed")

if failures:
    sys.exit("\n".join(failures))
print("quick validation's comparison: every check passed")
