"""A ROS 2 bridge over Nereid's Python stepping (docs/ros.md).

    python -m nereid.ros SCENARIO.json|MODEL.xml [--rate 50] [--mode realtime|fast|lockstep]
    nereid ros ...                                  (the same, through the command line)

Loads the input with `nereid.load`, steps it with `nereid.step` and, per vehicle (a body
with a free joint) under /NAMESPACE/VEHICLE/, publishes ground-truth odometry
(nav_msgs/Odometry, REP 103/105: world ENU, body FLU), the thrusters' commands and thrusts
(std_msgs/Float64MultiArray), the joint states of arms (sensor_msgs/JointState) and the
readings of Nereid's sensor plugins, plus /clock (rosgraph_msgs/Clock) in simulated time.
It subscribes to thruster commands (std_msgs/Float64MultiArray, the actuators' own units
or normalised to [-1, 1]), a body wrench (geometry_msgs/WrenchStamped, through the thrust
allocation of `nereid.Stepper.drive`) and joint commands for arms. A command of the wrong
length or with a NaN or infinite value is ignored with a logged warning and never applied.

The world-frame conversion is nereid.logs' one conversion (pose_from_nereid("ENU", ...)):
Nereid's world is north-west-up, ROS's east-north-up; both body frames are FLU.

ROS 2's Python client comes from PyPI wheels (requirements-ros.txt, `pip install
nereid[ros]`); without them the bridge says how to install them and exits 1.
"""
import argparse
import math
import os
import re
import sys
import threading
import time

import numpy as np

INSTALL_HINT = ("nereid ros needs ROS 2's Python client and message packages: "
                "pip install -r requirements-ros.txt (from Nereid's source tree) or pip install 'nereid[ros]'")
MAX_RATE = 10000.0
MAX_COMMAND = 1e10             # nereid.step's bound on a control's size
FRAME_WORLD = "world"          # the ENU world frame (REP 103), origin at Nereid's world origin
SENSOR_PLUGINS = ("nereid.pressure", "nereid.imu", "nereid.dvl", "nereid.acoustic", "nereid.altimeter")


class BridgeError(ValueError):
    """Bad input to the bridge (the command line exits 1 with the message)."""


# ---------------------------------------------------------------------------------------
# Pure helpers (no ROS): what the bridge publishes, from MuJoCo's model and data.

def odometry_values(model, data, body):
    """Ground truth of `body` (id) as ROS odometry: position (3,) and quaternion w x y z (4,)
    in the ENU world, linear and angular velocity (3,), (3,) in the FLU body frame.
    The state is read from qpos and qvel (current after a step, unlike the kinematics):
    a free joint's qvel holds the world linear velocity and the body angular velocity."""
    from .logs import pose_from_nereid, quat_to_matrix
    j = model.body_jntadr[body]
    qa, va = model.jnt_qposadr[j], model.jnt_dofadr[j]
    pose = np.array(data.qpos[qa:qa + 7], dtype=float)
    pose[3:7] /= np.linalg.norm(pose[3:7])
    enu = pose_from_nereid("ENU", pose[None, :])[0]
    rot = quat_to_matrix(pose[None, 3:7])[0]
    return enu[0:3], enu[3:7], rot.T @ data.qvel[va:va + 3], np.array(data.qvel[va + 3:va + 6])


def _name(model, obj, i):
    """An object's name as Nereid's outputs write it (nereid::OutputName in
    include/nereid/object_names.h): its MJCF name, or its kind and id (body1, joint0, sensor2),
    with an underscore more while another object of the kind is named so (body1_ for a nameless
    body 1 beside a body named body1)."""
    from . import _nereid
    return _nereid._output_name(model, int(obj), int(i))


class Vehicle:
    """A free-joint body with its thrusters, arm joints, joint actuators and sensors."""

    def __init__(self, model, body):
        import mujoco
        self.body = body
        self.name = _name(model, mujoco.mjtObj.mjOBJ_BODY, body)
        self.thrusters = []     # actuator ids acting on a site or body of this vehicle
        self.joint_actuators = []
        self.joints = []        # hinge and slide joints of this vehicle
        for j in range(model.njnt):
            if model.body_rootid[model.jnt_bodyid[j]] == body and int(model.jnt_type[j]) in (
                    int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
                self.joints.append(j)
        for a in range(model.nactuator):
            if model.actuator_ctrlnum[a] != 1:
                continue  # commanded by one number each (a <pid input="pos vel"> takes 2 controls)
            trn, obj = int(model.actuator_trntype[a]), model.actuator_trnid[a, 0]
            if trn == int(mujoco.mjtTrn.mjTRN_SITE):
                owner = model.body_rootid[model.site_bodyid[obj]]
            elif trn == int(mujoco.mjtTrn.mjTRN_BODY):
                owner = model.body_rootid[obj]
            elif trn in (int(mujoco.mjtTrn.mjTRN_JOINT), int(mujoco.mjtTrn.mjTRN_JOINTINPARENT)):
                if model.body_rootid[model.jnt_bodyid[obj]] == body and obj in self.joints:
                    self.joint_actuators.append(a)
                continue
            else:
                continue
            if owner == body:
                self.thrusters.append(a)
        # their controls' places in data.ctrl (an actuator before them may take 0 or several)
        self.thruster_ctrl = [int(model.actuator_ctrladr[a]) for a in self.thrusters]
        self.thruster_out = [int(model.actuator_outadr[a]) for a in self.thrusters]  # actuator_force
        self.joint_ctrl = [int(model.actuator_ctrladr[a]) for a in self.joint_actuators]
        self.sensors = []       # (sensor id, plugin name, sensor name)


def find_tethers(model):
    """{tether name: [segment body ids in order]}: nereid.tether's lumped segments, the
    bodies NAME_seg0, NAME_seg1, ... (plugins/tether/tether_expand.cc's names)."""
    import mujoco
    found = {}
    for b in range(model.nbody):
        m = re.fullmatch(r"(.+)_seg(\d+)", mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) or "")
        if m:
            found.setdefault(m.group(1), []).append((int(m.group(2)), b))
    return {name: [b for _, b in sorted(segs)] for name, segs in found.items()}


def find_vehicles(model):
    """The model's vehicles (free bodies on the world). Their names make the topics: distinct,
    since MuJoCo's body names are and _name gives a nameless body a name no other body has."""
    import mujoco
    free = int(mujoco.mjtJoint.mjJNT_FREE)
    return [Vehicle(model, model.jnt_bodyid[j]) for j in range(model.njnt)
            if int(model.jnt_type[j]) == free and model.body_parentid[model.jnt_bodyid[j]] == 0]


def sensor_plugin_names(model):
    """{sensor id: plugin name} for the sensors of Nereid's sensor plugins. MuJoCo's Python
    package does not name a plugin, so each plugin's registry slot is learnt once by compiling
    a probe model with one instance of every sensor plugin."""
    import mujoco
    global _SLOTS
    if _SLOTS is None:
        ext = "".join(f'<plugin plugin="{p}"><instance name="i{k}"><config key="site" value="s"/></instance></plugin>'
                      for k, p in enumerate(SENSOR_PLUGINS))
        sens = "".join(f'<plugin name="p{k}" instance="i{k}"/>' for k in range(len(SENSOR_PLUGINS)))
        xml = (f'<mujoco><extension>{ext}</extension><worldbody><body><freejoint/><geom size=".1"/>'
               f'<site name="s"/></body></worldbody><sensor>{sens}</sensor></mujoco>')
        try:
            probe = mujoco.MjModel.from_xml_string(xml)
            _SLOTS = {int(probe.plugin[k]): p for k, p in enumerate(SENSOR_PLUGINS)}
        except Exception:  # noqa: BLE001 - plugins not registered: no sensors to publish
            _SLOTS = {}
    out = {}
    for s in range(model.nsensor):
        if int(model.sensor_type[s]) == int(mujoco.mjtSensor.mjSENS_PLUGIN):
            slot = int(model.plugin[model.sensor_plugin[s]])
            if slot in _SLOTS:
                out[s] = _SLOTS[slot]
    return out


_SLOTS = None


def _sensor_owner(model, s, vehicles):
    """The vehicle whose body carries the sensor's site (the plugin's `site` key)."""
    import mujoco
    inst = model.sensor_plugin[s]
    start = model.plugin_attradr[inst]
    attrs = bytes(model.plugin_attr[start:]).split(b"\0")
    sites = [a.decode() for a in attrs if a and mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, a.decode()) >= 0]
    for site_name in sites[:1]:
        root = model.body_rootid[model.site_bodyid[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, site_name)]]
        for v in vehicles:
            if v.body == root:
                return v, site_name
    return (vehicles[0], None) if len(vehicles) == 1 else (None, None)


def ros_token(name):
    """A MuJoCo name as a ROS name token: characters other than ASCII letters, digits and '_'
    become '_', and a leading digit gets a '_' before it."""
    t = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return "_" + t if t[:1].isdigit() else t


def check_command(values, size, what):
    """The command as a float array, or a message saying why it is refused."""
    if len(values) != size:
        return None, f"{what}: {len(values)} values, expected {size}; ignored"
    a = np.asarray(values, dtype=float)
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        return None, f"{what}: value {bad[0]} is {a[bad[0]]}; expected finite numbers; ignored"
    huge = np.flatnonzero(np.abs(a) > MAX_COMMAND)
    if huge.size:  # nereid.step refuses such controls (docs/python.md)
        return None, f"{what}: value {huge[0]} is {a[huge[0]]:g}; expected at most {MAX_COMMAND:g} in size; ignored"
    return a, None


# ---------------------------------------------------------------------------------------
# The node.

def _import_ros():
    try:
        import rclpy  # noqa: F401
        from geometry_msgs.msg import WrenchStamped  # noqa: F401
        from nav_msgs.msg import Odometry  # noqa: F401
        from rosgraph_msgs.msg import Clock  # noqa: F401
        from sensor_msgs.msg import JointState  # noqa: F401
        from std_msgs.msg import Float64MultiArray  # noqa: F401
    except ImportError as e:
        raise BridgeError(f"{INSTALL_HINT} ({e})") from None


class Bridge:
    """Steps the model and talks ROS 2. `run()` returns after `duration` simulated seconds
    (forever when 0) or on shutdown."""

    def __init__(self, path, *, rate=50.0, mode="realtime", speed=1.0, namespace="nereid", vehicle=None,
                 duration=0.0, constraints=None, report_every=5.0, mcap=None):
        self.mode, self.speed, self.duration, self.report_every = mode, speed, duration, report_every
        if not (math.isfinite(rate) and 0 < rate <= MAX_RATE):
            raise BridgeError(f"--rate {rate}: expected a publishing rate in (0, {MAX_RATE:g}] Hz")
        if not (math.isfinite(speed) and 0 < speed <= 1000):
            raise BridgeError(f"--speed {speed}: expected a real-time multiple in (0, 1000]")
        if not (math.isfinite(duration) and 0 <= duration <= 1e7):
            raise BridgeError(f"--duration {duration}: expected simulated seconds in [0, 1e7] (0: until stopped)")
        if namespace.strip("/") and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*",
                                                     namespace.strip("/")):
            raise BridgeError(f"--namespace '{namespace[:200]}': expected ROS name tokens (ASCII letters, digits "
                              "and '_', not starting with a digit) separated by '/'")
        _import_ros()
        import mujoco
        from . import load
        self.model, self.data = load(path, constraints=constraints)
        m = self.model
        dt = m.opt.timestep
        if rate > 1.0 / dt * (1 + 1e-9):
            raise BridgeError(f"--rate {rate:g} Hz is above the physics rate {1.0 / dt:g} Hz "
                              f"(time step {dt:g} s of {path})")
        self.nper = max(1, int(round(1.0 / (rate * dt))))
        self.period = self.nper * dt
        self.rate = 1.0 / self.period
        self.namespace = namespace.strip("/")
        self.vehicles = find_vehicles(m)
        if vehicle is not None:
            names = [v.name for v in self.vehicles]
            if vehicle not in names:
                raise BridgeError(f"--vehicle '{vehicle}': {path} has no vehicle of that name "
                                  f"(its vehicles: {', '.join(names) or 'none'})")
            self.vehicles = [v for v in self.vehicles if v.name == vehicle]
        for s, plugin in sensor_plugin_names(m).items():
            owner, _ = _sensor_owner(m, s, self.vehicles)
            if owner is not None:
                owner.sensors.append((s, plugin, _name(m, mujoco.mjtObj.mjOBJ_SENSOR, s)))
        self.tethers = find_tethers(m)
        self.recorder = McapRecorder(mcap) if mcap else None
        self._lock = threading.Lock()
        self._pending = {}          # (vehicle name, kind) -> values, applied before the next period
        self._new_command = threading.Condition(self._lock)
        self._commands_seen = 0
        self._consumed = 0
        self._paused, self._step_requests, self._reset_requested = False, 0, False
        # what a reset restores: MuJoCo's integration state (physics, controls, plugin state)
        self._initial_state = np.empty(mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_INTEGRATION))
        mujoco.mj_getState(m, self.data, self._initial_state, mujoco.mjtState.mjSTATE_INTEGRATION)
        self._make_node()

    # -- ROS objects ---------------------------------------------------------------------
    def _topic(self, vehicle, name):
        """/NAMESPACE/VEHICLE/NAME; a MuJoCo name's characters that ROS names do not allow become '_'."""
        parts = [ros_token(t) for p in (vehicle, name) if p for t in p.split("/")]
        return "/" + "/".join(p for p in [self.namespace] + parts if p)

    def _make_node(self):
        import rclpy
        from geometry_msgs.msg import WrenchStamped
        from nav_msgs.msg import Odometry
        from rclpy.qos import QoSProfile, ReliabilityPolicy, HistoryPolicy, DurabilityPolicy, qos_profile_sensor_data
        from rosgraph_msgs.msg import Clock
        from sensor_msgs.msg import JointState
        from std_msgs.msg import Float64, Float64MultiArray
        if not rclpy.ok():
            rclpy.init()
        self.node = rclpy.create_node("nereid_bridge", namespace="/" + self.namespace if self.namespace else "/")
        self.log = self.node.get_logger()
        reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
        # /clock: keep last 1, reliable (it matches rclcpp's ClockQoS, best effort, and reliable subscribers)
        clock_qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST,
                               durability=DurabilityPolicy.VOLATILE)
        # state topics: best effort (ROS 2's sensor data profile); in lock-step reliable, so that a
        # client waiting for each period's state never misses one (best-effort subscribers still match)
        state = reliable if self.mode == "lockstep" else qos_profile_sensor_data
        self.clock_pub = self.node.create_publisher(Clock, "/clock", clock_qos)
        self.rtf_pub = self.node.create_publisher(Float64, self._topic(None, "real_time_factor"), reliable)
        from std_msgs.msg import Bool, Empty, UInt32
        self.node.create_subscription(Bool, self._topic(None, "pause"), self._on_pause, reliable)
        self.node.create_subscription(UInt32, self._topic(None, "step"), self._on_step, reliable)
        self.node.create_subscription(Empty, self._topic(None, "reset"), self._on_reset, reliable)
        self.pubs = {}
        from visualization_msgs.msg import Marker
        for name in self.tethers:
            self.pubs[("tether", name)] = self.node.create_publisher(Marker, self._topic(name, "marker"), state)
        for v in self.vehicles:
            n = v.name
            self.pubs[(n, "odom")] = self.node.create_publisher(Odometry, self._topic(n, "odom"), state)
            if v.thrusters:
                self.pubs[(n, "thrusters")] = self.node.create_publisher(
                    Float64MultiArray, self._topic(n, "thrusters/state"), state)
                self.node.create_subscription(Float64MultiArray, self._topic(n, "thrusters/command"),
                                              self._on_array(v, "thrusters", len(v.thrusters)), reliable)
                self.node.create_subscription(Float64MultiArray, self._topic(n, "thrusters/command_normalized"),
                                              self._on_array(v, "thrusters_normalized", len(v.thrusters)), reliable)
                self.node.create_subscription(WrenchStamped, self._topic(n, "wrench"), self._on_wrench(v), reliable)
            if v.joints:
                self.pubs[(n, "joints")] = self.node.create_publisher(JointState, self._topic(n, "joint_states"),
                                                                      state)
            if v.joint_actuators:
                self.node.create_subscription(Float64MultiArray, self._topic(n, "joint_commands"),
                                              self._on_array(v, "joints", len(v.joint_actuators)), reliable)
            for s, plugin, sname in v.sensors:
                msg_type = _SENSOR_TYPES[plugin]()
                self.pubs[(n, "sensor", s)] = self.node.create_publisher(msg_type, self._topic(n, sname),
                                                                         state)
                if plugin == "nereid.dvl":
                    self.pubs[(n, "beams", s)] = self.node.create_publisher(
                        Float64MultiArray, self._topic(n, sname + "/beams"), state)

    def _out(self, pub, msg):
        pub.publish(msg)
        if self.recorder is not None:
            self.recorder.write(pub.topic_name, msg, self.data.time)

    def _warn(self, text):
        self.log.warning(text)

    def _on_array(self, vehicle, kind, size):
        topic = {"thrusters": "thrusters/command", "thrusters_normalized": "thrusters/command_normalized",
                 "joints": "joint_commands"}[kind]

        def callback(msg):
            a, why = check_command(list(msg.data), size, self._topic(vehicle.name, topic))
            if why:
                self._warn(why)
                return
            if self.recorder is not None:
                self.recorder.write(self._topic(vehicle.name, topic), msg, self.data.time)
            with self._lock:
                self._pending[(vehicle.name, kind)] = a
                self._commands_seen += 1
                self._new_command.notify_all()
        return callback

    def _on_wrench(self, vehicle):
        def callback(msg):
            w = msg.wrench
            vals = [w.force.x, w.force.y, w.force.z, w.torque.x, w.torque.y, w.torque.z]
            a, why = check_command(vals, 6, self._topic(vehicle.name, "wrench"))
            if why:
                self._warn(why)
                return
            if self.recorder is not None:
                self.recorder.write(self._topic(vehicle.name, "wrench"), msg, self.data.time)
            with self._lock:
                self._pending[(vehicle.name, "wrench")] = a
                self._commands_seen += 1
                self._new_command.notify_all()
        return callback

    # -- stepping ------------------------------------------------------------------------
    def _apply_pending(self):
        from . import stepper
        with self._lock:
            pending, self._pending = self._pending, {}
            self._consumed = self._commands_seen
        m, d = self.model, self.data
        for v in self.vehicles:
            if (v.name, "wrench") in pending:
                try:
                    stepper(m, d).drive(int(v.body), list(pending[(v.name, "wrench")]))
                except ValueError as e:  # e.g. a vehicle whose thrusters are not nereid.thruster
                    self._warn(f"{self._topic(v.name, 'wrench')}: {e}; ignored")
            if (v.name, "thrusters_normalized") in pending:
                lo, hi = m.actuator_ctrlrange[v.thruster_ctrl, 0], m.actuator_ctrlrange[v.thruster_ctrl, 1]
                u = np.clip(pending[(v.name, "thrusters_normalized")], -1.0, 1.0)
                d.ctrl[v.thruster_ctrl] = 0.5 * (lo + hi) + 0.5 * (hi - lo) * u
            if (v.name, "thrusters") in pending:
                d.ctrl[v.thruster_ctrl] = pending[(v.name, "thrusters")]
            if (v.name, "joints") in pending:
                d.ctrl[v.joint_ctrl] = pending[(v.name, "joints")]

    def _stamp(self, stamp):
        """builtin_interfaces/Time of the simulated time (nanoseconds rounded)."""
        ns = int(round(self.data.time * 1e9))
        stamp.sec, stamp.nanosec = ns // 1000000000, ns % 1000000000

    def publish(self):
        from nav_msgs.msg import Odometry
        from rosgraph_msgs.msg import Clock
        from sensor_msgs.msg import JointState
        from std_msgs.msg import Float64MultiArray, MultiArrayDimension
        m, d = self.model, self.data
        clock = Clock()
        self._stamp(clock.clock)
        self._out(self.clock_pub, clock)
        if self.tethers:
            self._publish_tethers()
        for v in self.vehicles:
            p, q, lin, ang = odometry_values(m, d, v.body)
            o = Odometry()
            self._stamp(o.header.stamp)
            o.header.frame_id = FRAME_WORLD
            o.child_frame_id = f"{v.name}/base_link"
            o.pose.pose.position.x, o.pose.pose.position.y, o.pose.pose.position.z = map(float, p)
            q = q / np.linalg.norm(q)
            (o.pose.pose.orientation.w, o.pose.pose.orientation.x,
             o.pose.pose.orientation.y, o.pose.pose.orientation.z) = map(float, q)
            o.twist.twist.linear.x, o.twist.twist.linear.y, o.twist.twist.linear.z = map(float, lin)
            o.twist.twist.angular.x, o.twist.twist.angular.y, o.twist.twist.angular.z = map(float, ang)
            self._out(self.pubs[(v.name, "odom")], o)
            if v.thrusters:
                a = Float64MultiArray()
                n = len(v.thrusters)
                a.layout.dim = [MultiArrayDimension(label="command,thrust", size=2, stride=2 * n),
                                MultiArrayDimension(label="thruster", size=n, stride=n)]
                a.data = [float(x) for x in d.ctrl[v.thruster_ctrl]] + [float(x) for x in d.actuator_force[v.thruster_out]]
                self._out(self.pubs[(v.name, "thrusters")], a)
            if v.joints:
                js = JointState()
                self._stamp(js.header.stamp)
                js.name = [_joint_name(m, j) for j in v.joints]
                js.position = [float(d.qpos[m.jnt_qposadr[j]]) for j in v.joints]
                js.velocity = [float(d.qvel[m.jnt_dofadr[j]]) for j in v.joints]
                js.effort = [float(d.qfrc_actuator[m.jnt_dofadr[j]]) for j in v.joints]
                self._out(self.pubs[(v.name, "joints")], js)
            for s, plugin, sname in v.sensors:
                values = d.sensordata[m.sensor_adr[s]:m.sensor_adr[s] + m.sensor_dim[s]]
                msg = _sensor_message(plugin, values, f"{v.name}/{sname}")
                self._stamp(msg.header.stamp)
                self._out(self.pubs[(v.name, "sensor", s)], msg)
                if plugin == "nereid.dvl":  # per-beam ranges and radial velocities (docs/ros.md)
                    b = Float64MultiArray()
                    b.layout.dim = [MultiArrayDimension(label="range,radial", size=2, stride=8),
                                    MultiArrayDimension(label="beam", size=4, stride=4)]
                    b.data = [float(x) for x in values[5:13]]
                    self._out(self.pubs[(v.name, "beams", s)], b)

    def _publish_tethers(self):
        """Each tether as an RViz line strip through its segments' origins, ENU world."""
        import mujoco
        from geometry_msgs.msg import Point
        from visualization_msgs.msg import Marker
        from .logs import pose_from_nereid
        mujoco.mj_kinematics(self.model, self.data)   # positions of this state (the step's are one step old)
        for name, segs in self.tethers.items():
            pts = np.zeros((len(segs), 7))
            pts[:, 0:3] = self.data.xpos[segs]
            pts[:, 3] = 1.0
            enu = pose_from_nereid("ENU", pts)[:, 0:3]
            mk = Marker()
            self._stamp(mk.header.stamp)
            mk.header.frame_id = FRAME_WORLD
            mk.ns, mk.id, mk.type, mk.action = name, 0, Marker.LINE_STRIP, Marker.ADD
            mk.pose.orientation.w = 1.0
            mk.scale.x = 0.02
            mk.color.r, mk.color.g, mk.color.b, mk.color.a = 1.0, 0.6, 0.0, 1.0
            mk.points = [Point(x=float(x), y=float(y), z=float(z)) for x, y, z in enu]
            self._out(self.pubs[("tether", name)], mk)

    def _wait_for_command(self):
        """Lock-step: block until a command not yet applied arrives (or shutdown)."""
        import rclpy
        waited = 0.0
        with self._lock:
            while self._commands_seen == self._consumed and rclpy.ok():
                self._new_command.wait(timeout=0.5)
                waited += 0.5
                if waited >= self.report_every:
                    self.log.info(f"lock-step: waiting for a command at t = {self.data.time:.3f} s")
                    waited = 0.0

    def _control_pending(self):
        with self._lock:
            return self._paused or self._reset_requested or self._step_requests > 0

    def _control(self):
        """Pause, step and reset (the control topics). Returns True when one control period is
        to be stepped now, False when paused with nothing to step (after a short wait)."""
        import mujoco
        from . import forward
        with self._lock:
            reset, self._reset_requested = self._reset_requested, False
            if reset:
                self._pending = {}
                self._consumed = self._commands_seen
        if reset:
            mujoco.mj_setState(self.model, self.data, self._initial_state, mujoco.mjtState.mjSTATE_INTEGRATION)
            forward(self.model, self.data)
            self.log.info(f"reset to the initial state (t = {self.data.time:g} s)")
            self.publish()
        with self._new_command:
            if self._step_requests > 0:
                self._step_requests -= 1
                return True
            if not self._paused:
                return False
            self._new_command.wait(timeout=0.1)
            return False

    def _on_pause(self, msg):
        with self._lock:
            self._paused = bool(msg.data)
            self._new_command.notify_all()
        self.log.info("paused" if msg.data else "resumed")

    def _on_step(self, msg):
        with self._lock:
            if self._paused:
                self._step_requests += int(msg.data)
                self._new_command.notify_all()
        if not self._paused:
            self._warn(f"{self._topic(None, 'step')}: {msg.data} periods asked while running; ignored (pause first)")

    def _on_reset(self, _msg):
        with self._lock:
            self._reset_requested = True
            self._new_command.notify_all()

    def run(self):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from std_msgs.msg import Float64
        from . import step
        from rclpy.executors import ExternalShutdownException
        executor = SingleThreadedExecutor()
        executor.add_node(self.node)

        def spin():
            try:
                executor.spin()
            except ExternalShutdownException:  # SIGINT/SIGTERM: rclpy shut the context down
                pass
        spinner = threading.Thread(target=spin, daemon=True)
        spinner.start()
        self.log.info(f"{len(self.vehicles)} vehicle(s): " + "; ".join(
            f"{v.name} ({len(v.thrusters)} thrusters, {len(v.joints)} joints, "
            f"{len(v.joint_actuators)} joint actuators, {len(v.sensors)} sensors)"
            for v in self.vehicles) + f"; publishing at {self.rate:g} Hz, mode {self.mode}")
        wall0 = time.monotonic()
        pace_wall, pace_steps = wall0, 0        # real-time pacing restarts after a pause or a reset
        last_report_wall, last_report_steps = wall0, 0
        steps = 0
        try:
            self.publish()
            while rclpy.ok():
                if self.duration and steps * self.period >= self.duration - 1e-9:
                    break
                if self._control_pending():
                    stepping = self._control()
                    pace_wall, pace_steps = time.monotonic(), steps
                    if not stepping:           # paused with nothing to step, or just reset: look again
                        continue
                elif self.mode == "lockstep":
                    self._wait_for_command()
                self._apply_pending()
                step(self.model, self.data, nstep=self.nper)
                steps += 1
                self.publish()
                now = time.monotonic()
                if self.mode == "realtime":
                    target = pace_wall + (steps - pace_steps) * self.period / self.speed
                    if target > now:
                        time.sleep(target - now)
                        now = time.monotonic()
                if now - last_report_wall >= self.report_every:
                    rtf = (steps - last_report_steps) * self.period / (now - last_report_wall)
                    self._out(self.rtf_pub, Float64(data=float(rtf)))
                    self.log.info(f"t = {self.data.time:.2f} s, real-time factor {rtf:.2f}")
                    last_report_wall, last_report_steps = now, steps
        except Exception:  # noqa: BLE001 - a publish racing a signal's shutdown is a normal stop
            if rclpy.ok():
                raise
        finally:
            elapsed = time.monotonic() - wall0
            self.real_time_factor = steps * self.period / elapsed if elapsed > 0 else float("inf")
            print(f"nereid ros: stopped at t = {self.data.time:.3f} s after {steps} periods; "
                  f"real-time factor {self.real_time_factor:.2f}", file=sys.stderr, flush=True)
            executor.shutdown(timeout_sec=1.0)
            spinner.join(timeout=2.0)
            if self.recorder is not None:
                self.recorder.close()
                print(f"nereid ros: recorded {self.recorder.count} messages to {self.recorder.path}", file=sys.stderr)
            self.node.destroy_node()
            rclpy.try_shutdown()


ROS_BUILTIN_TYPES = {"bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
                     "uint32", "int64", "uint64", "string", "wstring"}


def message_definition(type_name):
    """The ros2msg schema text of `type_name` ("nav_msgs/msg/Odometry"): its .msg file
    followed by every type it uses, each after a line of '=' and "MSG: pkg/Type", as
    rosbag2 writes MCAP schemas. The .msg files are found under PREFIX/share/PKG/msg for the
    prefixes of $AMENT_PREFIX_PATH (a ROS installation) and this interpreter's (the wheels')."""
    import site
    prefixes = [p for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    prefixes += [sys.prefix, sys.base_prefix, site.getuserbase()]

    def text(full):
        pkg, _, name = full.split("/")
        for prefix in prefixes:
            path = os.path.join(prefix, "share", pkg, "msg", name + ".msg")
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    return f.read()
        raise BridgeError(f"{full}: no {name}.msg under share/{pkg}/msg of {', '.join(prefixes)}")

    def uses(full, body):
        pkg = full.split("/")[0]
        for line in body.splitlines():
            words = line.split("#")[0].split()
            if len(words) < 2:
                continue
            base = words[0].split("[")[0].split("<=")[0]
            if base in ROS_BUILTIN_TYPES:
                continue
            parts = base.split("/")
            yield f"{parts[0]}/msg/{parts[-1]}" if len(parts) > 1 else f"{pkg}/msg/{base}"

    main_text = text(type_name)
    out, seen, todo = [main_text.rstrip("\n")], {type_name}, list(uses(type_name, main_text))
    while todo:
        full = todo.pop(0)
        if full in seen:
            continue
        seen.add(full)
        body = text(full)
        pkg, _, name = full.split("/")
        out.append("=" * 80 + f"\nMSG: {pkg}/{name}\n" + body.rstrip("\n"))
        todo.extend(uses(full, body))
    return "\n".join(out) + "\n"


class McapRecorder:
    """Writes every message the bridge publishes or receives to an MCAP file (ROS 2 profile:
    CDR messages, ros2msg schemas), stamped with the simulated time, readable by ROS 2's
    tools (rosbag2's MCAP storage) and Foxglove without a ROS installation."""

    def __init__(self, path):
        try:
            from mcap.writer import Writer
        except ImportError as e:
            raise BridgeError(f"--mcap needs the mcap package: pip install -r requirements-ros.txt ({e})") from None
        self.path = str(path)
        parent = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(parent):
            raise BridgeError(f"--mcap {self.path}: the folder {parent} does not exist")
        if os.path.isdir(self.path):
            raise BridgeError(f"--mcap {self.path}: is a folder; expected a file name")
        try:
            self.file = open(self.path, "wb")
        except OSError as e:
            raise BridgeError(f"--mcap {self.path}: cannot write: {e.strerror}") from None
        self.writer = Writer(self.file)
        self.writer.start(profile="ros2", library="nereid")
        self.schemas, self.channels, self.count = {}, {}, 0
        self.lock = threading.Lock()

    def write(self, topic, msg, t):
        from rclpy.serialization import serialize_message
        data = serialize_message(msg)
        ns = int(round(t * 1e9))
        with self.lock:
            if self.writer is None:
                return
            if topic not in self.channels:
                mod = type(msg).__module__.split(".")             # nav_msgs.msg._odometry
                name = f"{mod[0]}/msg/{type(msg).__name__}"
                if name not in self.schemas:
                    self.schemas[name] = self.writer.register_schema(
                        name=name, encoding="ros2msg", data=message_definition(name).encode())
                self.channels[topic] = self.writer.register_channel(
                    topic=topic, message_encoding="cdr", schema_id=self.schemas[name])
            self.writer.add_message(channel_id=self.channels[topic], log_time=ns, publish_time=ns, data=data)
            self.count += 1

    def close(self):
        with self.lock:
            if self.writer is not None:
                self.writer.finish()
                self.file.close()
                self.writer = None


def _joint_name(model, j):
    import mujoco
    return _name(model, mujoco.mjtObj.mjOBJ_JOINT, j)


# ---------------------------------------------------------------------------------------
# Sensor messages (docs/ros.md, "Sensors"): the plugins' fields (docs/sensors.md) in the
# standard messages; frames are the sensor's site (FLU-like MuJoCo frames), the acoustic
# fix's position is turned into the ENU world like the odometry.

def _msg_imu():
    from sensor_msgs.msg import Imu
    return Imu


def _msg_pressure():
    from sensor_msgs.msg import FluidPressure
    return FluidPressure


def _msg_twist():
    from geometry_msgs.msg import TwistWithCovarianceStamped
    return TwistWithCovarianceStamped


def _msg_pose():
    from geometry_msgs.msg import PoseWithCovarianceStamped
    return PoseWithCovarianceStamped


def _msg_range():
    from sensor_msgs.msg import Range
    return Range


_SENSOR_TYPES = {"nereid.imu": _msg_imu, "nereid.pressure": _msg_pressure, "nereid.dvl": _msg_twist,
                 "nereid.acoustic": _msg_pose, "nereid.altimeter": _msg_range}


def _sensor_message(plugin, values, frame):
    v = [float(x) for x in values]
    msg = _SENSOR_TYPES[plugin]()()
    msg.header.frame_id = frame
    if plugin == "nereid.imu":  # acc_xyz, gyro_xyz, heading; orientation unknown: covariance[0] = -1 (REP 145)
        msg.linear_acceleration.x, msg.linear_acceleration.y, msg.linear_acceleration.z = v[0:3]
        msg.angular_velocity.x, msg.angular_velocity.y, msg.angular_velocity.z = v[3:6]
        msg.orientation_covariance[0] = -1.0
    elif plugin == "nereid.pressure":  # pressure (Pa), depth
        msg.fluid_pressure = v[0]
    elif plugin == "nereid.dvl":  # vx vy vz status ...; no lock: covariance[0] = -1
        msg.twist.twist.linear.x, msg.twist.twist.linear.y, msg.twist.twist.linear.z = v[0:3]
        if v[3] == 0.0:
            msg.twist.covariance[0] = -1.0
    elif plugin == "nereid.acoustic":  # x y z (world, Nereid's frame) ... valid
        from .logs import pose_from_nereid
        p = pose_from_nereid("ENU", np.array([[v[0], v[1], v[2], 1.0, 0.0, 0.0, 0.0]]))[0]
        msg.header.frame_id = FRAME_WORLD
        msg.pose.pose.position.x, msg.pose.pose.position.y, msg.pose.pose.position.z = map(float, p[0:3])
        msg.pose.pose.orientation.w = 1.0
        if v[-1] == 0.0:
            msg.pose.covariance[0] = -1.0
    elif plugin == "nereid.altimeter":  # range, valid
        msg.radiation_type = 0  # ULTRASOUND
        msg.range = v[0] if v[1] != 0.0 else float("inf")
    return msg


# ---------------------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    """argparse with Nereid's usage-error form: the message first, then the usage; exit 2."""

    def error(self, message):
        words = " ".join(w if len(w) <= 80 else w[:60] + f"... ({len(w)} chars)" for w in message.split(" "))
        usage = self.format_usage().removeprefix("usage: ")
        sys.stderr.write(f"nereid: ros: {words}\nusage:\n{usage}")
        sys.exit(2)


# ASCII digits only: Python's float() would also take other scripts' digits ('\u0661' is 1)
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(nan|inf)", re.ASCII | re.IGNORECASE)


def _real(text):
    """A decimal number as the C++ command line reads one (no '1_000', no hex); nan and inf
    pass here and are refused by the range checks with the flag's limits."""
    if not _NUMBER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"'{text}' is not a number")
    return float(text)


def main(argv=None):
    p = _Parser(prog="nereid ros", description="ROS 2 bridge: publishes a Nereid simulation's "
                                "clock, odometry, thrusters, joints and sensors; takes thruster, wrench and "
                                "joint commands (docs/ros.md).")
    p.add_argument("input", help="a scenario (.json) or an MJCF model (.xml)")
    p.add_argument("--rate", type=_real, default=50.0, help="publishing and control rate, Hz (default 50; "
                   "at most the physics rate)")
    p.add_argument("--mode", choices=("realtime", "fast", "lockstep"), default="realtime",
                   help="realtime (paced by --speed), fast (as fast as it steps), lockstep (waits for a "
                   "command each control period)")
    p.add_argument("--lockstep", action="store_true", help="the same as --mode lockstep")
    p.add_argument("--speed", type=_real, default=1.0, help="real-time multiple in realtime mode (default 1)")
    p.add_argument("--namespace", default="nereid", help="topic namespace (default nereid)")
    p.add_argument("--vehicle", default=None, help="bridge only this vehicle (a free body's name)")
    p.add_argument("--duration", type=_real, default=0.0, help="stop after this many simulated seconds "
                   "(default 0: until stopped)")
    p.add_argument("--constraints", choices=("mujoco", "uk"), default=None, help="as nereid.load's")
    p.add_argument("--mcap", default=None, metavar="FILE", help="record every published and received message "
                   "to FILE (MCAP, ROS 2 profile, simulated time)")
    args = p.parse_args(argv)
    mode = "lockstep" if args.lockstep else args.mode
    from . import Error
    try:
        bridge = Bridge(args.input, rate=args.rate, mode=mode, speed=args.speed, namespace=args.namespace,
                        vehicle=args.vehicle, duration=args.duration, constraints=args.constraints,
                        mcap=args.mcap)
    except (BridgeError, Error, OSError) as e:
        print(f"nereid: error: ros: {e}", file=sys.stderr)
        return 1
    try:
        bridge.run()
    except KeyboardInterrupt:
        pass
    except Exception as e:  # noqa: BLE001 - a diverging simulation, a MuJoCo error: say it, exit 1
        print(f"nereid: error: ros: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
