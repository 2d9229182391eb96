"""tools/validate.py on its own (as `nereid validate` runs it, or by hand): an OSError --
an --out or --work that cannot be made or written, a full disk -- is one line on stderr
naming the path and the reason, with a non-zero exit, never a traceback."""
import os
import subprocess
import sys

import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "validate.py")


def validate(*args):
    return subprocess.run([sys.executable, SCRIPT, "--nereid", "/bin/false", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("where,reason", [("file", "Not a directory"), ("proc", "No such file or directory")])
def test_an_out_folder_that_cannot_be_made_is_one_line_naming_it(tmp_path, where, reason):
    if where == "file":  # a file used as a folder
        (tmp_path / "file").write_text("")
        out = str(tmp_path / "file" / "report")
    else:
        out = "/proc/nereid-validate-out"
    done = validate("--out", out, "--work", str(tmp_path / "work"))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"validate: {out}") and lines[0].endswith(reason), lines
