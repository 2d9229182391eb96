"""nereid.ros, the ROS 2 bridge (docs/ros.md): the bridge in a subprocess, this process a ROS 2
client over Fast DDS on localhost (a domain id of its own per run). Odometry at its rate,
thruster and wrench commands applied, malformed commands ignored, a client that disappears,
lock-step equal to nereid.step with the same commands, the ENU/FLU frames, sensors, bad
input and a missing rclpy. The ROS packages are requirements-ros.txt's (scripts/bootstrap.sh
installs them; NEREID_SKIP_ROS=1 skips these tests, CI never does)."""
import math
import os
import subprocess
import sys
import textwrap
import threading
import time

import mujoco
import numpy as np
import pytest

import nereid
from nereid import logs, ros

try:
    import rclpy
    HAVE_ROS = True
except ImportError:
    HAVE_ROS = False

SKIP_REASON = ("ROS 2 wheels not installed (pip install -r requirements-ros.txt; scripts/bootstrap.sh installs "
               "them unless NEREID_SKIP_ROS=1)")
CI_MUST_RUN = bool(os.environ.get("CI")) and os.environ.get("NEREID_SKIP_ROS") != "1"


def test_ros_installed_where_ci_needs_it():
    """CI runs these tests: there a missing rclpy is a failure that says so, not a skip."""
    if not CI_MUST_RUN:
        pytest.skip("not CI (or NEREID_SKIP_ROS=1)")
    assert HAVE_ROS, "CI without rclpy: " + SKIP_REASON


needs_ros = pytest.mark.skipif(not HAVE_ROS, reason=SKIP_REASON)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEAVY = nereid.model_path("bluerov2_heavy")
DOMAIN = str(1 + os.getpid() % 100)
ENV = dict(os.environ, RMW_IMPLEMENTATION="rmw_fastrtps_cpp", ROS_DOMAIN_ID=DOMAIN,
           ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST", ROS_LOCALHOST_ONLY="1", PYTHONUNBUFFERED="1")
os.environ.update({k: ENV[k] for k in ("RMW_IMPLEMENTATION", "ROS_DOMAIN_ID", "ROS_AUTOMATIC_DISCOVERY_RANGE",
                                       "ROS_LOCALHOST_ONLY")})
NS = "/nereid/heavy/"


@pytest.fixture(scope="module", autouse=True)
def ros_context():
    """rclpy's context of this process's clients, shut down when the module is done."""
    yield
    if HAVE_ROS:
        rclpy.try_shutdown()


def start_bridge(*args, path=HEAVY):
    return subprocess.Popen([sys.executable, "-m", "nereid.ros", str(path), *map(str, args)], env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
    try:
        out, _ = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return out


class Client:
    """A ROS 2 node in this process, spun in a thread; keeps every message per topic."""

    def __init__(self, name):
        from rclpy.executors import SingleThreadedExecutor
        if not rclpy.ok():
            rclpy.init()
        self.node = rclpy.create_node(name)
        self.msgs = {}
        self.lock = threading.Lock()
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def listen(self, msg_type, topic, qos):
        self.msgs[topic] = []

        def keep(msg):
            with self.lock:
                self.msgs[topic].append((time.monotonic(), msg))
        self.node.create_subscription(msg_type, topic, keep, qos)

    def got(self, topic):
        with self.lock:
            return list(self.msgs[topic])

    def wait(self, what, timeout=15.0):
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if what():
                return True
            time.sleep(0.01)
        return False

    def close(self):
        self.executor.shutdown(timeout_sec=1.0)
        self.thread.join(timeout=2.0)
        self.node.destroy_node()


def sensor_qos():
    from rclpy.qos import qos_profile_sensor_data
    return qos_profile_sensor_data


def reliable():
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    return QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)


def array(values):
    from std_msgs.msg import Float64MultiArray
    return Float64MultiArray(data=[float(v) for v in values])


def stamp(msg):
    return msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec


# ---------------------------------------------------------------------------------------

def test_frames_ned_to_enu():
    """A vehicle heading east in NED (yaw 90 deg), moving forward at 0.5 m/s and descending at
    0.2 m/s, at north 3, east 4, depth 2: in the ENU odometry it sits at (4, 3, -2), its
    orientation is the identity (heading along +x, REP 103), its FLU body velocity is
    (0.5, 0, -0.2); after a step it has moved along +x and down (-z)."""
    model, data = nereid.load(HEAVY)
    yaw = math.pi / 2
    ned = np.array([[3.0, 4.0, 2.0, math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]])
    pose = logs.pose_to_nereid("NED", ned)[0]            # the one conversion (nereid.logs)
    data.qpos[0:7] = pose
    v_flu = logs.body_vector_to_flu("NED", np.array([[0.5, 0.0, 0.2]]))[0]   # FRD w = +0.2: descending
    data.qvel[0:3] = logs.quat_to_matrix(pose[None, 3:7])[0] @ v_flu        # free joint: world linear
    data.qvel[3:6] = 0.0
    p, q, lin, ang = ros.odometry_values(model, data, model.body("heavy").id)
    np.testing.assert_allclose(p, [4.0, 3.0, -2.0], atol=1e-12)
    np.testing.assert_allclose(abs(q[0]), 1.0, atol=1e-12)                # identity (either sign)
    np.testing.assert_allclose(lin, [0.5, 0.0, -0.2], atol=1e-12)
    np.testing.assert_allclose(ang, 0.0, atol=1e-12)
    # a general heading: NED yaw psi is ENU yaw pi/2 - psi
    psi = 0.3
    ned_q = np.array([[0, 0, 0, math.cos(psi / 2), 0, 0, math.sin(psi / 2)]])
    data.qpos[3:7] = logs.pose_to_nereid("NED", ned_q)[0, 3:7]
    _, q, _, _ = ros.odometry_values(model, data, model.body("heavy").id)
    enu_yaw = math.atan2(2 * (q[0] * q[3] + q[1] * q[2]), 1 - 2 * (q[2] ** 2 + q[3] ** 2))
    assert enu_yaw == pytest.approx(math.pi / 2 - psi, abs=1e-12)
    data.qpos[3:7] = pose[3:7]
    nereid.step(model, data, nstep=20)
    p2, _, _, _ = ros.odometry_values(model, data, model.body("heavy").id)
    assert p2[0] - 4.0 > 0.04 and p2[2] + 2.0 < -0.015 and abs(p2[1] - 3.0) < 0.005


def test_nameless_objects_are_named_as_nereid_run_names_them(tmp_path):
    """A vehicle, arm joint and sensor without names get nereid run's names (body1, joint1,
    sensor0: nereid::OutputName), not the enum's spelling ('mjobj_body1' before)."""
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "data")
    path = os.path.join(data, "nameless.xml")
    model, _ = nereid.load(path)
    assert [v.name for v in ros.find_vehicles(model)] == ["body1"]
    # beside a vehicle literally named body1 the nameless one is body1_ (its own topics, as
    # its own trajectory.csv columns below)
    twin = os.path.join(data, "nameless_twin.xml")
    twin_model, _ = nereid.load(twin)
    assert [v.name for v in ros.find_vehicles(twin_model)] == ["body1_", "body1"]
    assert ros._joint_name(model, 1) == "joint1"
    assert ros._name(model, mujoco.mjtObj.mjOBJ_SENSOR, 0) == "sensor0"
    # an id past the model's objects is refused with the range, not named as if it existed
    with pytest.raises(ValueError, match=r"id 1 is not a sensor of the model \(0\.\.0\)"):
        ros._name(model, mujoco.mjtObj.mjOBJ_SENSOR, 1)
    with pytest.raises(ValueError, match=r"id -1 is not a body of the model \(0\.\.2\)"):
        ros._name(model, mujoco.mjtObj.mjOBJ_BODY, -1)
    with pytest.raises(ValueError, match="is not named in outputs"):
        ros._name(model, mujoco.mjtObj.mjOBJ_MESH, 0)
    if not os.environ.get("NEREID_CLI"):
        pytest.skip("NEREID_CLI (the nereid command line) not set: the CLI's columns not compared")
    run = subprocess.run([os.environ["NEREID_CLI"], "run", str(path), "--duration", "0.01",
                          "--out", str(tmp_path / "run")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    header = (tmp_path / "run" / "trajectory.csv").read_text().splitlines()[0].split(",")
    assert {"body1.px", "joint1.q", "sensor0.pressure"} <= set(header)  # the CLI's names
    run = subprocess.run([os.environ["NEREID_CLI"], "run", str(twin), "--duration", "0.01",
                          "--out", str(tmp_path / "twin")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    header = (tmp_path / "twin" / "trajectory.csv").read_text().splitlines()[0].split(",")
    assert {"body1_.px", "body1.px"} <= set(header) and len(header) == len(set(header))


def test_command_checks():
    a, why = ros.check_command([1.0, 2.0], 2, "t")
    assert why is None and list(a) == [1.0, 2.0]
    assert "3 values, expected 2" in ros.check_command([1, 2, 3], 2, "t")[1]
    assert "value 1 is nan" in ros.check_command([1, float("nan")], 2, "t")[1]
    assert "value 0 is inf" in ros.check_command([float("inf"), 0], 2, "t")[1]
    assert "value 1 is 1e+300; expected at most 1e+10" in ros.check_command([0, 1e300], 2, "t")[1]


@pytest.fixture(scope="module")
def live():
    """A real-time bridge (50 Hz) on the Heavy and a client subscribed to its topics."""
    from nav_msgs.msg import Odometry
    from rosgraph_msgs.msg import Clock
    from std_msgs.msg import Float64MultiArray
    proc = start_bridge("--rate", 50, "--duration", 60)
    client = Client("test_client")
    client.listen(Odometry, NS + "odom", sensor_qos())
    client.listen(Float64MultiArray, NS + "thrusters/state", sensor_qos())
    client.listen(Clock, "/clock", sensor_qos())
    assert client.wait(lambda: len(client.got(NS + "odom")) > 5), stop(proc)
    yield proc, client
    client.close()
    out = stop(proc)
    print(out)


@needs_ros
def test_odometry_rate(live):
    """Odometry at 50 Hz of simulated time in real time: over 2 s of wall time 100 +- 10
    messages arrive, consecutive stamps 0.02 s apart; /clock runs with them."""
    proc, client = live
    n0 = len(client.got(NS + "odom"))
    time.sleep(2.0)
    got = client.got(NS + "odom")
    assert 90 <= len(got) - n0 <= 110
    stamps = np.array([stamp(m) for _, m in got[n0:]])
    assert np.median(np.diff(stamps)) == pytest.approx(0.02, abs=1e-9)
    assert len(client.got("/clock")) > 50
    assert proc.poll() is None


@needs_ros
def test_thruster_commands_and_malformed(live):
    """A malformed command (wrong length, NaN, infinite) is ignored with a warning and never
    applied; a valid one is: the thruster state reports the commands and their thrusts."""
    from geometry_msgs.msg import WrenchStamped
    proc, client = live
    pub = client.node.create_publisher(Float64MultiArrayType(), NS + "thrusters/command", reliable())
    assert client.wait(lambda: pub.get_subscription_count() > 0)
    for bad in ([1700.0] * 7, [1700.0] * 7 + [float("nan")], [float("inf")] + [1700.0] * 7, [1e300] * 8):
        pub.publish(array(bad))
    time.sleep(0.3)
    state = client.got(NS + "thrusters/state")[-1][1].data
    assert list(state[:8]) == [1500.0] * 8                       # neutral still
    cmd = [1500.0, 1500.0, 1500.0, 1500.0, 1700.0, 1300.0, 1300.0, 1700.0]
    pub.publish(array(cmd))
    assert client.wait(lambda: list(client.got(NS + "thrusters/state")[-1][1].data[:8]) == cmd, 3.0)
    thrust = client.got(NS + "thrusters/state")[-1][1].data[8:]
    assert thrust[4] > 5.0 and thrust[5] < -5.0                # T200 at 1700 / 1300 us
    # a body wrench through the thrust allocation: surge force, the Heavy speeds up along +x (FLU)
    wpub = client.node.create_publisher(WrenchStamped, NS + "wrench", reliable())
    assert client.wait(lambda: wpub.get_subscription_count() > 0)
    w = WrenchStamped()
    w.wrench.force.x = 30.0
    wpub.publish(w)
    time.sleep(1.5)
    u = client.got(NS + "odom")[-1][1].twist.twist.linear.x
    assert u > 0.2
    w.wrench.force.x = float("nan")
    wpub.publish(w)
    pub.publish(array([1500.0] * 8))
    time.sleep(0.3)
    assert proc.poll() is None


def Float64MultiArrayType():
    from std_msgs.msg import Float64MultiArray
    return Float64MultiArray


@needs_ros
def test_client_disappearing(live):
    """A second client process subscribes, publishes commands and is killed without a
    goodbye: the bridge goes on publishing (the first client keeps receiving)."""
    proc, client = live
    code = textwrap.dedent(f"""
        import os, time, rclpy
        from std_msgs.msg import Float64MultiArray
        from nav_msgs.msg import Odometry
        from rclpy.qos import qos_profile_sensor_data
        rclpy.init(); n = rclpy.create_node("doomed")
        n.create_subscription(Odometry, "{NS}odom", lambda m: None, qos_profile_sensor_data)
        p = n.create_publisher(Float64MultiArray, "{NS}thrusters/command", 10)
        t0 = time.time()
        while time.time() - t0 < 1.5:
            p.publish(Float64MultiArray(data=[1500.0] * 8)); rclpy.spin_once(n, timeout_sec=0.05)
        os._exit(0)
    """)
    doomed = subprocess.run([sys.executable, "-c", code], env=ENV, timeout=30, capture_output=True, text=True)
    assert doomed.returncode == 0, doomed.stderr
    n0 = len(client.got(NS + "odom"))
    time.sleep(1.0)
    assert len(client.got(NS + "odom")) - n0 > 35
    assert proc.poll() is None


@needs_ros
def test_lockstep_equals_nereid_step():
    """Lock-step at 20 Hz: the client sends 20 varying thruster commands, one per control
    period after each odometry; the bridge's last odometry equals nereid.step's with the same
    commands, through the same conversion, to 1e-12."""
    from nav_msgs.msg import Odometry
    from std_msgs.msg import Float64MultiArray
    proc = start_bridge("--lockstep", "--rate", 20, "--namespace", "ls")
    client = Client("lockstep_client")
    topic = "/ls/heavy/odom"
    client.listen(Odometry, topic, reliable())
    pub = client.node.create_publisher(Float64MultiArray, "/ls/heavy/thrusters/command", reliable())
    try:
        assert client.wait(lambda: pub.get_subscription_count() > 0 and client.node.count_publishers(topic) > 0), \
            stop(proc)
        time.sleep(0.5)
        k = np.arange(8)
        cmds = [1500.0 + 250.0 * np.sin(0.4 * i + k) for i in range(20)]
        for i, c in enumerate(cmds):
            pub.publish(array(c))
            assert client.wait(lambda: any(abs(stamp(m) - 0.05 * (i + 1)) < 1e-6 for _, m in client.got(topic)), 10), \
                stop(proc)
        last = [m for _, m in client.got(topic) if abs(stamp(m) - 1.0) < 1e-6][0]
    finally:
        client.close()
        out = stop(proc)
    model, data = nereid.load(HEAVY)
    for c in cmds:
        data.ctrl[:] = c
        nereid.step(model, data, nstep=10)
    p, q, lin, ang = ros.odometry_values(model, data, model.body("heavy").id)
    pp = last.pose.pose
    got = [pp.position.x, pp.position.y, pp.position.z, pp.orientation.w, pp.orientation.x, pp.orientation.y,
           pp.orientation.z]
    np.testing.assert_allclose(got, np.concatenate([p, q]), rtol=0, atol=1e-12)
    tw = last.twist.twist
    np.testing.assert_allclose([tw.linear.x, tw.linear.y, tw.linear.z, tw.angular.x, tw.angular.y, tw.angular.z],
                               np.concatenate([lin, ang]), rtol=0, atol=1e-12)
    assert np.linalg.norm(p - [0.0, 0.0, -2.0]) > 0.01, "the commands moved the vehicle"
    assert "mode lockstep" in out


@needs_ros
def test_sensors(tmp_path):
    """The Heavy with a Bar30 and an IMU (Nereid's sensor plugins, noise off), 0.5 s in fast
    mode recorded to MCAP: FluidPressure is p_atm + rho g depth at the sensor (about 2 m),
    the Imu's specific force about +g up at rest, its orientation flagged unknown."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory
    xml = tmp_path / "heavy_sensors.xml"
    xml.write_text(f"""<mujoco><include file="{HEAVY}"/>
      <extension>
        <plugin plugin="nereid.pressure"><instance name="bar30"><config key="site" value="bar30"/>
          <config key="fluid_density" value="1000"/></instance></plugin>
        <plugin plugin="nereid.imu"><instance name="imu"><config key="site" value="imu"/></instance></plugin>
      </extension>
      <sensor><plugin name="bar30" instance="bar30"/><plugin name="imu" instance="imu"/></sensor></mujoco>""")
    out = tmp_path / "sensors.mcap"
    r = subprocess.run([sys.executable, "-m", "nereid.ros", str(xml), "--mode", "fast", "--rate", "20", "--duration",
                        "0.5", "--namespace", "sens", "--mcap", str(out)], env=dict(ENV, NEREID_EXACT_SENSORS="1"),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    got = {}
    with open(out, "rb") as f:
        for _, ch, _, d in make_reader(f, decoder_factories=[DecoderFactory()]).iter_decoded_messages():
            got.setdefault(ch.topic, []).append(d)
    assert len(got["/sens/heavy/bar30"]) == len(got["/sens/heavy/imu"]) == 11
    p = got["/sens/heavy/bar30"][-1]
    assert p.header.frame_id == "heavy/bar30"
    assert 101325 + 1000 * 9.81 * 1.7 < p.fluid_pressure < 101325 + 1000 * 9.81 * 2.3   # about 2 m deep
    imu = got["/sens/heavy/imu"][-1]
    assert imu.linear_acceleration.z == pytest.approx(9.81, abs=0.5)
    assert imu.orientation_covariance[0] == -1.0


def run_main(capsys, *args):
    """The bridge's command line in this process: bad input is refused before any ROS node."""
    code = ros.main([str(a) for a in args])
    return code, capsys.readouterr().err


@needs_ros
def test_bad_input(tmp_path, capsys):
    code, err = run_main(capsys, HEAVY, "--rate", 500)
    assert code == 1 and "above the physics rate 200 Hz" in err
    code, err = run_main(capsys, HEAVY, "--vehicle", "nope")
    assert code == 1 and "no vehicle of that name (its vehicles: heavy)" in err
    code, err = run_main(capsys, tmp_path / "missing.xml")
    assert code == 1 and "missing.xml" in err
    for flag, value in (("--rate", "nan"), ("--rate", "0"), ("--speed", "-1"), ("--duration", "inf")):
        code, err = run_main(capsys, HEAVY, flag, value)
        assert code == 1 and f"{flag} {value}" in err
    for ns in ("a b", "ä", "1x", "a//b"):
        code, err = run_main(capsys, HEAVY, "--namespace", ns)
        assert code == 1 and f"--namespace '{ns}'" in err
    assert ros.ros_token("arm-1.link") == "arm_1_link" and ros.ros_token("2nd") == "_2nd"
    with pytest.raises(SystemExit) as e:          # usage errors: exit 2, the message before the usage
        ros.main([HEAVY, "--duration", "1_000"])
    assert e.value.code == 2 and capsys.readouterr().err.startswith("nereid: ros: argument --duration: '1_000'")
    for flag in ("--duration", "--rate", "--speed"):  # other scripts' digits: float() reads '\u0661' as 1
        with pytest.raises(SystemExit) as e:
            ros.main([HEAVY, flag, "\u0661"])
        assert e.value.code == 2
        assert capsys.readouterr().err.startswith(f"nereid: ros: argument {flag}: '\u0661' is not a number")


def test_missing_rclpy(monkeypatch, capsys):
    """Without ROS 2's Python packages the bridge says how to install them and exits 1."""
    monkeypatch.setitem(sys.modules, "rclpy", None)       # import rclpy -> ImportError
    code, err = run_main(capsys, HEAVY)
    assert code == 1
    assert "pip install -r requirements-ros.txt" in err and "nereid[ros]" in err


@needs_ros
def test_mcap_recording(tmp_path):
    """--mcap in fast mode for 1 s at 50 Hz: 51 odometry, clock and thruster-state messages in
    the file (ROS 2 profile, decoded through its own schemas by mcap-ros2-support), log times
    the simulated times, the last pose nereid.step's to 1e-12."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory
    out = tmp_path / "run.mcap"
    r = subprocess.run([sys.executable, "-m", "nereid.ros", HEAVY, "--mode", "fast", "--duration", "1",
                        "--namespace", "rec", "--mcap", str(out)], env=ENV, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "recorded 153 messages" in r.stderr
    msgs = {}
    with open(out, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        assert reader.get_header().profile == "ros2"
        for schema, channel, message, decoded in reader.iter_decoded_messages():
            msgs.setdefault(channel.topic, []).append((schema, message, decoded))
    assert {k: len(v) for k, v in msgs.items()} == {"/clock": 51, "/rec/heavy/odom": 51,
                                                    "/rec/heavy/thrusters/state": 51}
    odom = msgs["/rec/heavy/odom"]
    assert [m.log_time for _, m, _ in odom] == [20_000_000 * k for k in range(51)]
    assert odom[0][0].name == "nav_msgs/msg/Odometry" and odom[0][0].encoding == "ros2msg"
    model, data = nereid.load(HEAVY)
    nereid.step(model, data, nstep=200)
    p, q, _, _ = ros.odometry_values(model, data, model.body("heavy").id)
    last = odom[-1][2].pose.pose
    np.testing.assert_allclose([last.position.x, last.position.y, last.position.z, last.orientation.w],
                               [p[0], p[1], p[2], q[0]], rtol=0, atol=1e-12)
    assert odom[-1][2].child_frame_id == "heavy/base_link" and odom[-1][2].header.frame_id == "world"


@needs_ros
def test_bad_mcap_path(tmp_path, capsys):
    code, err = run_main(capsys, HEAVY, "--mcap", tmp_path / "no" / "run.mcap")
    assert code == 1 and "does not exist" in err
    code, err = run_main(capsys, HEAVY, "--mcap", tmp_path)
    assert code == 1 and "is a folder" in err


@needs_ros
def test_sensor_messages():
    """The plugins' fields (docs/sensors.md) in the standard messages: a DVL without lock and
    an acoustic fix without a fix flag their covariance -1; the altimeter without a return
    reads +inf (REP 117); the acoustic fix goes into the ENU world as the odometry does."""
    m = ros._sensor_message("nereid.dvl", [0.1, 0.2, 0.3, 1, 2.5] + [0.0] * 8, "v/dvl")
    assert (m.twist.twist.linear.x, m.twist.twist.linear.y, m.twist.twist.linear.z) == (0.1, 0.2, 0.3)
    assert m.twist.covariance[0] == 0.0
    assert ros._sensor_message("nereid.dvl", [0.0] * 13, "v/dvl").twist.covariance[0] == -1.0
    m = ros._sensor_message("nereid.acoustic", [3.0, 4.0, -2.0, 5.4, 0.9, -0.4, 1.0], "v/usbl")
    p = m.pose.pose.position
    assert (p.x, p.y, p.z) == pytest.approx((-4.0, 3.0, -2.0)) and m.header.frame_id == "world"
    assert ros._sensor_message("nereid.acoustic", [0.0] * 7, "v/usbl").pose.covariance[0] == -1.0
    assert ros._sensor_message("nereid.altimeter", [1.5, 1.0], "v/alt").range == 1.5
    assert ros._sensor_message("nereid.altimeter", [-1.0, 0.0], "v/alt").range == math.inf
    assert ros._sensor_message("nereid.pressure", [120000.0, 1.9], "v/p").fluid_pressure == 120000.0


@needs_ros
def test_pause_step_reset():
    """/NS/pause (Bool) stops the clock, /NS/step (UInt32) then advances exactly that many
    control periods, /NS/reset (Empty) puts back the loaded state (t = 0, the start pose)."""
    from nav_msgs.msg import Odometry
    from std_msgs.msg import Bool, Empty, UInt32
    proc = start_bridge("--rate", 50, "--namespace", "ctl", "--duration", 60)
    client = Client("control_client")
    topic = "/ctl/heavy/odom"
    client.listen(Odometry, topic, sensor_qos())
    pause = client.node.create_publisher(Bool, "/ctl/pause", reliable())
    stepper = client.node.create_publisher(UInt32, "/ctl/step", reliable())
    reset = client.node.create_publisher(Empty, "/ctl/reset", reliable())
    thrust = client.node.create_publisher(Float64MultiArrayType(), "/ctl/heavy/thrusters/command", reliable())
    try:
        assert client.wait(lambda: len(client.got(topic)) > 10 and reset.get_subscription_count() > 0), stop(proc)
        thrust.publish(array([1700.0] * 4 + [1500.0] * 4))
        pause.publish(Bool(data=True))
        time.sleep(0.5)
        n = len(client.got(topic))
        t_paused = stamp(client.got(topic)[-1][1])
        time.sleep(0.5)
        assert len(client.got(topic)) == n                           # nothing while paused
        stepper.publish(UInt32(data=3))
        assert client.wait(lambda: len(client.got(topic)) >= n + 3, 5)
        time.sleep(0.3)
        assert [stamp(m) for _, m in client.got(topic)[n:]] == pytest.approx(
            [t_paused + 0.02 * k for k in (1, 2, 3)], abs=1e-9)
        reset.publish(Empty())
        assert client.wait(lambda: stamp(client.got(topic)[-1][1]) == 0.0, 5)
        p = client.got(topic)[-1][1].pose.pose.position
        assert (p.x, p.y, p.z) == (0.0, 0.0, -2.0)
        pause.publish(Bool(data=False))
        assert client.wait(lambda: stamp(client.got(topic)[-1][1]) > 0.2, 5)
    finally:
        client.close()
        out = stop(proc)
    assert "reset to the initial state" in out and "paused" in out


@needs_ros
def test_command_line_and_arm_joints(tmp_path):
    """`nereid ros` through the command line (the nereid package beside the executable) on the
    UVMS (a Heavy with two 6-joint arms, models/uvmms): 0.2 s in fast mode recorded to MCAP
    has the 12 arm joints' states each period; a rate above the physics rate exits 1."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory
    cli = os.environ.get("NEREID_CLI") or os.path.join(ROOT, "build", "nereid")
    if not os.path.exists(cli):
        pytest.skip("no nereid executable (NEREID_CLI)")
    out = tmp_path / "uvmms.mcap"
    r = subprocess.run([cli, "ros", os.path.join(nereid.model_dir(), "uvmms", "uvmms.xml"), "--mode", "fast",
                        "--duration", "0.2", "--mcap", str(out)], env=ENV, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    with open(out, "rb") as f:
        states = [d for _, ch, _, d in make_reader(f, decoder_factories=[DecoderFactory()]).iter_decoded_messages()
                  if ch.topic == "/nereid/heavy/joint_states"]
    assert len(states) == 11 and len(states[-1].name) == 12 and states[-1].name[0] == "arm1_q1"
    assert len(states[-1].position) == len(states[-1].velocity) == len(states[-1].effort) == 12
    r = subprocess.run([cli, "ros", HEAVY, "--rate", "1000"], env=ENV, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "above the physics rate" in r.stderr


@needs_ros
def test_tether_marker(tmp_path):
    """The tethered Heavy (models/bluerov2_heavy_tether, 50 lumped segments): each period a
    LINE_STRIP marker through the segments' origins in the ENU world, starting at the anchor;
    drawing it changes no trajectory (the last odometry equals nereid.step's to 1e-12)."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory
    path = nereid.model_path("bluerov2_heavy_tether")
    out = tmp_path / "tether.mcap"
    r = subprocess.run([sys.executable, "-m", "nereid.ros", path, "--mode", "fast", "--duration", "0.2", "--mcap",
                        str(out)], env=ENV, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    got = {}
    with open(out, "rb") as f:
        for _, ch, _, d in make_reader(f, decoder_factories=[DecoderFactory()]).iter_decoded_messages():
            got.setdefault(ch.topic, []).append(d)
    markers = got["/nereid/tether/marker"]
    assert len(markers) == 11 and markers[-1].type == 4 and len(markers[-1].points) == 50
    model, data = nereid.load(path)
    nereid.step(model, data, nstep=40)
    import mujoco
    mujoco.mj_kinematics(model, data)
    first = logs.pose_from_nereid("ENU", np.array([[*data.xpos[model.body("tether_seg0").id], 1, 0, 0, 0]]))[0]
    pt = markers[-1].points[0]
    np.testing.assert_allclose([pt.x, pt.y, pt.z], first[0:3], atol=1e-12)
    p, _, _, _ = ros.odometry_values(model, data, model.body("heavy").id)
    o = got["/nereid/heavy/odom"][-1].pose.pose.position
    np.testing.assert_allclose([o.x, o.y, o.z], p, rtol=0, atol=1e-12)
