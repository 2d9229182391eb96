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
    assert viewer.first_vehicle(model) == "heavy"
    s = nereid.stepper(model, data)
    thrust = np.array(s.drive("heavy", list(w)))
    assert len(thrust) == model.nu
    assert not np.allclose(data.ctrl, 1500)
    nereid.forward(model, data)  # at rest the thrusters give what the allocation asked for
    np.testing.assert_allclose(data.actuator_force, thrust, atol=1e-6)
    with pytest.raises(ValueError, match="no body named 'sub'"):
        s.drive("sub", list(w))
    with pytest.raises(ValueError, match="expected 6 values"):
        s.drive("heavy", [1.0])
