"""End-to-end tests of the `nereid` command line: run, A/B engines, bad input, bench.

Usage: cli_test.py NEREID_BINARY SOURCE_DIR WORK_DIR. Prints 'N passed, M failed'.
"""
import csv
import json
import math
import os
import subprocess
import sys

nereid, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
results = []


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"))


def run(*args, cwd=None):
    return subprocess.run([nereid, *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [[float(x) for x in r] for r in rows[1:]]


# info names every thruster in full (long names were cut to their last 8 characters)
p = run("info", os.path.join(source, "models", "multi", "bluerov_pair_thrusters.xml"))
check("info lists the thrusters by their full names", p.returncode == 0 and "rov_left_thr1" in p.stdout
      and "rov_right_thr6" in p.stdout, p.stdout[-600:] + p.stderr)

# the default scenario, headless, writes both outputs
out = os.path.join(work, "default")
p = run("run", os.path.join(source, "scenarios", "default.json"), "--out", out)
check("run default scenario exits 0", p.returncode == 0, p.stderr)
header, rows = read_csv(os.path.join(out, "trajectory.csv"))
expected = ["time"] + [f"heavy.{c}" for c in
                       "px py pz qw qx qy qz vx vy vz wx wy wz".split()]
check("trajectory columns", header == expected, header)
check("trajectory covers the duration", abs(rows[-1][0] - 30.0) < 1e-6 and len(rows) == 6001,
      (rows[-1][0], len(rows)))
check("trajectory is finite", all(math.isfinite(x) for r in rows for x in r))
summary = json.load(open(os.path.join(out, "summary.json")))
for key in ("model", "mujoco_version", "steps", "wall_time_s", "final_state", "energy"):
    check(f"summary has {key}", key in summary, list(summary))
check("summary mujoco version is the pin", summary["mujoco_version"] == "3.14.0",
      summary["mujoco_version"])
check("summary steps", summary["steps"] == 6000, summary["steps"])
final = summary["final_state"]["bodies"]["heavy"]["position"]
check("final state equals the last trajectory row",
      max(abs(a - b) for a, b in zip(final, rows[-1][1:4])) < 1e-12, (final, rows[-1][1:4]))
# the cross current (0.2 m/s along world y) carries the vehicle
check("the current carries the vehicle", final[1] > 3.0, final)

# objects without a name are labelled by kind and number in every output (they were
# "joint<N>" for a sensor, and the viewer's report failed on a nameless vehicle)
unnamed = os.path.join(source, "tests", "data", "nameless.xml")
p = run("run", unnamed, "--duration", "0.01", "--out", os.path.join(work, "unnamed"))
header = read_csv(os.path.join(work, "unnamed", "trajectory.csv"))[0] if p.returncode == 0 else []
unnamed_summary = json.load(open(os.path.join(work, "unnamed", "summary.json"))) if p.returncode == 0 else {}
check("nameless body, joint and sensor: body1.*, joint1.*, sensor0.* columns",
      header == ["time"] + [f"body1.{c}" for c in "px py pz qw qx qy qz vx vy vz wx wy wz".split()] +
      ["joint1.q", "joint1.qd", "sensor0.pressure", "sensor0.depth"] and
      sorted(unnamed_summary["final_state"]["bodies"]) == ["body1"] and
      sorted(unnamed_summary["final_state"]["joints"]) == ["joint1"], (p.stderr, header))
# beside a body named body1 the nameless body 1 is body1_: no column or summary entry shared
twin = os.path.join(source, "tests", "data", "nameless_twin.xml")
p = run("run", twin, "--duration", "0.01", "--out", os.path.join(work, "twin"))
header = read_csv(os.path.join(work, "twin", "trajectory.csv"))[0] if p.returncode == 0 else []
twin_summary = json.load(open(os.path.join(work, "twin", "summary.json"))) if p.returncode == 0 else {}
check("a nameless body beside one named like it: body1_.* and body1.*, no column twice",
      "body1_.px" in header and "body1.px" in header and len(header) == len(set(header)) and
      sorted(twin_summary["final_state"]["bodies"]) == ["body1", "body1_"], (p.stderr, header))
p = run("info", unnamed)
check("info names a nameless vehicle as the outputs do", p.returncode == 0 and
      "vehicle body 'body1': mass" in p.stdout, p.stdout + p.stderr)

# --exact-sensors: the readings of a run with NEREID_EXACT_SENSORS=1, byte for byte, not the noisy ones
sensors = os.path.join(source, "models", "bluerov2_heavy", "bluerov2_heavy_sensors.xml")
texts = {}
for label, flags, env in (("noisy", [], {}), ("flag", ["--exact-sensors"], {}),
                          ("environment", [], {"NEREID_EXACT_SENSORS": "1"})):
    out_dir = os.path.join(work, "exact_" + label)
    p = subprocess.run([nereid, "run", sensors, "--duration", "0.5", "--out", out_dir, *flags],
                       capture_output=True, text=True, timeout=600, env={**os.environ, **env})
    texts[label] = open(os.path.join(out_dir, "trajectory.csv")).read() if p.returncode == 0 else p.stderr
    if label == "flag":
        flag_summary = json.load(open(os.path.join(out_dir, "summary.json"))) if p.returncode == 0 else {}
check("--exact-sensors reads as NEREID_EXACT_SENSORS=1, not as the noisy run; summary.json says so",
      texts["flag"] == texts["environment"] and texts["flag"] != texts["noisy"] and
      flag_summary.get("exact_sensors") is True, texts["flag"][:300])

# a model file, from keyframe 0, with both engines: they differ (added mass) but both run
xml = os.path.join(source, "models", "bluerov", "bluerov.xml")
for engine in ("nereid", "mujoco"):
    p = run("run", xml, "--duration", "2", "--engine", engine, "--integrator", "rk4",
            "--out", os.path.join(work, engine))
    check(f"run model with --engine {engine}", p.returncode == 0, p.stderr)
_, a = read_csv(os.path.join(work, "nereid", "trajectory.csv"))
_, b = read_csv(os.path.join(work, "mujoco", "trajectory.csv"))
check("starts from keyframe 0 (z = -2)", abs(a[0][3] + 2.0) < 1e-12, a[0][3])
check("engines differ with added mass", max(abs(x - y) for x, y in zip(a[-1], b[-1])) > 1e-6)

# bad input: exit status 1, message naming file, path and value
bad = os.path.join(work, "bad.json")
with open(bad, "w") as f:
    json.dump({"model": xml, "wrenches": [{"body": "rov", "force": [1, "x", 0]}]}, f)
p = run("run", bad, "--out", os.path.join(work, "bad"))
check("bad scenario exits 1", p.returncode == 1, p.returncode)
check("bad scenario message", f"{bad}: /wrenches/0/force/1: expected a number (got \"x\")"
      in p.stderr, p.stderr)
p = run("run", os.path.join(work, "missing.xml"))
check("missing model exits 1 and names it", p.returncode == 1 and "missing.xml" in p.stderr,
      p.stderr)
p = run("run", xml, "--integrator", "verlet")
check("unknown integrator is a usage error", p.returncode == 2 and "verlet" in p.stderr,
      p.stderr)
p = run("run", xml, "--constraints", "rigid")
check("unknown constraint method is a usage error", p.returncode == 2 and "'rigid'" in p.stderr,
      p.stderr)

# every cross-check scenario also runs as a scenario
for name in sorted(os.listdir(os.path.join(source, "scenarios", "crosscheck"))):
    p = run("run", os.path.join(source, "scenarios", "crosscheck", name), "--duration", "0.05",
            "--out", os.path.join(work, "cc_" + name))
    check(f"nereid run {name} (a cross-check scenario)", p.returncode == 0, p.stderr)

# seed 000's rotational trial with UK connections and the autopilots: the summary says who
# enforced the welds, and stabilize.csv has the holds' angles and commands
p = run("run", os.path.join(source, "scenarios", "seed000", "pair_rotational.json"), "--constraints", "uk",
        "--duration", "4", "--out", os.path.join(work, "s000"))
check("seed 000 trial runs with --constraints uk", p.returncode == 0, p.stderr)
if p.returncode == 0:
    s = json.load(open(os.path.join(work, "s000", "summary.json")))
    check("summary names the constraint method", s.get("constraints") == "uk", s.get("constraints"))
    holds = [h["body"] for h in s.get("stabilize", {}).get("holds", [])]
    check("summary lists both holds", holds == ["rov_left", "rov_right"], holds)
    header, rows = read_csv(os.path.join(work, "s000", "stabilize.csv"))
    check("stabilize.csv has the holds' pitch and vertical thruster commands",
          "rov_left.pitch" in header and "ctrl.rov_right_thr5" in header and len(rows) > 100, header[:6])

# a diverging run: exit status 3, the error in the summary, the last finite state kept
boom = os.path.join(work, "boom.json")
with open(boom, "w") as f:
    json.dump({"model": xml, "duration": 2,
               "wrenches": [{"body": "rov", "start": 0.5, "force": [0, 0, 1e13]}]}, f)
quiet = os.path.join(work, "cwd_boom")  # MuJoCo would append to MUJOCO_LOG.TXT here
os.makedirs(quiet, exist_ok=True)
p = run("run", boom, "--out", os.path.join(work, "boom"), cwd=quiet)
check("diverging run exits 3", p.returncode == 3, (p.returncode, p.stderr))
check("a diverged run's error is on stderr, not stdout",
      "error: " in p.stderr and "diverged" in p.stderr and "error:" not in p.stdout, (p.stdout[-300:], p.stderr[-300:]))
s = json.load(open(os.path.join(work, "boom", "summary.json")))
check("summary says diverged", s["status"] == "diverged" and "qacc" in s["error"], s["error"])
check("MuJoCo's divergence warning is in the summary, not in MUJOCO_LOG.TXT or on stdout",
      s["mujoco_warnings"]["count"] >= 1 and "QACC" in s["mujoco_warnings"]["messages"][0]
      and not os.path.exists(os.path.join(quiet, "MUJOCO_LOG.TXT"))
      and "WARNING" not in p.stdout, (s["mujoco_warnings"], os.listdir(quiet), p.stdout[-300:]))
t = s["final_state"]["time"]
check("summary keeps the last finite state", 0.49 < t < 0.51 and
      all(math.isfinite(x) for x in s["final_state"]["bodies"]["rov"]["position"]), t)

# MuJoCo's fatal errors (mju_error) become Nereid errors: a stack arena too small for the
# contacts made at t = 0.41 s (a box landing on a plane), and one too small for the first
# forward pass (the box starts in contact)
small = os.path.join(work, "small_memory.xml")
with open(small, "w") as f:
    f.write('<mujoco><size memory="8K"/><worldbody><geom type="plane" size="1 1 .1"/>'
            '<body name="box" pos="0 0 1"><freejoint/><geom type="box" size=".1 .1 .1"/>'
            '</body></worldbody></mujoco>')
quiet = os.path.join(work, "cwd_small")
os.makedirs(quiet, exist_ok=True)
p = run("run", small, "--duration", "1", "--out", os.path.join(work, "small"), cwd=quiet)
s = json.load(open(os.path.join(work, "small", "summary.json")))
check("a MuJoCo error mid-run exits 1 with the outputs written up to the last good step",
      p.returncode == 1 and s["status"] == "mujoco_error" and "mj_stackAlloc" in s["error"]
      and "small_memory.xml" in s["error"] and 0.40 < s["final_state"]["time"] < 0.42
      and not os.path.exists(os.path.join(quiet, "MUJOCO_LOG.TXT")),
      (p.returncode, p.stderr[-400:], s["status"], s["final_state"]["time"], os.listdir(quiet)))
with open(small, "w") as f:
    f.write('<mujoco><size memory="8K"/><worldbody><geom type="plane" size="1 1 .1"/>'
            '<body name="box" pos="0 0 .05"><freejoint/><geom type="box" size=".1 .1 .1"/>'
            '</body></worldbody></mujoco>')
p = run("run", small, "--duration", "1", "--out", os.path.join(work, "small1k"), cwd=quiet)
check("a MuJoCo error at load exits 1 naming the model and MuJoCo's reason",
      p.returncode == 1 and "small_memory.xml: MuJoCo error in forward dynamics" in p.stderr
      and "mj_stackAlloc" in p.stderr
      and not os.path.exists(os.path.join(quiet, "MUJOCO_LOG.TXT")), (p.returncode, p.stderr[-400:]))

# inputs the fuzz harness (tools/fuzz) found ending or hanging a run, now refused
pct = os.path.join(work, "percent.xml")
with open(pct, "w") as f:
    f.write('<mujoco><!-- 100 % fine in a comment --><worldbody><body name="b"><freejoint/>'
            '<geom class="%s%n%x" size=".1"/></body></worldbody></mujoco>')
p = run("run", pct, "--out", os.path.join(work, "percent"))
check("a '%' outside a comment in MJCF is refused (MuJoCo's parser formats it)",
      p.returncode == 1 and "percent.xml: line 1: '%' outside a comment is refused" in p.stderr,
      (p.returncode, p.stderr[-300:]))
# the XML parser decodes character references into '%' after a raw-text check would look:
# every spelling is refused, in the model and in an included file, by run and by info
for n, spelling in enumerate(["&#37;", "&#x25;", "&#X25;", "&#0037;", "&#x00025;"]):
    body = ('<body name="b"><freejoint/><geom class="a' + spelling + 'n' + spelling + 'n' + spelling
            + 's" size=".1"/></body>')
    ref = os.path.join(work, f"charref{n}.xml")
    with open(ref, "w") as f:
        f.write("<mujoco><worldbody>" + body + "</worldbody></mujoco>")
    inc = os.path.join(work, f"charref_inc{n}.xml")
    with open(inc, "w") as f:
        f.write("<mujocoinclude>" + body + "</mujocoinclude>")
    top = os.path.join(work, f"charref_top{n}.xml")
    with open(top, "w") as f:
        f.write(f'<mujoco>\n<worldbody>\n<include file="charref_inc{n}.xml"/>\n</worldbody></mujoco>')
    for label, args, where in (("run", ("run", ref, "--out", os.path.join(work, "charref")), f"charref{n}.xml: line 1"),
                               ("info", ("info", ref), f"charref{n}.xml: line 1"),
                               ("run, included", ("run", top, "--out", os.path.join(work, "charref")),
                                f"charref_inc{n}.xml: line 1")):
        p = run(*args)
        check(f"{label}: the character reference {spelling} for '%' is refused, naming file and line",
              p.returncode == 1 and where in p.stderr and f"'{spelling}' (a character reference for '%')" in p.stderr,
              (p.returncode, p.stderr[-300:]))
# a NUL in MJCF, a byte or a character reference (&#0;, &#x0;, &#000;): XML allows none, and
# MuJoCo's parser cut the value there: <include file="MODEL&#0;.bak"/> loaded MODEL
for n, (spelling, shown) in enumerate([("&#0;", "'&#0;' (a character reference for NUL)"),
                                       ("&#x0;", "'&#x0;' (a character reference for NUL)"),
                                       ("&#000;", "'&#000;' (a character reference for NUL)"),
                                       ("\0", "a NUL byte")]):
    nul = os.path.join(work, f"nul{n}.xml")
    with open(nul, "w") as f:
        f.write(f'<mujoco>\n<!-- {spelling} in a comment is fine -->\n<include file="{xml}{spelling}.bak"/>\n</mujoco>')
    for args in (("run", nul, "--out", os.path.join(work, "nul")), ("info", nul)):
        p = run(*args)
        check(f"{args[0]}: {shown} in an <include> path is refused, naming file and line",
              p.returncode == 1 and f"nul{n}.xml: line 3: {shown} is refused" in p.stderr and "wrote" not in p.stdout,
              (p.returncode, p.stdout[-200:], p.stderr[-300:]))
p = run("run", "/" + "a" * 2000 + ".xml", "--out", os.path.join(work, "longpath"))
check("a model path over 1024 characters is refused with the limit, the echo cut",
      p.returncode == 1 and "at most 1024" in p.stderr and len(p.stderr) < 400, (p.returncode, len(p.stderr)))
far = os.path.join(work, "far.json")
with open(far, "w") as f:
    json.dump({"model": xml, "duration": 0.1,
               "initial_state": {"bodies": {"rov": {"position": [1e9, 0, -2]}}}}, f)
p = run("run", far, "--out", os.path.join(work, "far"))
check("an initial position beyond +-1e5 m is refused with the limit",
      p.returncode == 1 and "/initial_state/bodies/rov/position: coordinates must be within +-1e5 m" in p.stderr,
      (p.returncode, p.stderr[-300:]))
spec = json.load(open(os.path.join(source, "scenarios", "vms", "rov_two_link_held.json")))
spec["model"] = os.path.join(source, "models", "rov_two_link", "rov_two_link_held.xml")
spec["controller"]["monitor"] = ["rov"] * 65
many = os.path.join(work, "many.json")
json.dump(spec, open(many, "w"))
p = run("run", many, "--out", os.path.join(work, "many"))
check("a vms list over 64 entries is refused with the limit",
      p.returncode == 1 and "/controller/monitor: 65 body names; at most 64" in p.stderr, (p.returncode, p.stderr[-300:]))

# the benchmark runs and writes its JSON (its figures are not judged here)
bench = os.path.join(work, "bench.json")
p = run("bench", "--steps", "50", "--samples", "3", "--rl-steps", "2000", "--out", bench)
check("bench exits 0", p.returncode == 0, p.stderr)
report = json.load(open(bench))
names = [c["name"] for c in report["cases"]]
check("bench cases", "bluerov2_heavy/bare_mj_step" in names and
      "bluerov2_heavy/nereid_full" in names, names)
check("bench figures are positive", all(c["ns_per_step"] > 0 or c.get("load_s", 0) > 0 for c in report["cases"]))
loads = {c["name"]: c["load_s"] for c in report["cases"] if "load_s" in c}
check("bench times the tether's load at 50, 200 and 1000 segments",
      {"tether_load/maximal/50", "tether_load/maximal/200", "tether_load/maximal/1000",
       "tether_load/reduced/50", "tether_load/reduced/200"} <= set(loads) and
      report["tether"]["load_s"]["maximal/1000"] == loads["tether_load/maximal/1000"], str(loads))
# --only sensors: the sensor suite beside its references, nothing else; the ratio and the
# paired samples in the JSON
only = os.path.join(work, "bench_sensors.json")
p_only = run("bench", "--steps", "20", "--samples", "3", "--only", "sensors", "--out", only)
only_report = json.load(open(only))
check("bench --only sensors", p_only.returncode == 0 and
      sorted(c["name"] for c in only_report["cases"]) ==
      ["bluerov2_heavy/nereid_full", "bluerov2_heavy/nereid_full_sensors", "bluerov2_heavy/stock_mj_step_plugins",
       "bluerov2_heavy/stock_mj_step_sensors"] and
      only_report["ratios"]["nereid_full_sensors/nereid_full"] > 0 and
      sorted(only_report["ratios"]) == ["nereid_full_sensors/nereid_full",
                                        "stock_mj_step_sensors/stock_mj_step_plugins"] and
      only_report["sensor_suite_paired"]["samples"] == 3 and "paired samples" in p_only.stdout,
      p_only.stdout + p_only.stderr)
# the cost ratios in paired blocks: 2 x samples rounds of steps/block pairs each, the
# block clamped to the sample's steps; the quartiles ordered
def paired_blocks(rep):
    return {(b["numerator"].split("/")[1], b["denominator"].split("/")[1]): b for b in rep.get("paired_blocks", [])
            if b["numerator"].startswith("bluerov2_heavy/")}


def ordered(b):
    return b["min"] <= b["q1"] <= b["median"] <= b["q3"] <= b["max"]


blocks = paired_blocks(report)
check("bench measures the four cost ratios in paired blocks",
      set(blocks) == {("nereid_no_thrusters", "bare_mj_step"), ("nereid_full", "nereid_no_thrusters"),
                      ("nereid_full_sensors", "nereid_full"), ("nereid_full_waves64", "nereid_full")} and
      all(b["block_steps"] == 50 and b["pairs"] == 6 and ordered(b) and b["median"] > 0 for b in blocks.values()),
      str(blocks))
only_blocks = os.path.join(work, "bench_blocks.json")
p_blocks = run("bench", "--steps", "20", "--samples", "3", "--block-steps", "10", "--only", "sensors",
               "--out", only_blocks)
b = paired_blocks(json.load(open(only_blocks))).get(("nereid_full_sensors", "nereid_full"), {})
check("bench --block-steps", p_blocks.returncode == 0 and b.get("block_steps") == 10 and b.get("pairs") == 12 and
      ordered(b) and "paired blocks of 10 steps" in p_blocks.stdout, p_blocks.stdout + p_blocks.stderr + str(b))
p_bad = run("bench", "--block-steps", "0", "--only", "sensors")
check("bench --block-steps 0 is refused", p_bad.returncode != 0 and "--block-steps" in p_bad.stderr,
      p_bad.stdout + p_bad.stderr)
# the sea's cost: the waves' and the calm runs' samples paired
waves = report["waves"]
check("bench pairs the sea's samples with the calm ones",
      waves["samples"] == len(next(c for c in report["cases"] if c["name"] == "bluerov2_heavy/nereid_full_waves64")["runs"])
      and waves["samples"] > 0 and waves["min"] <= waves["paired_median"] <= waves["max"], str(waves))
# --only waves: the sea beside its calm reference
only_waves = os.path.join(work, "bench_waves.json")
p_waves = run("bench", "--steps", "20", "--samples", "3", "--only", "waves", "--out", only_waves)
waves_report = json.load(open(only_waves))
check("bench --only waves", p_waves.returncode == 0 and
      sorted(c["name"] for c in waves_report["cases"]) ==
      ["bluerov2_heavy/nereid_full", "bluerov2_heavy/nereid_full_waves64"] and
      waves_report["waves"]["samples"] == 3 and "nereid_full_waves64 / nereid_full" in p_waves.stdout,
      p_waves.stdout + p_waves.stderr)
rl_cases = [c for c in report["cases"] if c["name"].startswith(("rl/", "rollout/"))]
# batch 1, 16, 256 at 1 and 2 threads, batch 256's sensor observations and its two bounds at
# 1 and 2 threads, the rollout at 1 and 2 threads
check("bench repeats the RL and rollout cases and reports their spread",
      len(rl_cases) == 14 and all(len(c["runs"]) == 5 and c["ns_per_step_min"] <= c["ns_per_step"] <= c["ns_per_step_max"]
                                 for c in rl_cases) and
      all(c["env_steps_per_s_min"] <= c["env_steps_per_s"] <= c["env_steps_per_s_max"]
          for c in rl_cases if c["name"].startswith("rl/")) and
      "env-steps/s (" in p.stdout and "over 5 runs) (target >= 0.95)" in p.stdout, p.stdout)
# the batch 256 against its same-envs bound slice by slice, and its sensor observations
# against its state observations: 8 slices x 5 runs per thread count
rl_pairs = {b["numerator"]: b for b in report["paired_blocks"] if b["numerator"].startswith("rl/")}
b256 = "rl/BlueROV2StationKeeping-v0/batch256/threads"
check("bench pairs the RL batch's slices with its physics bound, and sensors with state",
      sorted(rl_pairs) == [b256 + "1", b256 + "1/sensors", b256 + "2", b256 + "2/sensors"] and
      all(b["denominator"] == (n[:-len("/sensors")] if n.endswith("/sensors") else n + "/physics_same_envs") and
          b["pairs"] == 40 and ordered(b) and b["median"] > 0 for n, b in rl_pairs.items()) and
      "paired slices of" in p.stdout and "2 threads, paired slices of" in p.stdout, str(rl_pairs) + p.stdout)
# --only rl: the RL and rollout cases alone, and no ratio of a case that did not run
only_rl = os.path.join(work, "bench_rl.json")
p_rl = run("bench", "--only", "rl", "--rl-steps", "2000", "--out", only_rl)
rl_report = json.load(open(only_rl))
check("bench --only rl", p_rl.returncode == 0 and rl_report["cases"] and rl_report["ratios"] == {} and
      all(c["name"].startswith(("rl/", "rollout/")) for c in rl_report["cases"]) and
      "paired slices of" in p_rl.stdout and "ratio " not in p_rl.stdout and "0.000" not in p_rl.stdout,
      p_rl.stdout + p_rl.stderr)
check("bench --only sensors prints only the sensor suite's ratios",
      "ratio nereid_no_thrusters" not in p_only.stdout and "0.000" not in p_only.stdout and
      "ratio stock_mj_step_sensors / stock_mj_step_plugins" in p_only.stdout, p_only.stdout)
p_rl_bad = run("bench", "--only", "rl", "--no-rl")
check("bench --only rl --no-rl is refused", p_rl_bad.returncode != 0 and "--only rl" in p_rl_bad.stderr,
      p_rl_bad.stdout + p_rl_bad.stderr)
check("bench prints the ratios", "ratio nereid_no_thrusters / bare_mj_step" in p.stdout and
      "ratio nereid_full / nereid_no_thrusters" in p.stdout, p.stdout)

# hostile JSON: 100,000 levels of nesting, a number beyond double's range, a document that
# is not an object; each is exit 1 naming the file, never a crash
bad = os.path.join(work, "deep.json")
with open(bad, "w") as f:
    f.write('{"model": "x.xml", "description": ' + "[" * 100000 + "]" * 100000 + "}")
p = run("run", bad)
check("deeply nested JSON is refused with the limit", p.returncode == 1 and "deep.json" in p.stderr and
      "nested deeper than 64" in p.stderr and len(p.stderr) < 500, p.stderr[:300])
p = run("crosscheck", bad)
check("crosscheck: deeply nested JSON is refused", p.returncode == 1 and "nested deeper than 64" in p.stderr,
      p.stderr[:300])
bad = os.path.join(work, "huge.json")
with open(bad, "w") as f:
    f.write('{"model": "x.xml", "duration": 1e400}')
p = run("run", bad)
check("a number out of range names the file and the number", p.returncode == 1 and "huge.json" in p.stderr and
      "1e400" in p.stderr, p.stderr)
bad = os.path.join(work, "array.json")
with open(bad, "w") as f:
    f.write('[1, 2, 3]')
for cmd in ("run", "crosscheck"):
    p = run(cmd, bad)
    check(f"{cmd}: a non-object document names the file", p.returncode == 1 and "array.json" in p.stderr and
          "expected an object" in p.stderr, p.stderr)
p = run("crosscheck", "--bogus")
check("crosscheck: an unknown option is a usage error (exit 2)", p.returncode == 2 and "--bogus" in p.stderr,
      p.stderr)

# crosscheck routes MuJoCo's warnings through Nereid's log handler: no MUJOCO_LOG.TXT in the
# working directory and no "WARNING:" lines on stdout (the merged run's initial state came
# from a plain mj_makeData of the model, whose hydrodynamics plugin warned through MuJoCo's
# default handler; the merged body's MJCF was parsed outside Nereid's calls); a model's own
# warning is printed once on stderr, in Nereid's words
triangle = json.load(open(os.path.join(source, "scenarios", "crosscheck", "bluerov_triangle.json")))
triangle["model"] = os.path.join(source, "models", "multi", "bluerov_triangle.xml")
triangle["duration"] = 0.2
scen = os.path.join(work, "cc_triangle.json")
with open(scen, "w") as f:
    json.dump(triangle, f)
quiet = os.path.join(work, "cwd_crosscheck")
os.makedirs(quiet, exist_ok=True)
p = run("crosscheck", scen, "--out", os.path.join(work, "cc_triangle"), "--no-plots", cwd=quiet)
check("crosscheck writes no MUJOCO_LOG.TXT into the working directory and no MuJoCo WARNING lines",
      p.returncode == 0 and not os.path.exists(os.path.join(quiet, "MUJOCO_LOG.TXT"))
      and "WARNING" not in p.stdout + p.stderr and os.path.exists(os.path.join(work, "cc_triangle", "report.json")),
      (p.returncode, os.listdir(quiet), p.stdout[-300:], p.stderr[-300:]))
with open(os.path.join(source, "models", "multi", "case_a_l1.xml")) as f:
    nan_model = f.read().replace('rgba="0.2 0.4 0.8 0.6"/>', 'rgba="0.2 0.4 0.8 0.6" margin="nan"/>')
with open(os.path.join(work, "cc_nan.xml"), "w") as f:
    f.write(nan_model)
with open(os.path.join(work, "cc_nan.json"), "w") as f:
    json.dump({"model": "cc_nan.xml", "duration": 0.05, "dt": 0.002, "record_every": 5}, f)
p = run("crosscheck", os.path.join(work, "cc_nan.json"), "--out", os.path.join(work, "cc_nan"), "--no-plots",
        cwd=quiet)
nan_lines = [line for line in p.stderr.splitlines() if "XML contains a 'NaN'" in line]
check("crosscheck prints a model's MuJoCo warning once, on stderr, in Nereid's words",
      p.returncode == 0 and nan_lines == ["warning: MuJoCo (uk run): XML contains a 'NaN'. Please check it carefully."]
      and "WARNING" not in p.stdout + p.stderr and not os.path.exists(os.path.join(quiet, "MUJOCO_LOG.TXT")),
      (p.returncode, os.listdir(quiet), p.stdout[-300:], p.stderr[-400:]))

# unbounded work or silent no-ops from small inputs: each is refused, stating the limit
quay = json.load(open(os.path.join(source, "scenarios", "seed002", "pid_table61.json")))
quay["model"] = os.path.join(source, "models", "raybot", "raybot.xml")
for key, value, expect in (("strokes", 10 ** 9, "1..1000"), ("strokes", 4294967297, "1..1000"),
                           ("point_spacing", 1e-12, "0.001")):
    zz = dict(quay["controller"]["path"]["zigzag"])
    zz.pop("num", None)
    zz[key] = value
    sc = json.loads(json.dumps(quay))
    sc["controller"]["path"]["zigzag"] = zz
    bad = os.path.join(work, f"zigzag_{key}.json")
    json.dump(sc, open(bad, "w"))
    p = run("run", bad, "--duration", "0.01")
    check(f"zigzag {key} = {value} is refused with its limit", p.returncode == 1 and expect in p.stderr and
          f"/controller/path/zigzag/{key}" in p.stderr, p.stderr)
model = os.path.join(source, "models", "bluerov", "bluerov.xml")
p = run("run", model, "--record-every", "4294967297")
check("--record-every beyond its limit is a usage error", p.returncode == 2 and "1..1000000000" in p.stderr, p.stderr)
p = run("run", model, "--dt", "1e-300")
check("--dt 1e-300 is refused (step count limit)", p.returncode == 1 and "at most 1e10" in p.stderr, p.stderr)
p = run("run", model, "--duration", "1e300")
check("--duration 1e300 is refused (step count limit)", p.returncode == 1 and "at most 1e10" in p.stderr, p.stderr)
text = open(model).read()
for h in ("0", "-0.01", "nan"):
    with open(os.path.join(work, "timestep.xml"), "w") as f:
        f.write(text.replace('timestep="0.005"', f'timestep="{h}"', 1))
    p = run("run", os.path.join(work, "timestep.xml"))
    check(f"model timestep {h} is refused naming the option", p.returncode == 1 and "timestep" in p.stderr, p.stderr)

# baselines: one episode of station keeping; the scripted PID beats zero thrust and random
# actions, and bad arguments are usage errors (exit 2) or name the unknown task (exit 1)
base = os.path.join(work, "baselines.json")
p = run("baselines", "BlueROV2StationKeeping-v0", "--episodes", "1", "--no-mpc", "--out", base)
check("baselines exits 0", p.returncode == 0, p.stderr)
pol = json.load(open(base))["policies"]
check("baselines: scripted PID beats zero thrust and random actions",
      pol["scripted_pid"]["mean_return"] > max(pol["zero"]["mean_return"], pol["random"]["mean_return"]), pol)
p = run("baselines", "NoSuchTask-v0")
check("baselines: unknown task names it and lists the tasks",
      p.returncode == 1 and "NoSuchTask-v0" in p.stderr and "BlueROV2StationKeeping-v0" in p.stderr, p.stderr)
p = run("baselines", "BlueROV2StationKeeping-v0", "--episodes", "0")
check("baselines: --episodes 0 is a usage error stating the limit",
      p.returncode == 2 and "1..10000" in p.stderr, p.stderr)

# results are written in full or not at all: a full disk is an error naming the file
for name in ("trajectory.csv", "summary.json"):
    full = os.path.join(work, "full_" + name.split(".")[0])
    os.makedirs(full, exist_ok=True)
    link = os.path.join(full, name)
    if not os.path.lexists(link):
        os.symlink("/dev/full", link)
    p = run("run", xml, "--duration", "0.5", "--out", full)
    check(f"{name} on a full disk: exit 1 naming the file and the reason, no 'wrote'",
          p.returncode == 1 and f"{name}: write failed: No space left on device" in p.stderr
          and "wrote" not in p.stdout, (p.returncode, p.stdout[-200:], p.stderr[-300:]))
    check(f"{name} on a full disk: no temporary file left behind",
          sorted(os.listdir(full)) in (["trajectory.csv"], ["summary.json", "trajectory.csv"]), os.listdir(full))
p = run("run", xml, "--duration", "0.5", "--out", os.path.join(os.devnull, "x"))
check("an output folder that cannot be made is an error naming it",
      p.returncode == 1 and "cannot create the output folder" in p.stderr, (p.returncode, p.stderr[-300:]))

# the output's size is known before the run: beyond the limit it is refused with the estimate
p = run("run", os.path.join(source, "scenarios", "default.json"), "--duration", "4e7", "--out", os.path.join(work, "huge"))
check("a run whose output could exceed 1000 MB is refused with the estimate and the ways out",
      p.returncode == 1 and "up to" in p.stderr and "the limit is 1000 MB" in p.stderr and "--record-every" in p.stderr
      and not os.path.exists(os.path.join(work, "huge", "trajectory.csv")), (p.returncode, p.stderr[-400:]))
p = run("run", os.path.join(source, "scenarios", "default.json"), "--max-output-mb", "1", "--out", os.path.join(work, "cap"))
check("--max-output-mb 1: the 30 s default scenario (about 2 MB) is refused",
      p.returncode == 1 and "the limit is 1 MB" in p.stderr, (p.returncode, p.stderr[-300:]))
p = run("run", os.path.join(source, "scenarios", "default.json"), "--max-output-mb", "1", "--record-every", "10",
        "--out", os.path.join(work, "cap"))
check("--max-output-mb 1 with --record-every 10 runs", p.returncode == 0, p.stderr[-300:])
p = run("run", xml, "--max-output-mb", "nan")
check("--max-output-mb nan is a usage error", p.returncode == 2 and "--max-output-mb" in p.stderr, p.stderr[:300])

# a path is complete only within the acceptance distance of its last point, whatever the rule
for rule in ("closest_ahead", "acceptance_radius"):
    one = os.path.join(work, f"one_point_{rule}.json")
    with open(one, "w") as f:
        json.dump({"model": xml, "duration": 0.2,
                   "controller": {"type": "cascaded_pid", "body": "rov", "path": {"points": [[1000, 0, -2]]},
                                  "reference": {"rule": rule}}}, f)
    p = run("run", one, "--out", os.path.join(work, "one_" + rule))
    s = json.load(open(os.path.join(work, "one_" + rule, "summary.json"))) if p.returncode == 0 else {}
    check(f"a one-point path 1 km away is not completed at once ({rule})",
          p.returncode == 0 and s["tracking"]["completed"] is False and "not completed" in p.stdout,
          (p.returncode, p.stdout[-300:], p.stderr[-300:]))

# keyframes: a time that is not finite or beyond 1e9 s, an index beyond int
text = open(xml).read()
for t in ("nan", "1e300"):
    bad = os.path.join(work, f"key_time_{t}.xml")
    with open(bad, "w") as f:
        f.write(text.replace('<key name="start"', f'<key name="start" time="{t}"', 1))
    p = run("run", bad, "--out", os.path.join(work, "key_time"))
    check(f"keyframe time {t} is refused naming the key and the value",
          p.returncode == 1 and '<key name="start"> (keyframe 0): time=' in p.stderr and "+-1e9 s" in p.stderr,
          (p.returncode, p.stderr[-300:]))
big_key = os.path.join(work, "big_key.json")
with open(big_key, "w") as f:
    json.dump({"model": xml, "duration": 0.1, "keyframe": 4294967296}, f)
p = run("run", big_key, "--out", os.path.join(work, "big_key"))
check("keyframe index 4294967296 is refused (it wrapped to 0)",
      p.returncode == 1 and "/keyframe: expected an integer in 0..2147483647" in p.stderr, (p.returncode, p.stderr[-300:]))

# springs and dampers both disabled: refused with either engine (the marine forces would vanish)
flags = os.path.join(work, "no_passive.xml")
with open(flags, "w") as f:
    f.write(text.replace('viscosity="0"/>', 'viscosity="0"><flag spring="disable" damper="disable"/></option>', 1))
for engine in ("nereid", "mujoco"):
    p = run("run", flags, "--engine", engine, "--out", os.path.join(work, "no_passive"))
    check(f"springs and dampers disabled are refused with --engine {engine}",
          p.returncode == 1 and 'spring="disable" damper="disable"' in p.stderr, (p.returncode, p.stderr[-300:]))

# baselines: a NaN period and a seed beyond 2^63-1 are usage errors
p = run("baselines", "BlueROV2StationKeeping-v0", "--mpc-period", "nan")
check("baselines: --mpc-period nan is a usage error stating the range",
      p.returncode == 2 and "--mpc-period: must be in 0.001..60, got nan" in p.stderr, p.stderr[:300])
p = run("baselines", "BlueROVDocking-v0", "--mpc-velocity-limit", "0")
check("baselines: --mpc-velocity-limit 0 is a usage error stating the range",
      p.returncode == 2 and "--mpc-velocity-limit: must be in 0.001..10, got 0" in p.stderr, p.stderr[:300])
for seed in ("9223372036854775808", "18446744073709551616"):
    p = run("baselines", "BlueROV2StationKeeping-v0", "--seed", seed)
    check(f"baselines: --seed {seed} is a usage error (it was capped without a word)",
          p.returncode == 2 and "--seed: must be in 0..9223372036854775807" in p.stderr, p.stderr[:300])
p = run("baselines", "BlueROV2StationKeeping-v0", "--seed", "12x")
check("baselines: --seed 12x is a usage error", p.returncode == 2 and "expected an integer" in p.stderr, p.stderr[:300])

# validate: an output folder that cannot be made is named before the long run starts
p = run("validate", "--out", os.path.join(os.devnull, "report"), "--work", os.path.join(work, "validate_work"))
check("validate: an output folder that cannot be made is a clear error, no traceback",
      p.returncode == 1 and "(--out): cannot create the folder" in p.stderr and "Traceback" not in p.stderr,
      (p.returncode, p.stderr[-300:]))

# a scenario's model path holding a NUL character: named, not an empty message (what() is a
# C string: the NUL ended the message, at its start when the path started with it)
for model, offset in ((r"\u0000b.xml", 0), (r"a\u0000b.xml", 1)):
    nul_scenario = os.path.join(work, "nul_model.json")
    with open(nul_scenario, "w") as f:
        f.write('{"model": "%s", "duration": 1}' % model)
    p = run("run", nul_scenario, "--out", os.path.join(work, "nul_model"))
    check(f"a model path with a NUL character at offset {offset} is named", p.returncode == 1 and
          f"nul_model.json: /model: the path contains a NUL character (at offset {offset})" in p.stderr
          and model in p.stderr, p.stderr[:300])

# schema: the JSON Schema of scenarios, generated from the key tables, is the committed one
with open(os.path.join(source, "docs", "scenario.schema.json")) as f:
    committed_schema = f.read()
p = run("schema")
check("schema: prints the committed docs/scenario.schema.json", p.returncode == 0 and p.stdout == committed_schema,
      (p.returncode, p.stderr[:200]))
schema_out = os.path.join(work, "schema", "scenario.schema.json")
p = run("schema", "--out", schema_out)
check("schema --out: writes it, making the folder", p.returncode == 0 and os.path.isfile(schema_out) and
      open(schema_out).read() == committed_schema, (p.returncode, p.stderr[:200]))
p = run("schema", "--out", os.path.join(os.devnull, "x.json"))
check("schema --out into a place that cannot hold a file: named, exit 1",
      p.returncode == 1 and os.devnull in p.stderr, (p.returncode, p.stderr[:200]))

# identify / replay: the shipped synthetic tow runs fit to seed 000's surge drag; a missing log
# is named (exit 1); no subcommand is a usage error (exit 2)
fit_json = os.path.join(work, "identify_tow.json")
p = run("identify", "tow", os.path.join(source, "examples", "logs", "tow"), "--out", fit_json)
fit_ok = p.returncode == 0 and os.path.isfile(fit_json)
surge = json.load(open(fit_json))["dofs"]["surge"]["quadratic_damping"] if fit_ok else float("nan")
check("identify tow: the example runs give seed 000's 34.96|u|u within 3 %", fit_ok and abs(surge / 34.96 - 1) < 0.03,
      (p.returncode, surge, p.stderr[:300]))
p = run("replay", os.path.join(work, "no_such_log.csv"), "--model", os.path.join(source, "models", "bluerov",
                                                                                    "bluerov.xml"))
check("replay: a missing log is named, exit 1", p.returncode == 1 and "no_such_log.csv" in p.stderr, p.stderr[:300])
p = run("identify")
check("identify without a subcommand: usage error, exit 2", p.returncode == 2 and "usage" in p.stderr, p.stderr[:300])

passed = sum(results)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if passed == len(results) else 1)
