#!/usr/bin/env python3
"""`nereid ros ...`: the ROS 2 bridge (python/nereid/ros.py, docs/ros.md), run by the command
line as its other Python tools are (src/cli/identify.h). Exit status: 0, 1 bad input, 2 usage."""
import sys

try:
    from nereid.ros import main
except ImportError as _e:  # pragma: no cover - the package is not built
    sys.stderr.write(f"nereid: error: ros: cannot import the nereid package: {_e}\n")
    sys.exit(1)

if __name__ == "__main__":
    sys.exit(main())
