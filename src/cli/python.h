// Copyright Nereid authors.
// Running the project's Python scripts (plots, the validation report) from the `nereid`
// command line: where the source tree is, and a shell command that runs a script.
#ifndef NEREID_SRC_CLI_PYTHON_H_
#define NEREID_SRC_CLI_PYTHON_H_

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

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

}  // namespace nereid::cli

#endif  // NEREID_SRC_CLI_PYTHON_H_
