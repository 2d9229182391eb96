"""Bad inputs tools/fuzz found (docs/robustness.md): each is a clear error, never a silent
conversion, a huge message, a "wrote ..." on a full disk or an unbounded read.

Python: nereid.rollout with complex or object arrays, or a non-integer nthread;
nereid.reset with a key below -1; nereid.load of a scenario that is a device.
Command line (NEREID_CLI): nereid crosscheck on a full disk; a scenario that is /dev/zero
(run, crosscheck); a 5000-character choice, path or task name echoed whole; bench and
baselines with an --out file that cannot be written (found at the end of the work); a VMS
scenario's 7000-character IK joint name echoed whole."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import nereid

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("NEREID_CLI")
needs_cli = pytest.mark.skipif(not CLI, reason="NEREID_CLI (the nereid executable) not set")


@pytest.fixture
def heavy():
    model, data = nereid.load(nereid.model_path("bluerov2_heavy"))
    data.ctrl[:] = 1500.0
    return model, data


def test_rollout_refuses_complex_and_object_arrays(heavy):
    model, data = heavy
    state = nereid.get_state(model, data)
    control = np.full((5, model.nu), 1500.0)
    with pytest.raises(ValueError, match=r"initial_state: expected real numbers, got an array of dtype complex128"):
        nereid.rollout(model, data, state + 1j, control)  # the imaginary part was dropped with a warning
    with pytest.raises(ValueError, match=r"initial_state: expected real numbers, got an array of dtype object"):
        nereid.rollout(model, data, np.array([None] * state.size, dtype=object), control)  # None became NaN
    with pytest.raises(ValueError, match=r"control: expected real numbers, got an array of dtype complex128"):
        nereid.rollout(model, data, state, control + 0j)


@pytest.mark.parametrize("nthread", [1.5, float("nan"), "2"])
def test_rollout_refuses_a_non_integer_nthread(heavy, nthread):
    model, data = heavy
    state = nereid.get_state(model, data)
    with pytest.raises(TypeError, match=r"rollout: nthread: expected an integer, got"):
        nereid.rollout(model, data, state, np.full((5, model.nu), 1500.0), nthread=nthread)  # 1.5 ran as 1


def test_reset_refuses_a_key_below_minus_one(heavy):
    model, data = heavy
    with pytest.raises(ValueError, match=r"reset: key -2: expected a keyframe index \(0 to 0\), or None"):
        nereid.reset(model, data, -2)  # it reset to the model's defaults without a word
    with pytest.raises(TypeError, match=r"reset: key: expected an integer, got 0.5"):
        nereid.reset(model, data, 0.5)
    nereid.reset(model, data, 0)
    nereid.reset(model, data)


def test_load_refuses_a_scenario_that_is_a_device(tmp_path):
    link = tmp_path / "zero.json"
    os.symlink("/dev/zero", link)
    with pytest.raises(nereid.Error, match=r"zero.json: not a regular file \(a scenario JSON file is expected\)"):
        nereid.load(link)  # read until std::bad_alloc, or all the memory there was


def run(*args, cwd=None):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=120, cwd=cwd,
                          stdin=subprocess.DEVNULL)


@needs_cli
@pytest.mark.parametrize("name", ["report.json", "uk.csv"])
def test_crosscheck_on_a_full_disk_is_an_error_naming_the_file(tmp_path, name):
    out = tmp_path / "out"
    out.mkdir()
    os.symlink("/dev/full", out / name)
    p = run("crosscheck", os.path.join(SOURCE, "scenarios", "crosscheck", "case_a_l1.json"), "--out", str(out),
            "--no-plots")
    assert p.returncode == 1, (p.returncode, p.stdout[-300:], p.stderr[-300:])
    assert f"{name}: write failed: No space left on device" in p.stderr, p.stderr[-300:]
    assert "wrote" not in p.stdout, p.stdout[-300:]  # it said "wrote .../report.json", exit 0
    assert not [f for f in os.listdir(out) if ".tmp." in f], os.listdir(out)


@needs_cli
def test_crosscheck_output_folder_is_checked_before_the_runs(tmp_path):
    (tmp_path / "afile").write_text("x")
    p = run("crosscheck", os.path.join(SOURCE, "scenarios", "crosscheck", "case_a_l1.json"), "--out",
            str(tmp_path / "afile" / "out"), "--no-plots")
    assert p.returncode == 1 and "afile/out: cannot create the output folder: Not a directory" in p.stderr, \
        (p.returncode, p.stderr[-300:])
    assert "connection(s)" not in p.stderr  # refused before the runs started


@needs_cli
@pytest.mark.parametrize("command", ["run", "crosscheck"])
def test_a_scenario_that_is_dev_zero_is_refused(tmp_path, command):
    link = tmp_path / "zero.json"
    os.symlink("/dev/zero", link)
    p = run(command, str(link), "--out", str(tmp_path / "out"))
    assert p.returncode == 1 and "zero.json: not a regular file (a scenario JSON file is expected)" in p.stderr, \
        (p.returncode, p.stderr[-300:])  # was "std::bad_alloc"


@needs_cli
def test_a_scenario_over_64_mib_is_refused(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate((64 << 20) + 1)
    p = run("run", str(big), "--out", str(tmp_path / "out"))
    assert p.returncode == 1 and f"big.json: the scenario file has {(64 << 20) + 1} bytes; at most 64 MiB" in p.stderr, \
        (p.returncode, p.stderr[-300:])


@needs_cli
@pytest.mark.parametrize("args", [["run", "x.json", "--integrator", "y" * 5000],
                                  ["run", "x.json", "--engine", "y" * 5000],
                                  ["baselines", "y" * 5000],
                                  ["run", "x.json", "--record-every", "y" * 5000]])
def test_a_huge_argument_is_echoed_cut(tmp_path, args):
    p = run(*args, cwd=tmp_path)
    message = p.stderr.split("\nusage:\n", 1)[0]
    assert p.returncode in (1, 2) and "yyyyyyyyyy..." in message and len(message) < 400, \
        (p.returncode, len(message), message[:300])


@needs_cli
@pytest.mark.parametrize("command", [["bench", "--steps", "1", "--samples", "1", "--no-rl", "--no-mpc"],
                                     ["baselines", "BlueROV2StationKeeping-v0", "--episodes", "1", "--no-mpc"]])
@pytest.mark.parametrize("where,reason", [("afile/out.json", "cannot create the folder .*afile: Not a directory"),
                                          ("adir", "is a folder; a file name is expected")])
def test_bench_and_baselines_check_their_out_file_before_the_work(tmp_path, command, where, reason):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    p = run(*command, "--out", str(tmp_path / where))
    assert p.returncode == 1 and re.search(re.escape(where) + r" \(--out\): " + reason, p.stderr), \
        (p.returncode, p.stderr[-300:])
    assert p.stdout == "", p.stdout[-300:]  # refused before the benchmarks or episodes ran (it failed at their end)


@needs_cli
def test_baselines_makes_the_folders_of_its_out_file(tmp_path):
    out = tmp_path / "a" / "b" / "report.json"
    p = run("baselines", "BlueROV2StationKeeping-v0", "--episodes", "1", "--no-mpc", "--out", str(out))
    assert p.returncode == 0 and json.loads(out.read_text())["episodes"] == 1, (p.returncode, p.stderr[-300:])


def test_load_refuses_a_nul_character_reference_in_an_include(tmp_path):
    model = tmp_path / "nul.xml"
    model.write_text(f'<mujoco>\n<include file="{nereid.model_path("bluerov")}&#0;.bak"/>\n</mujoco>')
    with pytest.raises(nereid.Error, match=r"nul.xml: line 2: '&#0;' \(a character reference for NUL\) is refused"):
        nereid.load(model)  # the parser cut the path at the NUL: it loaded bluerov.xml


def test_stepper_reset_refuses_a_key_below_minus_one(heavy):
    model, data = heavy
    with pytest.raises(nereid.Error, match=r"reset to keyframe -2: expected a keyframe index >= 0, or -1"):
        nereid.stepper(model, data).reset(-2)  # Simulation::Reset took it for the defaults
    nereid.stepper(model, data).reset(-1)


def test_load_refuses_a_muscle_whose_length_range_simulation_diverges(tmp_path):
    """MuJoCo 3.14's compiler never returns on this model (tools/fuzz/differential.py found
    it): nereid.load raises, in a subprocess bounded in time, and a second load in the same
    process raises the same (MuJoCo's per-thread log state is left as it was)."""
    path = tmp_path / "diverging.xml"
    path.write_text(
        "<mujoco><option integrator='implicitfast'/><worldbody>"
        "<body name='b0' pos='0 0 1' euler='60 30 0'><joint name='j0' type='hinge'/>"
        "<geom type='capsule' fromto='-0.15 0 0 0.15 0 0' size='0.05'/></body>"
        "<body name='b1' pos='1 0 1' euler='79 0 0'><joint type='ball'/>"
        "<geom type='capsule' fromto='-0.15 0 0 0.15 0 0' size='0.05'/></body></worldbody>"
        "<actuator><muscle name='pull' joint='j0'/></actuator>"
        "<equality><weld body1='b0' body2='b1'/></equality></mujoco>")
    code = ("import sys, nereid\n"
            "for _ in range(2):\n"
            "    try:\n"
            "        nereid.load(sys.argv[1])\n"
            "    except nereid.Error as e:\n"
            "        print(e)\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                         timeout=60, env=dict(os.environ))
    lines = out.stdout.strip().splitlines()
    assert out.returncode == 0, out.stderr
    assert len(lines) == 2, out.stdout
    for line in lines:
        assert re.search(r"diverging\.xml: actuator 'pull': MuJoCo's length-range simulation became unstable "
                         r"\(Nan, Inf or huge value in QACC", line), line


@needs_cli
def test_a_huge_ik_joint_name_is_echoed_cut(tmp_path):
    """A VMS scenario whose IK joint is a 7000-character name (tools/fuzz, seed 53): the error
    names the key and an excerpt of the name, not the whole of it."""
    scenario = json.load(open(os.path.join(SOURCE, "scenarios", "vms", "uvmms_spiral_joint1_retuned.json")))
    scenario["model"] = os.path.join(SOURCE, "models", "uvmms", "uvmms.xml")
    scenario["controller"]["ik"][0]["joints"][0] = "arm1_q1" * 1000
    path = tmp_path / "long_ik_joint.json"
    path.write_text(json.dumps(scenario))
    p = run("run", str(path), "--duration", "0.01", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert p.returncode == 1 and "/controller/ik/0/joints/0: joint 'arm1_q1arm1_q1" in p.stderr, p.stderr[:300]
    assert "has no entry in /controller/joints" in p.stderr and len(p.stderr) < 600, (len(p.stderr), p.stderr[:300])
