"""The `nereid` console command of the pip package: runs the packaged command line.

`pip install .` puts the C++ command line in nereid/bin/nereid beside the libraries, models,
scenarios and validation scripts; this entry point runs it with the package's models
(NEREID_MODEL_DIR), its validation, identify and replay scripts (NEREID_VALIDATE_SCRIPT,
NEREID_IDENTIFY_SCRIPT, NEREID_REPLAY_SCRIPT) and this Python. As the
package folder is no place for a report, `nereid validate` writes ./validation unless given
--out. The exit status is the command line's (README.md, "Exit status").
"""
import os
import sys


def main():
    pkg = os.path.dirname(os.path.abspath(__file__))
    exe = os.path.join(pkg, "bin", "nereid")
    if not os.path.isfile(exe):
        sys.stderr.write(f"nereid: error: no command-line program in {pkg}/bin: this is the build tree's "
                         "package; run build/nereid, or pip install the package\n")
        return 1
    from . import model_dir
    env = dict(os.environ)
    env.setdefault("NEREID_MODEL_DIR", model_dir())
    env.setdefault("NEREID_VALIDATE_SCRIPT", os.path.join(pkg, "tools", "validate.py"))
    env.setdefault("NEREID_IDENTIFY_SCRIPT", os.path.join(pkg, "tools", "identify.py"))
    env.setdefault("NEREID_REPLAY_SCRIPT", os.path.join(pkg, "tools", "replay.py"))
    env.setdefault("PYTHON", sys.executable)
    args = sys.argv[1:]
    if args[:1] == ["validate"] and "--out" not in args:
        args += ["--out", os.path.abspath("validation")]
    os.execve(exe, [exe] + args, env)
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
