// Copyright Nereid authors.
// `nereid identify tow|rig|free ...` and `nereid replay LOG.csv --model ...`: damping from
// tow tests and free runs, the simulated tow rig, and replay of logged trials against motion
// capture (seed 000 §4.1-4.2; docs/own_vehicle.md, Part 2; formats in docs/logs.md). The
// work is Python (tools/identify.py, tools/replay.py on the nereid package); these forward
// the words after the command to the script, which parses them (argparse: usage errors exit
// 2, bad input exits 1 with a message naming the file, line and column).
#ifndef NEREID_SRC_CLI_IDENTIFY_H_
#define NEREID_SRC_CLI_IDENTIFY_H_

#include <string>
#include <vector>

#include "cli/python.h"

namespace nereid::cli {

inline int Identify(const std::vector<std::string>& args) {
  return RunPythonTool("identify", "identify.py", "NEREID_IDENTIFY_SCRIPT", args);
}

inline int Replay(const std::vector<std::string>& args) {
  return RunPythonTool("replay", "replay.py", "NEREID_REPLAY_SCRIPT", args);
}

// `nereid ros ...`: the ROS 2 bridge (python/nereid/ros.py through tools/ros.py; docs/ros.md).
inline int Ros(const std::vector<std::string>& args) {
  return RunPythonTool("ros", "ros.py", "NEREID_ROS_SCRIPT", args);
}

}  // namespace nereid::cli

#endif  // NEREID_SRC_CLI_IDENTIFY_H_
