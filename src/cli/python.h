// Copyright Nereid authors.
// Running the project's Python scripts (plots, the validation report) from the `nereid`
// command line: where the source tree is, a shell command that runs a script, and running a
// tool script (tools/<name>.py) with the nereid package built beside this executable.
#ifndef NEREID_SRC_CLI_PYTHON_H_
#define NEREID_SRC_CLI_PYTHON_H_

#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "nereid/error.h"

namespace nereid::cli {

// The source tree this executable was built from (scripts/, tools/, docs/ live there).
inline std::filesystem::path SourceRoot() { return std::filesystem::path(NEREID_SOURCE_MODEL_DIR).parent_path(); }

// A /bin/sh command running `script` with `args` under $PYTHON (default python3), every
// word single-quoted.
inline std::string PythonCommand(const std::string& script, const std::vector<std::string>& args) {
  auto quote = [](const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  const char* py = std::getenv("PYTHON");
  std::string cmd = quote(py ? py : "python3") + " " + quote(script);
  for (const std::string& a : args) cmd += " " + quote(a);
  return cmd;
}

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

}  // namespace nereid::cli

#endif  // NEREID_SRC_CLI_PYTHON_H_
