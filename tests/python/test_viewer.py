"""python -m nereid.viewer's logic without a window: force arrows, drawing, teleoperation."""
import mujoco
import numpy as np
import pytest

import nereid
from nereid import viewer


def test_force_arrows_show_thrust_damping_buoyancy():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    data.ctrl[:] = 1700.0
    nereid.step(model, data, nstep=100)
    s = nereid.stepper(model, data)
    arrows = viewer.force_arrows(model, data, s, scale=0.02)
    kinds = [k for k, _, _ in arrows]
    assert kinds.count("thrust") == model.nu
    assert kinds.count("buoyancy") == 1 and kinds.count("damping") == 1
    for kind, start, end in arrows:
        if kind == "buoyancy":  # up, 2 cm per newton of the Heavy's buoyancy rho g V
            assert end[2] - start[2] == pytest.approx(0.02 * 1000 * 9.81 * 11.702e-3, rel=1e-6)
        if kind == "thrust":
            assert np.linalg.norm(end - start) > 0
    # damping opposes the vehicle's velocity
    damping = next((s_, e_) for k, s_, e_ in arrows if k == "damping")
    v = data.qvel[:3]
    assert np.dot(damping[1] - damping[0], v) < 0
    scene = mujoco.MjvScene(model, maxgeom=100)
    viewer.draw_arrows(scene, arrows)
    assert scene.ngeom == len(arrows)
    assert scene.geoms[0].type == mujoco.mjtGeom.mjGEOM_ARROW


def test_uk_connection_arrows():
    model, data = nereid.load(nereid.model_path("case_a_l1"), constraints="uk")
    nereid.step(model, data, nstep=50)
    arrows = viewer.force_arrows(model, data, nereid.stepper(model, data))
    assert any(k == "connection" for k, _, _ in arrows)


def test_teleop_drives_through_the_allocation():
    w = np.zeros(6)
    for key in "WWQd":
        w = viewer.teleop_wrench(w, key)
    assert w.tolist() == [2 * viewer.STEP_FORCE, -viewer.STEP_FORCE, 0, 0, 0, viewer.STEP_TORQUE]
    assert viewer.teleop_wrench(w, "x").tolist() == [0] * 6
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    assert viewer.first_vehicle(model) == model.body("heavy").id
    s = nereid.stepper(model, data)
    # by id (a nameless vehicle has only that; the viewer and the ROS bridge drive by id) as by name
    by_id = np.array(s.drive(model.body("heavy").id, list(w)))
    thrust = np.array(s.drive("heavy", list(w)))
    np.testing.assert_array_equal(by_id, thrust)
    assert len(thrust) == model.nu
    assert not np.allclose(data.ctrl, 1500)
    nereid.forward(model, data)  # at rest the thrusters give what the allocation asked for
    np.testing.assert_allclose(data.actuator_force, thrust, atol=1e-6)
    with pytest.raises(ValueError, match="no body named 'sub'"):
        s.drive("sub", list(w))
    with pytest.raises(ValueError, match="expected 6 values"):
        s.drive("heavy", [1.0])
    for bad in (0, model.nbody, 2**70):  # the world, one past the last body, beyond C's int
        with pytest.raises(ValueError, match=f"body id {bad} is not a body of the model .1..{model.nbody - 1}."):
            s.drive(bad, list(w))
    # a NumPy integer is an id; a bool is not one (Python would read True as body 1)
    np.testing.assert_array_equal(s.drive(np.int64(model.body("heavy").id), list(w)), thrust)
    for bad, kind in ((True, "bool"), (1.0, "float"), (None, "NoneType")):
        with pytest.raises(TypeError, match=f"body must be a body name .str. or a body id .int., not {kind}"):
            s.drive(bad, list(w))


def test_actuators_with_zero_or_several_controls_before_the_thrusters(heavy_behind_multi_control_actuators):
    """MuJoCo 3.14: an orientation servo takes 3 controls and has 3 force outputs, a <pid
    input="pos vel ff"> takes 3 controls and a <dcmotor input="none"> none, so the Heavy's
    thrusters after them are actuators 3-10 with controls 6-13 and force outputs 5-12. The
    viewer's arrows and the ROS bridge's vehicle go by actuator and by actuator_ctrladr
    (tools/replay.py: test_replay.py)."""
    from nereid import ros
    model = heavy_behind_multi_control_actuators
    assert (model.nu, model.nactuator, model.nout) == (14, 11, 13)
    data = nereid.make_data(model)
    data.ctrl[6:] = 1700.0
    nereid.forward(model, data)
    arrows = viewer.force_arrows(model, data, nereid.stepper(model, data), scale=0.02)
    assert [k for k, _, _ in arrows].count("thrust") == 8
    vehicle = ros.Vehicle(model, mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "heavy"))
    assert vehicle.thrusters == list(range(3, 11))
    assert vehicle.thruster_ctrl == list(range(6, 14))
    assert vehicle.thruster_out == list(range(5, 13))
    arm = ros.Vehicle(model, mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "arm"))
    assert arm.joint_actuators == []  # neither the 3-control pid nor the 0-control motor
    # each thruster's arrow: its own force (output 5 + j), 2 cm per newton
    lengths = [np.linalg.norm(end - start) for kind, start, end in arrows if kind == "thrust"]
    assert lengths == pytest.approx([0.02 * abs(f) for f in data.actuator_force[5:13]], rel=1e-12)
    assert min(lengths) > 0
