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

With --added-mass every body gets its centre of mass at its origin and, in Nereid's model,
isotropic added mass diag(a, a, a, J) from nereid.hydrodynamics; mj_step steps the same
model with each body's mass and inertia raised by a and J instead. Both describe the same
motion (M_A enters the mass matrix as that rigid mass, C_A(nu) nu is its Coriolis force),
so Nereid's own position stage, site transmission and passive stage with added mass are
checked against MuJoCo's rigid-body dynamics, to 1e-9 (rounding: the sums differ). Left
out there: gravity (added mass has no weight), contacts and welds (regularised by inverse
weights MuJoCo computes from the mass matrix it compiled), muscles (force scale likewise),
sensors of forces, and implicitfast (see make_case).

    PYTHONPATH=build/python python3 tools/fuzz/differential.py --cases 2000 --seed 1

Exit 0 when every case agrees (a case MuJoCo cannot compile is skipped and counted; a case
that diverges must diverge at the same step in both), 1 otherwise, printing each
disagreeing case's seed, its largest difference and its MJCF. `--case N` reruns case N.
ctest `fuzz_differential` runs 150 cases of each mode.
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
    # a length range given: MuJoCo 3.14's compiler would otherwise simulate to find it, and
    # that simulation loops forever once it diverges (time reset to 0 each step)
    "<muscle {t} lengthrange='-1 1'/>",
]
SENSORS = ["accelerometer site='s{b}'", "gyro site='s{b}'", "velocimeter site='s{b}'", "force site='s{b}'",
           "torque site='s{b}'", "framelinacc objtype='site' objname='s{b}'",
           "frameangacc objtype='site' objname='s{b}'", "framepos objtype='site' objname='s{b}'",
           "subtreeangmom body='b{b}'", "subtreelinvel body='b{b}'", "rangefinder site='s{b}'", "touch site='s{b}'"]
ROTATIONAL_SERVO = ("<general site='s{b}' refsite='ref' gaintype='so3' biastype='so3' dyntype='integrator' "
                    "gainprm='1' biasprm='0 -1 0'/>")


def box_inertia(mass, rng):
    x, y, z = (rng.uniform(0.05, 0.6) for _ in range(3))
    return [mass / 12 * (y * y + z * z), mass / 12 * (x * x + z * z), mass / 12 * (x * x + y * y)]


def make_case(seed, added_mass=False):
    """(MJCF for Nereid, MJCF for mj_step, disable flag name or None) of case `seed`. With
    added_mass each body has its centre of mass at its origin, and Nereid's model gives it
    isotropic added mass diag(a, a, a, J) (nereid.hydrodynamics, no damping) where mj_step's
    gives it mass m + a and inertia I + J: the same dynamics (M_A enters the mass matrix as
    that rigid mass and inertia, and C_A(nu) nu = [a w x v; w x J w] is its Coriolis force)."""
    rng = random.Random(seed)
    bodies, rigid, hydro, targets = [], [], [], []
    nbody = rng.randint(1, 3)
    for b in range(nbody):
        kind = rng.choice(["hinge", "slide", "ball", "free"])
        joint = (f"<freejoint name='j{b}'/>" if kind == "free"
                 else f"<joint name='j{b}' type='{kind}' damping='{rng.choice([0, 0.1])}'/>")
        # principal moments of boxes (they satisfy A + B >= C, as MuJoCo's compiler requires)
        mass, a = rng.uniform(0.5, 3), rng.uniform(0.2, 5)
        inertia, J = box_inertia(mass, rng), box_inertia(a, rng)
        body = (f"<body name='b{b}' pos='{b} 0 1' euler='{rng.randint(0, 90)} {rng.randint(0, 90)} 0'>{joint}"
                "{inertial}<geom type='capsule' fromto='-0.15 0 0 0.15 0 0' size='0.05'{contact}/>"
                f"<site name='s{b}' pos='0.1 0 0'/></body>")
        inertial = "<inertial pos='0 0 0' mass='{:.17g}' diaginertia='{:.17g} {:.17g} {:.17g}'/>"
        no_contact = " contype='0' conaffinity='0'" if added_mass else ""  # (the bodies could collide)
        bodies.append(body.format(inertial=inertial.format(mass, *inertia) if added_mass else "", contact=no_contact))
        rigid.append(body.format(inertial=inertial.format(mass + a, *(i + j for i, j in zip(inertia, J))),
                                 contact=no_contact))
        hydro.append(f"<instance name='h{b}'><config key='body' value='b{b}'/><config key='added_mass' "
                     f"value='{a!r} {a!r} {a!r} {J[0]!r} {J[1]!r} {J[2]!r}'/>"
                     "<config key='linear_damping' value='0 0 0 0 0 0'/>"
                     "<config key='quadratic_damping' value='0 0 0 0 0 0'/></instance>")
        if kind != "free":
            targets.append((f"joint='j{b}'", kind))
        targets += [(f"site='s{b}'", "site"), (f"site='s{b}' refsite='ref'", "siteref")]
    actuators = []
    for _ in range(rng.randint(1, 4)):
        target, kind = rng.choice(targets)
        text = rng.choice(ACTUATORS)
        if kind in ("ball", "site", "siteref") and ("muscle" in text or "cylinder" in text):
            continue
        if added_mass and "muscle" in text:  # its force scale comes from the compiled mass matrix
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
    # constraints (a weld, contacts with the floor) are regularised by inverse weights that
    # MuJoCo computes from the compiled mass matrix, without added mass: not with added mass
    if nbody > 1 and rng.random() < 0.3 and not added_mass:
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
    floor = "<geom type='plane' size='5 5 0.1'/>" if rng.random() < 0.5 and not added_mass else ""
    # implicitfast differentiates a standalone free or ball body's forces with MuJoCo's own
    # inertia, without the added inertia: the two models are then different discretisations
    # of the same motion (1e-9 to 5e-5 after 0.6 s, shrinking with the step), so only the
    # explicit integrators are compared with added mass
    integrator = rng.choice(["Euler", "RK4"] if added_mass else ["Euler", "RK4", "implicitfast"])
    flag = rng.choice([None, "mjDSBL_ACTUATION", "mjDSBL_CLAMPCTRL", "mjDSBL_GRAVITY"])
    # added mass has no weight: its rigid stand-in must not have any either
    gravity = " gravity='0 0 0'" if added_mass else ""

    def mjcf(body_texts, plugin):
        return (f"<mujoco><option timestep='0.002' integrator='{integrator}'{gravity}/>{plugin}<worldbody>{floor}"
                f"<site name='ref'/>{''.join(body_texts)}</worldbody>{tendon}<actuator>{''.join(actuators)}"
                f"</actuator>{extra}</mujoco>")
    if not added_mass:
        xml = mjcf(bodies, "")
        return xml, xml, flag
    plugin = f"<extension><plugin plugin='nereid.hydrodynamics'>{''.join(hydro)}</plugin></extension>"
    return mjcf(bodies, plugin), mjcf(rigid, ""), flag


def run_case(seed, steps, tolerance, work, added_mass=False):
    """("skip" | "ok" | "differs", largest difference or a message, MJCF)."""
    import mujoco
    import numpy as np
    import nereid
    xml, reference_xml, flag = make_case(seed, added_mass)
    try:
        reference = mujoco.MjModel.from_xml_string(reference_xml)
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
            W = mujoco.mjtWarning
            diverged = any(rdata.warning[w].number > 0 for w in (W.mjWARN_BADQPOS, W.mjWARN_BADQVEL, W.mjWARN_BADQACC))
            try:
                nereid.step(model, data)
            except nereid.DivergenceError as e:
                # Nereid checks the state at the end of its step; mj_step checks qpos and qvel
                # when the next step starts (1e10: MuJoCo's mjMAXVAL)
                state = np.concatenate([rdata.qpos, rdata.qvel])
                if diverged or not np.all(np.abs(state) <= 1e10):
                    return "ok", largest, xml  # both at the same step
                return "differs", f"step {k}: only Nereid diverged ({e})", xml
            if diverged:
                return "differs", f"step {k}: only mj_step diverged", xml
            # with added mass, sensors of forces (force, torque, touch) see the rigid stand-in's
            # mass where Nereid's body has none: the state is compared, not the sensors
            pairs = [(data.qpos, rdata.qpos), (data.qvel, rdata.qvel), (data.act, rdata.act)]
            if not added_mass:
                pairs.append((data.sensordata, rdata.sensordata))
            for a, b in pairs:
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
    p.add_argument("--tolerance", type=float, help="largest difference allowed (default 0, bit for bit; "
                   "1e-9 with --added-mass)")
    p.add_argument("--added-mass", action="store_true",
                   help="isotropic added mass on every body against mj_step on heavier rigid bodies")
    args = p.parse_args(argv)
    if not 1 <= args.cases <= 10 ** 6 or not 2 <= args.steps <= 10 ** 5 or not 0 <= args.seed < 2 ** 31:
        p.error("--cases 1..1e6, --steps 2..1e5, --seed 0..2^31-1")
    if args.tolerance is None:
        args.tolerance = 1e-9 if args.added_mass else 0.0
    import warnings
    warnings.simplefilter("ignore")  # plain MuJoCo compiles, nothing of Nereid's in them
    numbers = [args.case] if args.case is not None else range(args.seed * 10 ** 6, args.seed * 10 ** 6 + args.cases)
    counts, failures = collections.Counter(), []
    with tempfile.TemporaryDirectory(prefix="nereid_differential_") as work:
        for n in numbers:
            outcome, detail, xml = run_case(n, args.steps, args.tolerance, work, args.added_mass)
            counts[outcome] += 1
            if outcome == "differs":
                failures.append((n, detail, xml))
    mode = "with added mass against heavier rigid bodies" if args.added_mass else "against mj_step"
    print(f"differential ({mode}): {counts['ok']} agree, {counts['differs']} differ, {counts['skip']} not compiled by MuJoCo "
          f"({args.steps} steps each, tolerance {args.tolerance:g})")
    for n, detail, xml in failures[:10]:
        print(f"case {n}: {detail}\n  {xml}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
