"""Fixtures shared by the Python tests."""
import pytest


def _heavy_behind_multi_control_actuators_spec(tmp_path):
    import mujoco
    import nereid
    path = tmp_path / "multi.xml"
    path.write_text(f"""<mujoco>
  <worldbody><site name="reference" pos="-4 0 -1"/>
    <body name="float" pos="-4 0 -1"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
      <geom type="box" size="0.1 0.1 0.1" contype="0" conaffinity="0"/><site name="float_site"/></body>
    <body name="arm" pos="4 0 -1"><joint name="hinge" axis="0 0 1" damping="1"/>
    <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
    <geom type="box" size="0.1 0.1 0.1" contype="0" conaffinity="0"/></body></worldbody>
  <actuator><orientation name="gimbal" site="float_site" refsite="reference" kp="1"/>
    <pid name="arm_pid" joint="hinge" kp="5" input="pos vel ff"/>
    <dcmotor name="idle" joint="hinge" input="none" motorconst="0.01" resistance="1"/></actuator>
  <include file="{nereid.model_path('bluerov2_heavy')}"/>
</mujoco>""")
    spec = mujoco.MjSpec.from_file(str(path))
    for key in list(spec.keys):
        spec.delete(key)
    return spec


@pytest.fixture
def heavy_behind_multi_control_actuators(tmp_path):
    """The Heavy behind three MuJoCo 3.14 actuators: an orientation servo (3 controls, 3
    force outputs), a <pid input="pos vel ff"> (3 controls) and a <dcmotor input="none">
    (no control), so that its thrusters are actuators 3-10 with controls 6-13 and force
    outputs 5-12; a free body (the servo's float) comes before the Heavy. The Heavy's
    keyframe (sized for its own qpos and controls) is left out. Compiled for Nereid's engine
    (nereid.engine_scope)."""
    import nereid
    spec = _heavy_behind_multi_control_actuators_spec(tmp_path)
    with nereid.engine_scope():
        return spec.compile()


@pytest.fixture
def heavy_behind_multi_control_actuators_xml(tmp_path):
    """The same model as one MJCF file (the Heavy's coefficients in it), for the tools that
    take a path."""
    import nereid
    spec = _heavy_behind_multi_control_actuators_spec(tmp_path)
    path = tmp_path / "multi_flat.xml"
    with nereid.engine_scope():  # to_xml compiles the spec
        path.write_text(spec.to_xml())
    return str(path)
