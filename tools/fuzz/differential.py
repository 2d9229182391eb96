#!/usr/bin/env python3
"""Differential fuzzing of Nereid's engine against MuJoCo's own mj_step.

Without added mass Nereid's engine must step a model exactly as mj_step does: its own RK4
and activation update (src/runge_kutta.cc), its passive stage, its site transmission and
its sensor calls re-implement parts of MuJoCo 3.14, and a MuJoCo release can add what they
miss (DC-motor states, wrapped rotational setpoints and the actuation flag were found this
way). Each case is a random model without Nereid plugins: one to three bodies on hinge,
slide, ball or free joints; one to four actuators of MuJoCo's kinds (motor, position,
velocity, intvelocity, damper, cylinder, muscle, filter / filterexact / integrator
dynamics, PID, DC motors with any of their states) on joints, sites, sites with a refsite
and tendons; sometimes a floor, a spatial tendon, a weld; MuJoCo sensors (accelerometer,
gyro, force, torque, frame and subtree sensors, rangefinder, touch, clock, actuator force);
integrator Euler, RK4 or implicitfast. Both step it with the same random controls, half of
the cases with a disable flag (actuation, control clamping, gravity) set halfway; qpos,
qvel, act and sensordata must agree to --tolerance (default 0: bit for bit).

    PYTHONPATH=build/python python3 tools/fuzz/differential.py --cases 2000 --seed 1

Exit 0 when every case agrees (a case MuJoCo cannot compile is skipped and counted; a case
that diverges must diverge at the same step in both), 1 otherwise, printing each
disagreeing case's seed, its largest difference and its MJCF. `--case N` reruns case N.
ctest `fuzz_differential` runs 150 cases.
"""
import argparse
import collections
import os
import random
import sys
import tempfile

ACTUATORS = [
    "<motor {t} gear='{g}'/>",
    "<position {t} kp='5' gear='{g}'/>",
    "<position {t} kp='5' kv='0.5'/>",
    "<velocity {t} kv='2'/>",
    "<intvelocity {t} kp='3' gear='{g}'/>",
    "<intvelocity {t} kp='3' actrange='-1 1'/>",
    "<damper {t} kv='1' ctrlrange='0 1'/>",
    "<general {t} dyntype='filter' dynprm='0.05' gainprm='2'/>",
    "<general {t} dyntype='filterexact' dynprm='0.03' gainprm='1' actlimited='true' actrange='-0.5 0.5'/>",
    "<general {t} dyntype='integrator' gainprm='1' biastype='affine' biasprm='0 -1 -0.1' actearly='true'/>",
    "<pid {t} kp='4' ki='2' kv='0.3' input='pos vel'/>",
    "<pid {t} kp='4' ki='1'/>",
    "<pid {t} kp='4' kv='1' input='pos vel ff'/>",
    "<dcmotor {t} resistance='2' motorconst='0.05' inductance='0.01'/>",
    "<dcmotor {t} resistance='2' motorconst='0.05' input='pos vel' controller='1 0.5 0.1 1 0.2' inductance='0.01' "
    "thermal='1 2' lugre='0.3 0.4 0.5 12 0.02'/>",
    "<dcmotor {t} resistance='1' motorconst='0.05' input='pos' controller='2 1 0.1'/>",
    "<cylinder {t} timeconst='0.05' area='0.01'/>",
    "<muscle {t}/>",
]
SENSORS = ["accelerometer site='s{b}'", "gyro site='s{b}'", "velocimeter site='s{b}'", "force site='s{b}'",
           "torque site='s{b}'", "framelinacc objtype='site' objname='s{b}'",
           "frameangacc objtype='site' objname='s{b}'", "framepos objtype='site' objname='s{b}'",
           "subtreeangmom body='b{b}'", "subtreelinvel body='b{b}'", "rangefinder site='s{b}'", "touch site='s{b}'"]
ROTATIONAL_SERVO = ("<general site='s{b}' refsite='ref' gaintype='so3' biastype='so3' dyntype='integrator' "
                    "gainprm='1' biasprm='0 -1 0'/>")


def make_case(seed):
    """(MJCF text, integrator name, disable flag name or None) of case `seed`."""
    rng = random.Random(seed)
    bodies, targets = [], []
    nbody = rng.randint(1, 3)
    for b in range(nbody):
        kind = rng.choice(["hinge", "slide", "ball", "free"])
        joint = (f"<freejoint name='j{b}'/>" if kind == "free"
                 else f"<joint name='j{b}' type='{kind}' damping='{rng.choice([0, 0.1])}'/>")
        bodies.append(f"<body name='b{b}' pos='{b} 0 1'>{joint}<geom type='capsule' fromto='0 0 0 0.3 0 0' "
                      f"size='0.05'/><site name='s{b}' pos='0.1 0 0'/></body>")
        if kind != "free":
            targets.append((f"joint='j{b}'", kind))
        targets += [(f"site='s{b}'", "site"), (f"site='s{b}' refsite='ref'", "siteref")]
    actuators = []
    for _ in range(rng.randint(1, 4)):
        target, kind = rng.choice(targets)
        text = rng.choice(ACTUATORS)
        if kind in ("ball", "site", "siteref") and ("muscle" in text or "cylinder" in text):
            continue
        gear = {"ball": "1 0 0", "site": "0 0 1 0 0 0",
                "siteref": rng.choice(["0 0 0 0 1 0", "1 0 0 0 0 0"])}.get(kind, "1")
        actuators.append(text.format(t=target, g=gear))
    if rng.random() < 0.15:
        actuators.append(ROTATIONAL_SERVO.format(b=rng.randrange(nbody)))
    tendon = extra = ""
    if rng.random() < 0.4:
        tendon = (f"<tendon><spatial name='ten' stiffness='{rng.choice([0, 5])}' damping='0.1'>"
                  "<site site='ref'/><site site='s0'/></spatial></tendon>")
        if rng.random() < 0.5:
            actuators.append("<motor tendon='ten'/>")
        if rng.random() < 0.5:
            actuators.append("<position tendon='ten' kp='3'/>")
    if nbody > 1 and rng.random() < 0.3:
        extra += "<equality><weld body1='b0' body2='b1'/></equality>"
    sensors = []
    for b in range(nbody):
        sensors += ["<" + s.format(b=b) + "/>" for s in rng.sample(SENSORS, 3)]
    if rng.random() < 0.5:
        sensors.append("<clock/>")
    if actuators and rng.random() < 0.5:
        sensors.append("<actuatorfrc actuator='first'/>")
        head, rest = actuators[0].split(" ", 1)
        actuators[0] = f"{head} name='first' {rest}"
    extra += "<sensor>" + "".join(sensors) + "</sensor>"
    floor = "<geom type='plane' size='5 5 0.1'/>" if rng.random() < 0.5 else ""
    integrator = rng.choice(["Euler", "RK4", "implicitfast"])
    flag = rng.choice([None, "mjDSBL_ACTUATION", "mjDSBL_CLAMPCTRL", "mjDSBL_GRAVITY"])
    xml = (f"<mujoco><option timestep='0.002' integrator='{integrator}'/><worldbody>{floor}<site name='ref'/>"
           f"{''.join(bodies)}</worldbody>{tendon}<actuator>{''.join(actuators)}</actuator>{extra}</mujoco>")
    return xml, integrator, flag


def run_case(seed, steps, tolerance, work):
    """("skip" | "ok" | "differs", largest difference or a message, MJCF)."""
    import mujoco
    import numpy as np
    import nereid
    xml, _, flag = make_case(seed)
    try:
        reference = mujoco.MjModel.from_xml_string(xml)
    except ValueError:
        return "skip", "MuJoCo does not compile it", xml
    path = os.path.join(work, f"case{seed}.xml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(xml)
    model, data = nereid.load(path)
    rdata = mujoco.MjData(reference)
    controls = np.random.default_rng(seed).uniform(-3, 3, (steps, reference.nu))
    largest = 0.0
    try:
        for k in range(steps):
            if flag and k == steps // 2:
                bit = int(getattr(mujoco.mjtDisableBit, flag))
                model.opt.disableflags |= bit
                reference.opt.disableflags |= bit
            data.ctrl[:] = rdata.ctrl[:] = controls[k]
            mujoco.mj_step(reference, rdata)
            diverged = rdata.warning[mujoco.mjtWarning.mjWARN_BADQACC].number > 0
            try:
                nereid.step(model, data)
            except nereid.DivergenceError as e:
                if diverged:
                    return "ok", largest, xml  # both at the same step
                return "differs", f"step {k}: only Nereid diverged ({e})", xml
            if diverged:
                return "differs", f"step {k}: only mj_step diverged", xml
            for a, b in ((data.qpos, rdata.qpos), (data.qvel, rdata.qvel), (data.act, rdata.act),
                         (data.sensordata, rdata.sensordata)):
                if a.size:
                    largest = max(largest, float(np.max(np.abs(a - b))))
        return ("ok" if largest <= tolerance else "differs"), largest, xml
    finally:
        nereid.release(model, data)
        os.unlink(path)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", type=int, default=200)
    p.add_argument("--seed", type=int, default=1, help="case numbers start at seed * 1,000,000")
    p.add_argument("--case", type=int, help="run this case number only")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--tolerance", type=float, default=0.0)
    args = p.parse_args(argv)
    if not 1 <= args.cases <= 10 ** 6 or not 2 <= args.steps <= 10 ** 5 or not 0 <= args.seed < 2 ** 31:
        p.error("--cases 1..1e6, --steps 2..1e5, --seed 0..2^31-1")
    import warnings
    warnings.simplefilter("ignore")  # plain MuJoCo compiles, nothing of Nereid's in them
    numbers = [args.case] if args.case is not None else range(args.seed * 10 ** 6, args.seed * 10 ** 6 + args.cases)
    counts, failures = collections.Counter(), []
    with tempfile.TemporaryDirectory(prefix="nereid_differential_") as work:
        for n in numbers:
            outcome, detail, xml = run_case(n, args.steps, args.tolerance, work)
            counts[outcome] += 1
            if outcome == "differs":
                failures.append((n, detail, xml))
    print(f"differential: {counts['ok']} agree, {counts['differs']} differ, {counts['skip']} not compiled by MuJoCo "
          f"({args.steps} steps each, tolerance {args.tolerance:g})")
    for n, detail, xml in failures[:10]:
        print(f"case {n}: {detail}\n  {xml}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
