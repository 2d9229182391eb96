"""docs/python.md's examples run as written: its ```python blocks, in order, in one namespace."""
import os
import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_python_md_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 6
    namespace = {}
    for i, code in enumerate(blocks):
        try:
            exec(compile(code, f"{DOC.name} block {i}", "exec"), namespace)
        except Exception as e:  # name the block that broke
            raise AssertionError(f"docs/python.md block {i} failed: {e!r}\n{code}") from e
    # what the blocks promise
    assert namespace["state"].shape[:2] == (8, 50)
    if os.environ.get("MUJOCO_GL"):
        assert namespace["pixels"].shape == (120, 160, 3)
        assert namespace["frame"].shape == (120, 160, 3)
