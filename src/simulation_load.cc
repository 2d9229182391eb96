// Copyright Nereid authors.
// Loading and compiling: MJCF text checked (mjcf_guard.h), parsed, tethers expanded, compiled
// (recompiled where added-mass bodies were stored "simple"), mjData made inside the engine's
// scope; and Simulation::Attach for models and data made elsewhere.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>

#include "added_mass.h"
#include "length_range.h"
#include "mjcf_guard.h"
#include "nereid/error.h"
#include "nereid/object_names.h"
#include "nereid/plugins.h"
#include "nereid/simulation.h"
#include "nereid/tether.h"

namespace nereid {
namespace {

using Parser = std::function<mjSpec*(char* error, int size)>;

using SpecPtr = std::unique_ptr<mjSpec, decltype(&mj_deleteSpec)>;
using ModelPtr = std::unique_ptr<mjModel, decltype(&mj_deleteModel)>;

// The parsed spec, after the caller's edit, with Nereid's sensors' MuJoCo attributes
// checked (CheckSensorSpecs).
SpecPtr ParseSpec(const Parser& parse, const std::string& name, const SimulationOptions& options,
                  MuJoCoWarnings* warnings) {
  char error[1024] = "";
  mjSpec* parsed = nullptr;
  std::string fatal;
  if (!CallMuJoCo([&] { parsed = parse(error, sizeof(error)); }, warnings, &fatal)) {
    throw LoadError(name + ": MuJoCo error while parsing: " + fatal);
  }
  if (!parsed) throw LoadError(name + ": " + error);
  SpecPtr spec(parsed, mj_deleteSpec);
  if (options.edit) options.edit(spec.get());
  try {
    CheckSensorSpecs(spec.get());
  } catch (const Error& e) {
    throw ConfigError(name + ": " + e.what());
  }
  return spec;
}

// nereid.tether's segment bodies (include/nereid/tether.h); its compiles' warnings are kept
// with the others (its own MuJoCo calls that can fail are guarded inside).
void ExpandTethersOf(mjSpec* spec, const std::string& name, MuJoCoWarnings* warnings) {
  try {
    std::string fatal_error;
    if (!CallMuJoCo([&] { ExpandTethers(spec); }, warnings, &fatal_error)) {
      throw ConfigError("MuJoCo error while expanding tethers: " + fatal_error);
    }
  } catch (const Error& e) {
    throw ConfigError(name + ": " + e.what());
  }
}

// The compiled model; a plugin's refusal is a ConfigError, MuJoCo's own a LoadError.
ModelPtr Compile(mjSpec* spec, const std::string& name, MuJoCoWarnings* warnings) {
  mjModel* model = nullptr;
  std::string fatal_error;
  if (!CallMuJoCo([&] { model = mj_compile(spec, nullptr); }, warnings, &fatal_error)) {
    throw LoadError(name + ": MuJoCo error while compiling: " + fatal_error);
  }
  if (!model) {
    const std::string mujoco = mjs_getError(spec);
    const std::string plugin = TakeLastPluginError();
    if (!plugin.empty()) throw ConfigError(name + ": " + plugin);
    throw LoadError(name + ": " + mujoco);
  }
  return ModelPtr(model, mj_deleteModel);
}

// A NaN or infinite gear is refused: MuJoCo's transmission would fill every dof's column of
// the actuator's moment row (0 x NaN), beyond the room its compiler sized for that row
// (gear is per force output: actuator i's outputs start at actuator_outadr[i]).
void CheckFiniteGears(const mjModel* m, const std::string& name) {
  for (int i = 0; i < static_cast<int>(m->nactuator); ++i) {
    for (int k = 0; k < 6 * m->actuator_outnum[i]; ++k) {
      const mjtNum g = m->actuator_gear[6 * m->actuator_outadr[i] + k];
      if (std::isfinite(g)) continue;
      throw ConfigError(name + ": actuator " + QuotedNameOrId(m, mjOBJ_ACTUATOR, i) + ": gear[" + std::to_string(k) + "] = " +
                        (std::isnan(g) ? "nan" : g > 0 ? "inf" : "-inf") + ": must be finite");
    }
  }
}

// Whether an added-mass body was stored "simple" (only diagonal inertia storage; added mass
// needs the full block): such bodies are marked not simple in the spec, for a recompile.
bool UnsimplifyAddedMassBodies(const mjModel* m, mjSpec* spec, const std::string& name) {
  bool recompile = false;
  try {
    for (AddedMassBody& block : AddedMassLayout(m)) {
      if (FindInertiaEntries(m, &block)) continue;
      mjsBody* body = mjs_findBody(spec, mj_id2name(m, mjOBJ_BODY, block.body));
      if (body) body->simple = 0;
      recompile = true;
    }
  } catch (const Error& e) {
    throw ConfigError(name + ": " + e.what());
  }
  return recompile;
}

// Parses, expands tethers and compiles (recompiling added-mass bodies MuJoCo stored as
// "simple"); the caller owns the model.
mjModel* Load(const Parser& parse, const std::string& name, const SimulationOptions& options,
              MuJoCoWarnings* warnings) {
  std::optional<EngineScope> scope;
  if (options.engine == Engine::kNereid) scope.emplace();
  TakeLastPluginError();
  SpecPtr spec = ParseSpec(parse, name, options, warnings);
  // MuJoCo's actuator length ranges are computed after the compile (length_range.h): a
  // diverging computation inside mj_compile (and the tether expansion's) would never return
  const LengthRangeRequest length_range = TakeLengthRangeRequest(spec.get());
  ExpandTethersOf(spec.get(), name, warnings);
  ModelPtr m = Compile(spec.get(), name, warnings);
  CheckFiniteGears(m.get(), name);
  if (options.engine == Engine::kNereid && UnsimplifyAddedMassBodies(m.get(), spec.get(), name)) {
    m.reset();
    m = Compile(spec.get(), name, warnings);
  }
  spec.reset();
  ComputeLengthRanges(m.get(), length_range, name, warnings);
  return m.release();
}

}  // namespace

mjModel* Simulation::CompileFile(const std::string& path, const SimulationOptions& options,
                                 MuJoCoWarnings* warnings) {
  // a bounded path (MuJoCo's resource lookup is quadratic in its length), to a regular file
  constexpr size_t kMaxPath = 1024;
  CheckNoNul(path);
  if (path.size() > kMaxPath) {
    throw LoadError(Excerpt(path) + ": the model path is " + std::to_string(path.size()) +
                    " characters; at most " + std::to_string(kMaxPath));
  }
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    throw LoadError(path + ": not a regular file (an MJCF model file is expected)");
  }
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::ostringstream text;
      text << in.rdbuf();
      CheckMjcfText(text.str(), path, std::filesystem::path(path).parent_path(), 0);
    }
  }
  MuJoCoWarnings ignored;
  return Load([&](char* error, int size) { return mj_parseXML(path.c_str(), nullptr, error, size); },
              path, options, warnings ? warnings : &ignored);
}

std::unique_ptr<Simulation> Simulation::LoadFile(const std::string& path,
                                                 const SimulationOptions& options) {
  MuJoCoWarnings warnings;
  mjModel* m = CompileFile(path, options, &warnings);
  return std::unique_ptr<Simulation>(new Simulation(m, nullptr, path, options, warnings));
}

std::unique_ptr<Simulation> Simulation::LoadString(const std::string& xml,
                                                   const SimulationOptions& options,
                                                   const std::string& name) {
  CheckMjcfText(xml, name, std::filesystem::current_path(), 0);
  MuJoCoWarnings warnings;
  mjModel* m = Load(
      [&](char* error, int size) { return mj_parseXMLString(xml.c_str(), nullptr, error, size); },
      name, options, &warnings);
  return std::unique_ptr<Simulation>(new Simulation(m, nullptr, name, options, warnings));
}

mjData* Simulation::MakeData(const mjModel* m, Engine engine, const std::string& name) {
  std::optional<EngineScope> scope;
  if (engine == Engine::kNereid) scope.emplace();
  mjData* d = nullptr;
  std::string error;
  if (!CallMuJoCo([&] { d = mj_makeData(m); }, nullptr, &error) || !d) {
    throw MuJoCoError(name + ": MuJoCo could not make mjData: " + (error.empty() ? TakeLastPluginError() : error));
  }
  return d;
}

std::unique_ptr<Simulation> Simulation::Attach(mjModel* m, mjData* d, const SimulationOptions& options,
                                               const std::string& name) {
  if (!m || !d) throw ConfigError(name + ": Attach needs an mjModel and an mjData");
  if (options.engine == Engine::kNereid) {
    for (int instance : FindPluginInstances(m, kHydrodynamicsPlugin)) {
      const HydrodynamicsConfig* config = HydrodynamicsInUse(m, d, instance);
      if (!AddedMassInMassMatrix(m, d, instance) && config && config->has_added_mass()) {
        throw ConfigError(name + ": nereid.hydrodynamics instance '" + PluginInstanceName(m, instance) +
                          "': this mjData was made outside Nereid's engine, so the instance left "
                          "its added mass out (stock_fallback); make the data inside an "
                          "EngineScope (Python: nereid.make_data(model))");
      }
    }
  }
  return std::unique_ptr<Simulation>(new Simulation(m, d, name, options, {}));
}

}  // namespace nereid
