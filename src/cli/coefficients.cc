// Copyright Nereid authors.
#include "cli/coefficients.h"

#include <filesystem>
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

  std::vector<std::string> script_args = {input};
  for (std::size_t i = 0; i < flags.size(); ++i) {
    if (values[i]) script_args.insert(script_args.end(), {flags[i].first, *values[i]});
  }
  // (the nereid Python package built beside this executable compiles MJCF bodies)
  const int status = RunPythonTool("coefficients", "coefficients.py", "NEREID_COEFFICIENTS_SCRIPT", script_args);
  return status == 0 ? 0 : 1;
}

}  // namespace nereid::cli
