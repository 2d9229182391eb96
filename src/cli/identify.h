// Copyright Nereid authors.
// `nereid identify tow|rig|free ...` and `nereid replay LOG.csv --model ...`: damping from
// tow tests and free runs, the simulated tow rig, and replay of logged trials against motion
// capture (seed 000 §4.1-4.2; docs/own_vehicle.md, Part 2; formats in docs/logs.md). The
// work is Python (tools/identify.py, tools/replay.py on the nereid package); these forward
// the words after the command to the script, which parses them (argparse: usage errors exit
// 2, bad input exits 1 with a message naming the file, line and column).
#ifndef NEREID_SRC_CLI_IDENTIFY_H_
#define NEREID_SRC_CLI_IDENTIFY_H_

#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/python.h"
#include "nereid/error.h"

namespace nereid::cli {

// Runs tools/<script> (or $<env_script>) with `args` under $PYTHON, the nereid package built
// beside this executable first on PYTHONPATH. Returns the script's status: 0, 1 (bad input)
// or 2 (usage); a script killed by a signal is 1.
inline int RunPythonTool(const std::string& command, const std::string& script_name, const char* env_script,
                         const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  const char* env = std::getenv(env_script);
  const fs::path script = env ? fs::path(env) : SourceRoot() / "tools" / script_name;
  if (!fs::exists(script)) {
    throw ConfigError(script.string() + ": the " + command + " script is missing (set " + env_script + ")");
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::exists(self.parent_path() / "python" / "nereid")) {
    const char* old = std::getenv("PYTHONPATH");
    const std::string path = (self.parent_path() / "python").string() + (old && *old ? std::string(":") + old : "");
    ::setenv("PYTHONPATH", path.c_str(), 1);
  }
  const std::string cmd = PythonCommand(script.string(), args);
  std::cout.flush();
  const int status = std::system(cmd.c_str());
  if (status == -1) throw Error(command + ": cannot start " + cmd + ": " + std::strerror(errno));
  if (WIFSIGNALED(status)) {
    std::cerr << "nereid: error: " << command << ": the script was killed by signal " << WTERMSIG(status) << "\n";
    return 1;
  }
  const int code = WEXITSTATUS(status);
  return code == 0 || code == 2 ? code : 1;
}

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
