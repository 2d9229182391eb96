// Copyright Nereid authors.
#include "cli/coefficients.h"

#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "cli/arguments.h"
#include "cli/python.h"
#include "nereid/error.h"

namespace nereid::cli {

namespace fs = std::filesystem;

int Coefficients(const std::vector<std::string>& args) {
  std::string input;
  // every option goes to the script as written (it checks them): flag -> value
  const std::vector<std::pair<std::string, std::string>> flags = {
      {"--body", "the MJCF body to mesh from its geoms"},
      {"--ref", "reference point: x,y,z (m), cb, cg or origin (default cb)"},
      {"--rho", "water density, kg/m^3 (default 1000)"},
      {"--out", "write the results as JSON"},
      {"--write-model", "write a model carrying the coefficients"},
      {"--scale", "multiply the mesh coordinates"},
      {"--units", "units of the mesh coordinates: m, cm or mm"},
      {"--frame", "axes of the mesh coordinates: flu (default) or frd"},
      {"--max-panels", "panels of the finest refinement (default 2000, at most 6000)"},
      {"--submergence", "add a free surface this far above the reference point, m"},
      {"--damping", "keep (default) or guess: the model's damping with --write-model"},
      {"--mass", "mass of a model written from a mesh, kg (default: neutrally buoyant)"},
      {"--cg-drop", "centre of gravity this far below the CB in a model written from a mesh, m"}};
  std::vector<std::optional<std::string>> values(flags.size());
  Parser parser("coefficients");
  CLI::App& app = parser.app();
  AddInput(app, &input, "input");
  for (std::size_t i = 0; i < flags.size(); ++i) app.add_option(flags[i].first, values[i], flags[i].second);
  parser.Parse(args);
  if (input.empty()) throw Usage{"coefficients needs a MESH (.stl, .obj) or MODEL.xml"};
  std::error_code exists_error;
  if (!fs::exists(input, exists_error)) {
    throw ConfigError((input.size() > 200 ? input.substr(0, 200) + "..." : input) + ": no such file" +
                      (exists_error ? " (" + exists_error.message() + ")" : ""));
  }

  const fs::path root = SourceRoot();
  const char* env_script = std::getenv("NEREID_COEFFICIENTS_SCRIPT");
  const fs::path script = env_script ? fs::path(env_script) : root / "tools" / "coefficients.py";
  if (!fs::exists(script)) {
    throw ConfigError(script.string() + ": the coefficients script is missing (set NEREID_COEFFICIENTS_SCRIPT)");
  }
  std::vector<std::string> script_args = {input};
  for (std::size_t i = 0; i < flags.size(); ++i) {
    if (values[i]) script_args.insert(script_args.end(), {flags[i].first, *values[i]});
  }
  // the nereid Python package built beside this executable compiles MJCF bodies
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::exists(self.parent_path() / "python" / "nereid")) {
    const char* old = std::getenv("PYTHONPATH");
    const std::string path = (self.parent_path() / "python").string() + (old && *old ? std::string(":") + old : "");
    ::setenv("PYTHONPATH", path.c_str(), 1);
  }
  const std::string cmd = PythonCommand(script.string(), script_args);
  const int status = std::system(cmd.c_str());
  if (status == -1) throw Error("coefficients: cannot start " + cmd + ": " + std::strerror(errno));
  if (WIFSIGNALED(status)) {
    std::cerr << "nereid: error: coefficients: the script was killed by signal " << WTERMSIG(status) << "\n";
    return 1;
  }
  return WEXITSTATUS(status) == 0 ? 0 : 1;
}

}  // namespace nereid::cli
