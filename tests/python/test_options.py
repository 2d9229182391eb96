"""mjOption fields a MuJoCo user changes between steps (m.opt.integrator = ..., ...) are
honoured by nereid.step and nereid.rollout -- the trajectory is bit for bit that of a model
loaded with the option -- or refused loudly, naming the field and its value, before anything
is stepped (docs/python.md, "Changing the model's options"). Nereid's stepper used to pick
the integrator once, when it was made, and kept it whatever the model said."""
import csv
import os
import subprocess

import mujoco
import numpy as np
import pytest

import nereid

I = mujoco.mjtIntegrator
D = mujoco.mjtDisableBit
E = mujoco.mjtEnableBit
CLI = os.environ.get("NEREID_CLI")


# a damped, sprung hinge beside the vehicle: joint springs and dampers for the options that
# act on them (the shipped vehicles have free joints only)
ARM = """<worldbody><body name="arm" pos="0.5 0 -1"><joint type="hinge" axis="0 1 0" damping="0.3" stiffness="2"/>
  <inertial pos="0.15 0 0" mass="0.5" diaginertia="1e-3 4e-3 4e-3"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/></body></worldbody>"""


# contacts, a joint limit, friction loss and sensors, with no marine plugin (for the options
# that act on those: Nereid's stepper then steps as mj_step does)
BALL = """<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="5 5 0.1"/>
  <body name="ball" pos="0 0 0.12"><freejoint/><geom type="sphere" size="0.1" mass="1"/><site name="s"/></body>
  <body name="arm" pos="0.5 0 1"><joint type="hinge" axis="0 1 0" frictionloss="0.05" range="-0.3 0.3" limited="true"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/></body>
</worldbody><sensor><magnetometer site="s"/><framepos objtype="site" objname="s"/></sensor>{option}</mujoco>"""


def loaded_with(tmp_path, name, option_xml, constraints=None):
    """A shipped model (name; "bluerov2_heavy+arm": with ARM added; "ball": BALL) loaded with
    `option_xml` (an <option> element, or "") added by an <include> wrapper: the option is
    the model's own from the start."""
    base, _, extra = name.partition("+")
    path = tmp_path / f"{base}_{len(option_xml)}.xml"
    if base == "ball":
        path.write_text(BALL.format(option=option_xml))
    else:
        path.write_text(f'<mujoco><include file="{nereid.model_path(base)}"/>{ARM if extra else ""}{option_xml}</mujoco>')
    return nereid.load(path, constraints=constraints)


def run(model, data, nstep):
    if model.nu:
        lo, hi = model.actuator_ctrlrange[:, 0], model.actuator_ctrlrange[:, 1]
        # asymmetric, so that it turns and climbs; the last two beyond ctrlrange (clamped)
        data.ctrl[:] = lo + (hi - lo) * np.linspace(0.55, 1.2, model.nu)
    data.sensordata[:] = 0  # what the loading's forward pass left (disabled sensors keep it)
    nereid.step(model, data, nstep=nstep)
    return {"time": data.time, "qpos": data.qpos.copy(), "qvel": data.qvel.copy(), "act": data.act.copy(),
            "energy": data.energy.copy(), "qacc": data.qacc.copy(), "fwdinv": data.solver_fwdinv.copy(),
            "sensordata": data.sensordata.copy(), "ncon": data.ncon}


def set_opt(field, value):
    def apply(model):
        current = getattr(model.opt, field)
        if isinstance(current, np.ndarray):
            current[:] = value
        else:
            setattr(model.opt, field, value)
    return apply


def flag(field, bit):
    return lambda model: setattr(model.opt, field, getattr(model.opt, field) | int(bit))


# (model, the <option> that loads it so, the change a program makes after loading, constraints)
HONOURED = {
    "integrator RK4": ("bluerov2_heavy", '<option integrator="RK4"/>', set_opt("integrator", I.mjINT_RK4), None),
    "integrator implicitfast": ("bluerov2_heavy+arm", '<option integrator="implicitfast"/>',
                                set_opt("integrator", I.mjINT_IMPLICITFAST), None),
    "integrator implicit": ("bluerov2_heavy", '<option integrator="implicit"/>', set_opt("integrator", I.mjINT_IMPLICIT), None),
    "integrator Euler (from RK4)": ("case_a_l1", '<option integrator="Euler"/>', set_opt("integrator", I.mjINT_EULER), "uk"),
    "timestep": ("bluerov2_heavy", '<option timestep="0.002"/>', set_opt("timestep", 0.002), None),
    "gravity (buoyancy follows)": ("bluerov2_heavy", '<option gravity="0.5 0 -9"/>', set_opt("gravity", [0.5, 0, -9]), None),
    "density, viscosity (MuJoCo's fluid model)": ("bluerov2_heavy", '<option density="1000" viscosity="0.001"/>',
                                                  lambda m: (set_opt("density", 1000)(m), set_opt("viscosity", 0.001)(m)), None),
    "wind": ("bluerov2_heavy", '<option density="1000" wind="0.5 -0.3 0"/>',
             lambda m: (set_opt("density", 1000)(m), set_opt("wind", [0.5, -0.3, 0])(m)), None),
    "disable gravity (buoyancy follows)": ("bluerov2_heavy", '<option><flag gravity="disable"/></option>',
                                           flag("disableflags", D.mjDSBL_GRAVITY), None),
    "disable actuation": ("bluerov2_heavy", '<option><flag actuation="disable"/></option>',
                          flag("disableflags", D.mjDSBL_ACTUATION), None),
    "disable clampctrl": ("bluerov2_heavy", '<option><flag clampctrl="disable"/></option>',
                          flag("disableflags", D.mjDSBL_CLAMPCTRL), None),
    "disable spring": ("bluerov2_heavy+arm", '<option><flag spring="disable"/></option>', flag("disableflags", D.mjDSBL_SPRING), None),
    "disable damper": ("bluerov2_heavy+arm", '<option><flag damper="disable"/></option>', flag("disableflags", D.mjDSBL_DAMPER), None),
    "disable eulerdamp": ("bluerov2_heavy+arm", '<option><flag eulerdamp="disable"/></option>',
                          flag("disableflags", D.mjDSBL_EULERDAMP), None),
    "disableactuator group 0": ("bluerov2_heavy", '<option actuatorgroupdisable="0"/>', set_opt("disableactuator", 1), None),
    "enable energy": ("bluerov2_heavy", '<option><flag energy="enable"/></option>', flag("enableflags", E.mjENBL_ENERGY), None),
    "enable fwdinv": ("case_a_l1", '<option><flag fwdinv="enable"/></option>', flag("enableflags", E.mjENBL_FWDINV), None),
    "disable equality (MuJoCo's welds)": ("case_a_l1", '<option><flag equality="disable"/></option>',
                                          flag("disableflags", D.mjDSBL_EQUALITY), None),
    "disable equality (UK connections)": ("case_a_l1", '<option><flag equality="disable"/></option>',
                                          flag("disableflags", D.mjDSBL_EQUALITY), "uk"),
    "disable constraint (UK connections)": ("case_a_l1", '<option><flag constraint="disable"/></option>',
                                            flag("disableflags", D.mjDSBL_CONSTRAINT), "uk"),
    "solver CG, dense Jacobian, elliptic cones": ("case_a_l1", '<option solver="CG" jacobian="dense" cone="elliptic"/>',
                                                  lambda m: (set_opt("solver", mujoco.mjtSolver.mjSOL_CG)(m),
                                                             set_opt("jacobian", mujoco.mjtJacobian.mjJAC_DENSE)(m),
                                                             set_opt("cone", mujoco.mjtCone.mjCONE_ELLIPTIC)(m)), None),
    "disable contact": ("ball", '<option><flag contact="disable"/></option>', flag("disableflags", D.mjDSBL_CONTACT), None),
    "override o_margin": ("ball", '<option o_margin="0.05"><flag override="enable"/></option>',
                          lambda m: (set_opt("o_margin", 0.05)(m), flag("enableflags", E.mjENBL_OVERRIDE)(m)), None),
    "disable limit": ("ball", '<option><flag limit="disable"/></option>', flag("disableflags", D.mjDSBL_LIMIT), None),
    "disable frictionloss": ("ball", '<option><flag frictionloss="disable"/></option>',
                             flag("disableflags", D.mjDSBL_FRICTIONLOSS), None),
    "disable sensor": ("ball", '<option><flag sensor="disable"/></option>', flag("disableflags", D.mjDSBL_SENSOR), None),
    "magnetic": ("ball", '<option magnetic="0 0.3 -0.4"/>', set_opt("magnetic", [0, 0.3, -0.4]), None),
    "enable sleep, sleep_tolerance": ("ball", '<option sleep_tolerance="0.5"><flag sleep="enable"/></option>',
                                      lambda m: (flag("enableflags", E.mjENBL_SLEEP)(m), set_opt("sleep_tolerance", 0.5)(m)),
                                      None),
    "iterations, tolerance, impratio": ("case_a_l1", '<option iterations="3" tolerance="1e-3" impratio="2"/>',
                                        lambda m: (set_opt("iterations", 3)(m), set_opt("tolerance", 1e-3)(m),
                                                   set_opt("impratio", 2)(m)), None),
}


def narrow_thruster_range(model):
    """PWM 1500..1700 instead of the T200's 1100..1900, whose thrust map saturates at its
    ends: controls beyond the range then make more thrust unless they are clamped."""
    model.actuator_ctrlrange[:] = [1500.0, 1700.0]


# the model changes that make an option show (applied to every model compared)
PREPARE = {"disable clampctrl": narrow_thruster_range}


@pytest.mark.parametrize("case", list(HONOURED))
def test_an_option_changed_after_loading_is_honoured(tmp_path, case):
    name, option_xml, change, constraints = HONOURED[case]
    prepare = PREPARE.get(case, lambda model: None)
    model, data = loaded_with(tmp_path, name, "", constraints)
    ref_model, ref_data = loaded_with(tmp_path, name, option_xml, constraints)
    prepare(model)
    prepare(ref_model)
    change(model)
    assert model.opt.integrator == ref_model.opt.integrator and model.opt.timestep == ref_model.opt.timestep
    assert (model.opt.disableflags, model.opt.enableflags) == (ref_model.opt.disableflags, ref_model.opt.enableflags)
    got, expected = run(model, data, 100), run(ref_model, ref_data, 100)
    for key in expected:
        assert np.array_equal(got[key], expected[key]), (case, key, got[key], expected[key])
    # the change made a difference (the comparison is not between two untouched models)
    plain_model, plain_data = loaded_with(tmp_path, name, "", constraints)
    prepare(plain_model)
    plain = run(plain_model, plain_data, 100)
    assert any(not np.array_equal(plain[k], got[k]) for k in got), case


def test_the_stepper_reports_the_models_integrator():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    s = nereid.stepper(model, data)
    for value, name in ((I.mjINT_RK4, "rk4"), (I.mjINT_IMPLICIT, "implicit"), (I.mjINT_IMPLICITFAST, "implicitfast"),
                        (I.mjINT_EULER, "euler")):
        model.opt.integrator = value
        assert s.integrator == name


@pytest.mark.skipif(not CLI, reason="NEREID_CLI (the nereid command line) not set")
def test_rk4_set_from_python_is_nereid_run_with_integrator_rk4_bit_for_bit(tmp_path):
    # the case: the heave after 1 s differed from `nereid run --integrator rk4` by 1.1e-4 m
    path = nereid.model_path("bluerov2_heavy")
    out = tmp_path / "run"
    done = subprocess.run([CLI, "run", path, "--integrator", "rk4", "--duration", "1", "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with open(out / "trajectory.csv") as f:
        rows = np.array(list(csv.reader(f))[1:], dtype=float)
    model, data = nereid.load(path)
    model.opt.integrator = I.mjINT_RK4
    for k in range(len(rows)):
        if k > 0:
            nereid.step(model, data)
        assert np.array_equal(np.concatenate([[data.time], data.qpos[:7], data.qvel[:6]]), rows[k, :14]), k


def test_rollout_honours_an_integrator_changed_after_loading():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    model.opt.integrator = I.mjINT_RK4
    control = np.full((30, model.nu), 1650.0)
    state, _ = nereid.rollout(model, data, nereid.get_state(model, data), control)
    ref_model, ref_data = nereid.load(nereid.model_path("bluerov2_heavy"))
    stepper = nereid.Stepper(ref_model, ref_data, integrator="rk4")
    for k in range(30):
        ref_data.ctrl[:] = control[k]
        stepper.step()
    assert np.array_equal(state[0, -1], nereid.get_state(ref_model, ref_data))


def test_disabling_equality_frees_uk_connections_as_it_frees_welds():
    # case A: two vehicles joined by a rod; with the equality constraints disabled both
    # constraint methods let them part under gravity and their own buoyancy
    gaps = {}
    for constraints in ("mujoco", "uk"):
        model, data = nereid.load(nereid.model_path("case_a_l1"), constraints=constraints)
        a, b = model.body("A").id, model.body("B").id
        start = np.linalg.norm(data.xpos[a] - data.xpos[b])
        data.xfrc_applied[b, 2] = 20.0  # B pushed up, A not
        model.opt.disableflags |= int(D.mjDSBL_EQUALITY)
        nereid.step(model, data, nstep=500)
        gaps[constraints] = abs(np.linalg.norm(data.xpos[a] - data.xpos[b]) - start)
        model.opt.disableflags &= ~int(D.mjDSBL_EQUALITY)
        nereid.step(model, data)  # and the connection comes back on
    assert gaps["mujoco"] > 1e-3 and gaps["uk"] > 1e-3, gaps


CHANGED = r" \(changed after loading\): "
PASSIVE = (r"with both disabled MuJoCo skips its passive stage, and with it every nereid\.hydrodynamics force; "
           "enable one of them")
# (field, value, how the message names it, what it says); a rollout attaches fresh data,
# whose message names the MJCF attribute and the field: "<option timestep=...> (mjModel.opt.timestep = 0)"
REFUSED = [
    ("timestep", 0.0, r"mjModel\.opt\.timestep = 0", "the time step must be a positive, finite number of seconds"),
    ("timestep", -0.005, r"mjModel\.opt\.timestep = -0\.005", "the time step must be a positive"),
    ("timestep", float("nan"), r"mjModel\.opt\.timestep = nan", "the time step must be a positive"),
    ("timestep", float("inf"), r"mjModel\.opt\.timestep = inf", "the time step must be a positive"),
    ("integrator", 7, r"mjModel\.opt\.integrator = 7", r"not an mjtIntegrator \(mjINT_EULER 0, mjINT_RK4 1"),
    ("integrator", int(I.mjINT_DISCRETE), r"mjModel\.opt\.integrator = mjINT_DISCRETE",
     "MuJoCo's discrete step map is not supported; use integrator euler, rk4, implicit or implicitfast"),
    ("disableflags", int(D.mjDSBL_SPRING | D.mjDSBL_DAMPER), r"mjModel\.opt\.disableflags has mjDSBL_SPRING and "
     "mjDSBL_DAMPER", PASSIVE),
]


@pytest.mark.parametrize("engine", ["nereid", "mujoco"])
@pytest.mark.parametrize("field,value,names,says", REFUSED)
def test_an_option_the_stepper_cannot_honour_is_refused_before_stepping(field, value, names, says, engine):
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    s = nereid.stepper(model, data, engine=engine)
    before = getattr(model.opt, field)
    setattr(model.opt, field, value)
    state = nereid.get_state(model, data)
    for call in (s.step, s.forward):
        with pytest.raises(nereid.Error, match=names + CHANGED + says):
            call()
    with pytest.raises(nereid.Error, match=r"rollout: .*" + names + r"\)?: " + says):
        nereid.rollout(model, data, state, np.zeros((1, model.nu)))
    assert np.array_equal(nereid.get_state(model, data), state)  # nothing stepped
    setattr(model.opt, field, before)  # put back: it steps again
    s.step(2)
    assert data.time > state[0]


@pytest.mark.parametrize("engine", ["nereid", "mujoco"])
def test_a_time_step_longer_than_a_sensors_period_is_refused(engine):
    """The sensor plugins refuse a rate above the physics rate at load; a time step made
    longer afterwards would sample the IMU (100 Hz) once per step, below its rate."""
    model, data = nereid.load(nereid.model_path("bluerov2_heavy_sensors"))
    s = nereid.stepper(model, data, engine=engine)
    model.opt.timestep = 0.01  # 100 Hz: the IMU's rate, one sample per step
    s.step(2)
    model.opt.timestep = 0.02
    time = data.time
    for call in (s.step, s.forward):
        with pytest.raises(nereid.Error, match=r"mjModel\.opt\.timestep = 0\.02" + CHANGED +
                           r"nereid\.imu instance 'imu': rate 100 Hz is above the physics rate 1/timestep = 50 Hz: "
                           "a sensor samples at most once per step"):
            call()
    assert data.time == time  # nothing stepped
    model.opt.timestep = 0.005
    s.step(2)
    assert data.time > time
    # the same time step given when a stepper is made on data made before
    with pytest.raises(nereid.Error, match=r"mjModel\.opt\.timestep = 0\.02\): nereid\.imu instance 'imu': rate "
                       r"100 Hz is above the physics rate 1/timestep = 50 Hz"):
        nereid.Stepper(model, data, engine=engine, timestep=0.02)


DELAYED = """<mujoco><worldbody><body><joint name="j"/><geom size="0.1"/></body></worldbody>
<actuator><motor joint="j" delay="0.01" nsample="4"/></actuator></mujoco>"""


def test_rk4_changed_after_loading_is_refused_with_sleep_or_delays(tmp_path):
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    model.opt.enableflags |= int(E.mjENBL_SLEEP)
    nereid.step(model, data)  # Euler sleeps
    model.opt.integrator = I.mjINT_RK4
    with pytest.raises(nereid.Error, match=r"mjModel\.opt\.integrator = mjINT_RK4 with mjENBL_SLEEP in "
                                           r"mjModel\.opt\.enableflags \(changed after loading\): Nereid's RK4 .* "
                                           "does not support sleeping"):
        nereid.step(model, data)
    path = tmp_path / "delay.xml"
    path.write_text(DELAYED)
    model, data = nereid.load(path)
    model.opt.integrator = I.mjINT_RK4
    with pytest.raises(nereid.Error, match=r"delay\.xml: mjModel\.opt\.integrator = mjINT_RK4 \(changed after "
                                           r"loading\): .* does not support actuator or sensor delays"):
        nereid.step(model, data)
    nereid.Stepper(model, data, engine="mujoco").step()  # MuJoCo's own RK4 keeps the delays


def test_disabling_autoreset_keeps_a_diverged_state():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    model.opt.disableflags |= int(D.mjDSBL_AUTORESET)
    data.qvel[0] = 1e12
    with pytest.raises(nereid.DivergenceError, match=r"the data was not reset \(mjDSBL_AUTORESET\)"):
        nereid.step(model, data)
    assert abs(data.qvel[0]) > 1e10  # stepped on from the bad state, as MuJoCo does with the flag
    model.opt.disableflags &= ~int(D.mjDSBL_AUTORESET)
    with pytest.raises(nereid.DivergenceError, match="MuJoCo reset the data"):
        nereid.step(model, data)
    assert data.qvel[0] == 0
