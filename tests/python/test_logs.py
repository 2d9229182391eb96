"""nereid.logs: the trial-log and tow-run formats of docs/logs.md, their frames and their errors."""
import math

import numpy as np
import pytest

from nereid import logs

HEADER = "# nereid-log: 1\n# frame: NED\n# command_units: pwm_us\n# marker_offset: 0.1,0.2,0.3\n"


def write(tmp_path, text, name="log.csv"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_streams_at_different_rates(tmp_path):
    text = HEADER + ("t,x,y,z,qw,qx,qy,qz,cmd.thr1,cmd.thr2\n"
                     "0.0,1,2,3,1,0,0,0,1500,1500\n"
                     "0.01,1,2,3,1,0,0,0,,\n"
                     "0.02,,,,,,,,1600,1400\n"
                     "0.03,1.5,2,3,1,0,0,0,,\n")
    log = logs.load_log(write(tmp_path, text))
    np.testing.assert_array_equal(log.pose.t, [0.0, 0.01, 0.03])
    np.testing.assert_array_equal(log.commands.t, [0.0, 0.02])
    np.testing.assert_array_equal(log.commands.values[1], [1600, 1400])
    assert log.names == ("thr1", "thr2") and log.command_units == "pwm_us"
    # NED (n, e, d) = (1, 2, 3) is (1, -2, -3) in Nereid's north-west-up world
    np.testing.assert_allclose(log.pose.values[0, :3], [1, -2, -3])
    # the FRD marker offset is FLU (0.1, -0.2, -0.3)
    np.testing.assert_allclose(log.marker_offset, [0.1, -0.2, -0.3])
    np.testing.assert_allclose(log.body_positions()[0], [0.9, -1.8, -2.7])


@pytest.mark.parametrize("frame", ["NED", "ENU", "NWU"])
def test_frames_round_trip_and_agree(tmp_path, frame):
    """A pose written in any frame reads back as the same Nereid pose; the yaw of a vehicle
    heading north-east is +45 deg in NED (clockwise from north seen from above) and -45 deg
    about Nereid's up axis."""
    yaw_nwu = -math.pi / 4
    q = np.array([math.cos(yaw_nwu / 2), 0, 0, math.sin(yaw_nwu / 2)])
    pose = np.array([[1.0, -2.0, -3.0, *q], [1.1, -2.0, -3.0, *q]])
    path = str(tmp_path / "f.csv")
    logs.write_log(path, [0, 0.1], pose=pose, frame=frame, marker_offset=[0.1, 0.2, 0.3])
    log = logs.load_log(path)
    np.testing.assert_allclose(log.pose.values, pose, atol=1e-6)
    np.testing.assert_allclose(log.marker_offset, [0.1, 0.2, 0.3], atol=1e-9)
    body_x = logs.quat_to_matrix(log.pose.values[:1, 3:7])[0][:, 0]
    np.testing.assert_allclose(body_x, [math.sqrt(0.5), -math.sqrt(0.5), 0], atol=1e-6)  # north-east
    if frame == "NED":
        text = open(path).read().splitlines()
        qw, qz = float(text[-2].split(",")[4]), float(text[-2].split(",")[7])
        assert 2 * math.atan2(qz, qw) == pytest.approx(math.pi / 4, abs=1e-5)


BAD = [
    ("t,x,y,z,qw,qx,qy\n0,1,2,3,1,0,0\n0.1,1,2,3,1,0,0\n", "missing column 'qz'"),
    ("x,y\n1,2\n", "unknown column 'x'" if False else "missing column 't'"),
    ("t,cmd.a\n0,1500\n0,1500\n", "line 7, column 't': 0 does not increase"),
    ("t,cmd.a\n0,1500\n0.1,nan\n", "line 7, column 'cmd.a': 'nan' is not finite"),
    ("t,cmd.a\n0,1500\n", "line 6: a single sample"),
    ("t,cmd.a,cmd.b\n0,1500,0.2\n0.1,1500,0.1\n", "line 6, column 'cmd.b': 0.2 is outside [500, 2500]"),
    ("t,cmd.a,cmd.b\n0,1500,\n0.1,1500,1500\n", "line 6, column 'cmd.b': empty while other command"),
    ("t,speedo\n0,1\n0.1,1\n", "line 5, column 'speedo': unknown column"),
    ("t,x,y,z,qw,qx,qy,qz\n0,1,2,3,2,0,0,0\n0.1,1,2,3,1,0,0,0\n", "line 6, columns 'qw,qx,qy,qz'"),
]


@pytest.mark.parametrize("body,message", BAD)
def test_bad_logs_name_file_line_and_column(tmp_path, body, message):
    path = write(tmp_path, HEADER + body)
    with pytest.raises(logs.LogError) as e:
        logs.load_log(path)
    assert path in str(e.value) and message in str(e.value)


def test_bad_metadata(tmp_path):
    with pytest.raises(logs.LogError, match="line 1: the file must begin with '# nereid-log: 1'"):
        logs.load_log(write(tmp_path, "t,cmd.a\n0,1\n1,1\n"))
    with pytest.raises(logs.LogError, match="mixed units 'pwm_us, normalized'"):
        logs.load_log(write(tmp_path, "# nereid-log: 1\n# command_units: pwm_us, normalized\n"
                                      "t,cmd.a,cmd.b\n0,1500,0\n1,1500,0\n"))
    with pytest.raises(logs.LogError, match="unknown unit 'volts'"):
        logs.load_log(write(tmp_path, "# nereid-log: 1\n# command_units: volts\nt,cmd.a\n0,1\n1,1\n"))
    with pytest.raises(logs.LogError, match="'frame': 'XYZ'"):
        logs.load_log(write(tmp_path, "# nereid-log: 1\n# frame: XYZ\nt,cmd.a\n0,1\n1,1\n"))
    with pytest.raises(logs.LogError, match="cannot read"):
        logs.load_log(str(tmp_path / "absent.csv"))


def test_tow_run_round_trip_and_errors(tmp_path):
    path = str(tmp_path / "run.csv")
    logs.write_tow_run(path, "pitch", [0, 0.1, 0.2], [0.5, 0.5, 0.5], [0.1, 0.2, 0.3],
                       extra_meta={"stationary": "0.05,0.2"})
    run = logs.load_tow_run(path)
    assert run.dof == "pitch" and run.quantity == "moment" and run.stationary == (0.05, 0.2)
    np.testing.assert_array_equal(run.load, [0.1, 0.2, 0.3])
    with pytest.raises(logs.LogError, match="the run is pitch, but surge"):
        logs.load_tow_run(path, dof="surge")
    bad = write(tmp_path, "# nereid-tow: 1\n# dof: surge\nt,speed,moment\n0,1,2\n1,1,2\n", "b.csv")
    with pytest.raises(logs.LogError, match="line 3: missing column 'force' .surge runs record 'force'"):
        logs.load_tow_run(bad)
    bad = write(tmp_path, "# nereid-tow: 1\n# dof: surge\nt,speed,force\n0,1,\n1,1,2\n", "c.csv")
    with pytest.raises(logs.LogError, match="line 4, column 'force': empty"):
        logs.load_tow_run(bad)
