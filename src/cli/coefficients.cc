// Copyright Nereid authors.
#include "cli/coefficients.h"

#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/arguments.h"
#include "cli/python.h"
#include "nereid/error.h"

namespace nereid::cli {

namespace fs = std::filesystem;

int Coefficients(const std::vector<std::string>& args) {
  std::string input, body, ref, out, write_model, units, frame, damping;
  std::optional<double> rho, scale, submergence, mass, cg_drop;
  std::optional<int> max_panels;
  Parser parser("coefficients");
  CLI::App& app = parser.app();
  AddInput(app, &input, "input");
  app.add_option("--body", body, "the MJCF body to mesh from its geoms");
  app.add_option("--ref", ref, "reference point: x,y,z (m), cb, cg or origin (default cb)");
  app.add_option("--rho", rho, "water density, kg/m^3 (default 1000)");
  app.add_option("--out", out, "write the results as JSON");
  app.add_option("--write-model", write_model, "write a model carrying the coefficients");
  app.add_option("--scale", scale, "multiply the mesh coordinates");
  app.add_option("--units", units, "units of the mesh coordinates: m, cm or mm");
  app.add_option("--frame", frame, "axes of the mesh coordinates: flu (default) or frd");
  app.add_option("--max-panels", max_panels, "panels of the finest refinement (default 2000)");
  app.add_option("--submergence", submergence, "add a free surface this far above the reference point, m");
  app.add_option("--damping", damping, "keep (default) or guess: the model's damping with --write-model");
  app.add_option("--mass", mass, "mass of a model written from a mesh, kg (default: neutrally buoyant)");
  app.add_option("--cg-drop", cg_drop, "centre of gravity this far below the CB in a model written from a mesh, m");
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
  auto text = [&](const char* flag, const std::string& value) {
    if (!value.empty()) script_args.insert(script_args.end(), {flag, value});
  };
  auto number = [&](const char* flag, const auto& value) {
    if (!value) return;
    std::ostringstream os;
    os.precision(17);
    os << *value;
    script_args.insert(script_args.end(), {flag, os.str()});
  };
  text("--body", body);
  text("--ref", ref);
  text("--out", out);
  text("--write-model", write_model);
  text("--units", units);
  text("--frame", frame);
  text("--damping", damping);
  number("--rho", rho);
  number("--scale", scale);
  number("--max-panels", max_panels);
  number("--submergence", submergence);
  number("--mass", mass);
  number("--cg-drop", cg_drop);
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
