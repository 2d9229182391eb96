"""A path holding a NUL character: a clear message naming the path (NUL shown as \\0),
never an empty or cut one. what() is a C string, so the NUL ended every message quoting
the path there -- empty when the path started with it (docs/robustness.md)."""
import json
import os
import re
import subprocess

import pytest

import nereid

RULE = "the path contains a NUL character (at offset {}), which no file name can hold"


@pytest.mark.parametrize("path,offset", [("a\0b.xml", 1), ("\0b.xml", 0), ("a\0b.json", 1)])
def test_load_names_a_path_with_a_nul(path, offset):
    shown = path.replace("\0", "\\0")
    with pytest.raises(nereid.Error) as e:
        nereid.load(path)
    assert str(e.value) == shown + ": " + RULE.format(offset), str(e.value)


def test_load_names_a_nul_after_a_real_model_and_in_a_model_folder():
    real = nereid.model_path("bluerov2_heavy")
    with pytest.raises(nereid.Error, match=re.escape(RULE.format(len(real)))):
        nereid.load(real + "\0.xml")
    with pytest.raises(nereid.Error, match=r"/tmp/\\0x/.*bluerov2_heavy.xml: " + re.escape(RULE.format(5))):
        nereid.BatchEnv("BlueROV2StationKeeping-v0", 1, 1, "/tmp/\0x")


@pytest.mark.parametrize("model,offset", [("\u0000b.xml", 0), ("a\u0000b.xml", 1)])
def test_a_scenario_model_path_with_a_nul(tmp_path, model, offset):
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({"model": model, "duration": 1}))
    with pytest.raises(nereid.Error) as e:
        nereid.load(scenario)
    shown = json.dumps(model)  # as JSON writes it: "a\u0000b.xml"
    assert str(e.value) == f"{scenario}: /model: {RULE.format(offset)} (got {shown})", str(e.value)
    cli = os.environ.get("NEREID_CLI")
    if not cli:
        pytest.skip("NEREID_CLI (the nereid command line) not set")
    done = subprocess.run([cli, "run", str(scenario), "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.startswith(f"nereid: error: {scenario}: /model: the path contains a NUL character "
                                  f"(at offset {offset})"), done.stderr


def test_a_nul_anywhere_in_a_message_is_shown_not_a_cut(tmp_path):
    scenario = tmp_path / "s.json"
    scenario.write_text('{"model": "%s", "dur\\u0000ation": 1}' % nereid.model_path("bluerov2_heavy"))
    with pytest.raises(nereid.Error, match=r"/dur\\0ation: unknown key; did you mean 'duration'\?"):
        nereid.load(scenario)
