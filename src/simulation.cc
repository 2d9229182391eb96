// Copyright Nereid authors.
#include "nereid/simulation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <utility>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/plugins.h"
#include "nereid/tether.h"
#include "uk/constraint_set.h"

namespace nereid {
namespace {

// MuJoCo's divergence checks, in the order mj_step runs them, and what each checks
constexpr int kDivergenceChecks[3] = {mjWARN_BADQPOS, mjWARN_BADQVEL, mjWARN_BADQACC};
constexpr const char* kDivergenceWhat[3] = {"qpos", "qvel", "qacc"};

// Where each entry of J^T M_A J for `dofs` lives in MuJoCo's lower-triangular CSR d->M.
// False if MuJoCo did not store one of them (a "simple" body keeps only its diagonal).
bool FindInertiaEntries(const mjModel* m, AddedMassBody* block) {
  block->entries.clear();
  const auto n = static_cast<int>(block->dofs.size());
  for (int a = 0; a < n; ++a) {
    for (int c = 0; c < n; ++c) {
      const int row = block->dofs[static_cast<size_t>(a)];
      const int col = block->dofs[static_cast<size_t>(c)];
      if (col > row) continue;
      const int index = MassEntryAddress(m, row, col);
      if (index < 0) return false;
      block->entries.push_back({a, c, index});
    }
  }
  return true;
}

// At compile, before any mjData (so before the plugin objects): the bodies a hydrodynamics
// instance's <config> gives added mass, with their dofs (no M_A: the objects own it).
std::vector<AddedMassBody> AddedMassLayout(const mjModel* m) {
  std::vector<AddedMassBody> blocks;
  for (int instance : FindPluginInstances(m, kHydrodynamicsPlugin)) {
    const HydrodynamicsConfig config = HydrodynamicsConfig::FromModel(m, instance);
    if (!config.has_added_mass()) continue;
    if (std::any_of(blocks.begin(), blocks.end(), [&](const AddedMassBody& b) { return b.body == config.body; })) continue;
    AddedMassBody& block = blocks.emplace_back();
    block.body = config.body;
    block.dofs = BodyDofChain(m, config.body);
  }
  return blocks;
}

// Bodies whose added mass Nereid adds, with M_A summed over their hydrodynamics instances,
// read from the instances' objects in `d` (which own it); sources[k]: block k's M_A's.
std::vector<AddedMassBody> CollectAddedMass(const mjModel* m, const mjData* d,
                                            std::vector<std::vector<const Mat6*>>* sources) {
  std::vector<AddedMassBody> blocks;
  sources->clear();
  for (int instance : FindPluginInstances(m, kHydrodynamicsPlugin)) {
    const HydrodynamicsConfig* config = HydrodynamicsInUse(m, d, instance);
    if (!config || !config->has_added_mass()) continue;
    size_t k = 0;
    while (k < blocks.size() && blocks[k].body != config->body) ++k;
    if (k == blocks.size()) {
      AddedMassBody& block = blocks.emplace_back();
      block.body = config->body;
      block.dofs = BodyDofChain(m, config->body);
      block.free_dof = FreeJointDof(m, config->body);
      sources->emplace_back();
    }
    blocks[k].added_mass += config->added_mass;
    (*sources)[k].push_back(&config->added_mass);
  }
  return blocks;
}

}  // namespace

namespace {

// Whether text[at] starts an XML numeric character reference ("&#37;", "&#x25;", "&#X25;",
// any number of leading zeros) that the XML parser decodes to '%'; *spelling: its text.
bool DecodesToPercent(const std::string& text, size_t at, std::string* spelling) {
  if (text.compare(at, 2, "&#") != 0) return false;
  size_t i = at + 2;
  const bool hex = i < text.size() && (text[i] == 'x' || text[i] == 'X');
  if (hex) ++i;
  const size_t digits = i;
  unsigned long value = 0;
  for (; i < text.size() && text[i] != ';'; ++i) {
    const char c = text[i];
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (hex && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else if (hex && c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) return false;
    value = value * (hex ? 16 : 10) + static_cast<unsigned long>(digit);
    if (value > 0x10FFFF) return false;  // not a character; the parser keeps it as text
  }
  if (i == text.size() || i == digits || value != '%') return false;
  *spelling = text.substr(at, i + 1 - at);
  return true;
}

// MJCF text that MuJoCo 3.14's parser must not see: a '%' outside a comment. Its error
// messages pass some attribute values through printf as formats (an unknown
// class="%s%n" reads memory or aborts the process), so Nereid refuses the character.
// Included files are checked too (relative to the including file; depth bounded).
void CheckMjcfText(const std::string& text, const std::string& name, const std::filesystem::path& dir,
                   int depth) {
  if (depth > 16) throw ConfigError(name + ": <include> nested deeper than 16 files");
  int line = 1;
  std::string plain;  // the text without comments, for finding <include>
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 4, "<!--") == 0) {
      const size_t end = text.find("-->", i + 4);
      const size_t stop = end == std::string::npos ? text.size() : end + 3;
      line += static_cast<int>(std::count(text.begin() + static_cast<long>(i), text.begin() + static_cast<long>(stop), '\n'));
      i = stop - 1;
      continue;
    }
    if (text[i] == '\n') ++line;
    std::string spelling;
    if (text[i] == '%') {
      spelling = "'%'";
    } else if (text[i] == '&' && DecodesToPercent(text, i, &spelling)) {
      spelling = "'" + spelling + "' (a character reference for '%')";
    }
    if (!spelling.empty()) {
      throw ConfigError(name + ": line " + std::to_string(line) + ": " + spelling +
                        " outside a comment is refused: MuJoCo's MJCF parser (3.14) passes some "
                        "attribute values through printf as formats when it reports an error");
    }
    plain += text[i];
  }
  for (size_t at = plain.find("<include"); at != std::string::npos; at = plain.find("<include", at + 8)) {
    const size_t file = plain.find("file", at);
    const size_t close = plain.find('>', at);
    if (file == std::string::npos || file > close) continue;
    const size_t q = plain.find_first_of("\"'", file);
    if (q == std::string::npos || q > close) continue;
    const size_t q2 = plain.find(plain[q], q + 1);
    if (q2 == std::string::npos) continue;
    const std::filesystem::path included = dir / plain.substr(q + 1, q2 - q - 1);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(included, ec)) continue;  // MuJoCo reports it
    std::ifstream in(included, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    CheckMjcfText(buffer.str(), included.string(), included.parent_path(), depth + 1);
  }
}

using Parser = std::function<mjSpec*(char* error, int size)>;

// Parses, expands tethers and compiles (recompiling added-mass bodies MuJoCo stored as
// "simple"); the caller owns the model.
mjModel* Load(const Parser& parse, const std::string& name, const SimulationOptions& options,
              MuJoCoWarnings* warnings) {
  std::optional<EngineScope> scope;
  if (options.engine == Engine::kNereid) scope.emplace();
  TakeLastPluginError();

  char error[1024] = "";
  mjSpec* spec = nullptr;
  std::string fatal;
  if (!CallMuJoCo([&] { spec = parse(error, sizeof(error)); }, warnings, &fatal)) {
    throw LoadError(name + ": MuJoCo error while parsing: " + fatal);
  }
  if (!spec) throw LoadError(name + ": " + error);
  if (options.edit) {
    try {
      options.edit(spec);
    } catch (...) {
      mj_deleteSpec(spec);
      throw;
    }
  }
  try {
    // nereid.tether's segment bodies (include/nereid/tether.h); its compiles' warnings are
    // kept with the others (its own MuJoCo calls that can fail are guarded inside)
    std::string fatal_error;
    if (!CallMuJoCo([&] { ExpandTethers(spec); }, warnings, &fatal_error)) {
      throw ConfigError("MuJoCo error while expanding tethers: " + fatal_error);
    }
  } catch (const Error& e) {
    mj_deleteSpec(spec);
    throw ConfigError(name + ": " + e.what());
  }
  auto fail = [&](mjModel* model) {
    std::string mujoco = mjs_getError(spec);
    std::string plugin = TakeLastPluginError();
    if (model) mj_deleteModel(model);
    mj_deleteSpec(spec);
    if (!plugin.empty()) throw ConfigError(name + ": " + plugin);
    throw LoadError(name + ": " + mujoco);
  };
  auto compile = [&] {
    mjModel* model = nullptr;
    std::string fatal_error;
    if (!CallMuJoCo([&] { model = mj_compile(spec, nullptr); }, warnings, &fatal_error)) {
      mj_deleteSpec(spec);
      throw LoadError(name + ": MuJoCo error while compiling: " + fatal_error);
    }
    return model;
  };
  mjModel* m = compile();
  if (!m) fail(nullptr);

  if (options.engine == Engine::kNereid) {
    // a "simple" body has only diagonal inertia storage; added mass needs the full block
    bool recompile = false;
    try {
      for (AddedMassBody& block : AddedMassLayout(m)) {
        if (FindInertiaEntries(m, &block)) continue;
        mjsBody* body = mjs_findBody(spec, mj_id2name(m, mjOBJ_BODY, block.body));
        if (body) body->simple = 0;
        recompile = true;
      }
    } catch (const Error& e) {
      mj_deleteModel(m);
      mj_deleteSpec(spec);
      throw ConfigError(name + ": " + e.what());
    }
    if (recompile) {
      mj_deleteModel(m);
      m = compile();
      if (!m) fail(nullptr);
    }
  }
  mj_deleteSpec(spec);
  return m;
}

}  // namespace

mjModel* Simulation::CompileFile(const std::string& path, const SimulationOptions& options,
                                 MuJoCoWarnings* warnings) {
  // a bounded path (MuJoCo's resource lookup is quadratic in its length), to a regular file
  constexpr size_t kMaxPath = 1024;
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

Simulation::Simulation(mjModel* m, mjData* d, std::string source, const SimulationOptions& options,
                       MuJoCoWarnings load_warnings)
    : m_(m), d_(d), owned_(d == nullptr), source_(std::move(source)), options_(options),
      warnings_(std::move(load_warnings)) {
  if (options.timestep) {
    if (!(*options.timestep > 0) || !std::isfinite(*options.timestep)) {
      FreeModel();
      throw ConfigError(source_ + ": time step must be a positive number of seconds, got " +
                        std::to_string(*options.timestep));
    }
    m_->opt.timestep = *options.timestep;
  }
  if (!(m_->opt.timestep > 0) || !std::isfinite(m_->opt.timestep)) {  // the model's own <option timestep>
    const double h = m_->opt.timestep;
    FreeModel();
    throw ConfigError(source_ + ": <option timestep=\"" + std::to_string(h) +
                      "\">: the time step must be a positive, finite number of seconds");
  }
  // a keyframe's time: NaN would make every time NaN, and beyond 1e9 s a step no longer
  // advances the clock (1e300 + dt == 1e300)
  constexpr double kMaxKeyTime = 1e9;
  for (int k = 0; k < m_->nkey; ++k) {
    const double t = m_->key_time[k];
    if (std::isfinite(t) && std::abs(t) <= kMaxKeyTime) continue;
    const char* name = mj_id2name(m_, mjOBJ_KEY, k);
    const std::string key_name = name ? Excerpt(name) : "";  // copied: the model is freed below
    char value[32];
    std::snprintf(value, sizeof(value), "%g", t);
    FreeModel();
    throw ConfigError(source_ + ": <key" + (key_name.empty() ? "" : " name=\"" + key_name + "\"") +
                      "> (keyframe " + std::to_string(k) + "): time=\"" + value +
                      "\": expected a finite time within +-1e9 s");
  }
  if (options.integrator) {
    integrator_ = *options.integrator;
    switch (integrator_) {
      case Integrator::kEuler: m_->opt.integrator = mjINT_EULER; break;
      case Integrator::kRK4: m_->opt.integrator = mjINT_RK4; break;
      case Integrator::kImplicitFast: m_->opt.integrator = mjINT_IMPLICITFAST; break;
    }
  } else {
    switch (m_->opt.integrator) {
      case mjINT_EULER: integrator_ = Integrator::kEuler; break;
      case mjINT_RK4: integrator_ = Integrator::kRK4; break;
      default: integrator_ = Integrator::kImplicitFast; break;  // implicit or implicitfast
    }
  }
  // Nereid's RK4 advances the state itself (Advance): it keeps no actuator or sensor
  // history and puts no island to sleep, so those would silently misbehave
  if (options.engine == Engine::kNereid && integrator_ == Integrator::kRK4 &&
      (m_->nhistory > 0 || (m_->opt.enableflags & mjENBL_SLEEP))) {
    const std::string what = m_->nhistory > 0 ? "actuator or sensor delays (delay=\"...\")"
                                              : "sleeping (<option><flag sleep=\"enable\"/>)";
    FreeModel();
    throw ConfigError(source_ + ": integrator rk4: Nereid's RK4 (added mass in every stage) does "
                      "not support " + what + "; use integrator euler or implicitfast, or engine mujoco");
  }
  // with springs and dampers both disabled MuJoCo skips mj_passive, and with it every
  // passive plugin: the marine forces would vanish without a word (with either engine:
  // plain mj_step calls the same plugins)
  if ((m_->opt.disableflags & mjDSBL_SPRING) &&
      (m_->opt.disableflags & mjDSBL_DAMPER)) {
    for (const char* plugin : {kHydrodynamicsPlugin, kBuoyancyPlugin, kTetherPlugin}) {
      if (FindPluginInstances(m_, plugin).empty()) continue;
      FreeModel();
      throw ConfigError(source_ + ": <option><flag spring=\"disable\" damper=\"disable\">: with both "
                        "disabled MuJoCo skips its passive stage, and with it every " + plugin +
                        " force; enable one of them (joints without springs or dampers are unaffected)");
    }
  }
  if (owned_) {
    std::optional<EngineScope> scope;
    if (options.engine == Engine::kNereid) scope.emplace();
    std::string error;
    if (!CallMuJoCo([this] { d_ = mj_makeData(m_); }, &warnings_, &error)) {
      mj_deleteModel(m_);  // (mjData MuJoCo had allocated when it failed is lost)
      throw MuJoCoError(source_ + ": MuJoCo error while making mjData: " + error +
                        " (check <size memory> and the model's sizes)");
    }
  }
  if (!d_) {
    std::string plugin = TakeLastPluginError();
    FreeModel();
    throw ConfigError(source_ + ": could not make mjData" + (plugin.empty() ? "" : ": " + plugin));
  }
  if (options.engine == Engine::kNereid) FindAddedMass();
  if (options.constraints == ConstraintMethod::kUK) {
    try {
      if (options.engine != Engine::kNereid) {
        throw ConfigError(source_ + ": UK constraints need Nereid's stepper (engine 'nereid'), "
                          "not plain mj_step");
      }
      uk_ = uk::ConstraintSet::Create(m_, d_, source_, options.uk);
    } catch (...) {
      FreeData();
      FreeModel();
      throw;
    }
  }
  for (const AddedMassBody& block : added_mass_) {
    const auto n = static_cast<Eigen::Index>(block.dofs.size());
    jacobians_.emplace_back(6, n);
    mass_jacobians_.emplace_back(6, n);
    inertias_.emplace_back(n, n);
  }
  current_instance_ = FindCurrentInstance(m_);
  hydrodynamics_instances_ = FindPluginInstances(m_, kHydrodynamicsPlugin);
  const int nq = static_cast<int>(m_->nq), nv = static_cast<int>(m_->nv),
            na = static_cast<int>(m_->na);
  const auto n = static_cast<size_t>(4 * (nq + nv + na) + 4 * (nv + na) + 2 * nv + na);
  rk_buffer_.assign(n, 0.0);
  try {
    if (owned_) {
      Reset();
    } else {  // an attached mjData keeps its state; UK connections start as the model says
      if (uk_) uk_->Reset(m_, d_);
      Forward();
    }
  } catch (...) {  // e.g. MuJoCoError: the arena is too small for one forward pass
    FreeData();
    FreeModel();
    throw;
  }
}

template <class F>
void Simulation::Guarded(const char* what, F&& f) {
  const double t = d_->time;
  std::string error;
  if (CallMuJoCo(std::forward<F>(f), &warnings_, &error)) return;
  mj_resetData(m_, d_);  // MuJoCo left the call half-way (its stack marks included)
  char time[32];
  std::snprintf(time, sizeof(time), "%.6g", t);
  throw MuJoCoError(source_ + ": MuJoCo error in " + what + " at t = " + time + " s: " + error +
                    "; the data was reset" +
                    (error.find("stack") != std::string::npos || error.find("memory") != std::string::npos
                         ? " (the model's <size memory> is too small for this state)"
                         : ""));
}

void Simulation::FreeModel() {
  if (owned_) mj_deleteModel(m_);
  m_ = nullptr;
}

void Simulation::FreeData() {
  if (owned_) mj_deleteData(d_);
  d_ = nullptr;
}

Simulation::~Simulation() {
  FreeData();
  FreeModel();
}

void Simulation::FindAddedMass() {
  added_mass_ = CollectAddedMass(m_, d_, &added_mass_sources_);
  for (AddedMassBody& block : added_mass_) {
    if (!FindInertiaEntries(m_, &block)) {
      throw ConfigError(source_ + ": body '" + mj_id2name(m_, mjOBJ_BODY, block.body) +
                        "' has no storage for its added-mass block in the mass matrix; set "
                        "simple=\"false\" on the body, or compile the model with Nereid "
                        "(Simulation::CompileFile; Python: nereid.load)");
    }
  }
}

void Simulation::ScaleHydrodynamics(double added_mass, double damping) {
  if (!(added_mass > 0) || !(damping > 0)) {
    throw ConfigError(source_ + ": hydrodynamic scale factors must be > 0 (got " +
                      std::to_string(added_mass) + ", " + std::to_string(damping) + ")");
  }
  for (int instance : hydrodynamics_instances_) {
    nereid::ScaleHydrodynamics(d_, instance, added_mass, damping);
  }
  ReadAddedMass();
}

void Simulation::ReadAddedMass() {
  for (size_t i = 0; i < added_mass_.size(); ++i) {
    Mat6& A = added_mass_[i].added_mass;
    A.setZero();
    for (const Mat6* source : added_mass_sources_[i]) A += *source;
  }
}

void Simulation::AddInertia() {
  ReadAddedMass();  // the hydrodynamics objects own M_A (scaled or not): read it every step
  for (size_t i = 0; i < added_mass_.size(); ++i) {
    const AddedMassBody& block = added_mass_[i];
    if (block.free_dof >= 0) {
      // a free body: nu = blockdiag(R^T, I) qvel, so K = [R A11 R^T, R A12; A21 R^T, A22]
      const Mat3 R = BodyRotation(d_, block.body);
      const Mat6& A = block.added_mass;
      Mat6 K;
      K.topLeftCorner<3, 3>().noalias() = R * A.topLeftCorner<3, 3>() * R.transpose();
      K.topRightCorner<3, 3>().noalias() = R * A.topRightCorner<3, 3>();
      K.bottomLeftCorner<3, 3>() = K.topRightCorner<3, 3>().transpose();
      K.bottomRightCorner<3, 3>() = A.bottomRightCorner<3, 3>();
      for (const AddedMassBody::Entry& e : block.entries) {
        d_->M[e.index] += K(block.dofs[e.row] - block.free_dof, block.dofs[e.col] - block.free_dof);
      }
      continue;
    }
    Eigen::Matrix<double, 6, Eigen::Dynamic>& J = jacobians_[i];  // sized once: no allocation
    Eigen::Matrix<double, 6, Eigen::Dynamic>& MJ = mass_jacobians_[i];
    Eigen::MatrixXd& K = inertias_[i];
    BodyJacobian(m_, d_, block.body, block.dofs, &J);
    MJ.noalias() = block.added_mass * J;
    K.noalias() = J.transpose() * MJ;
    for (const AddedMassBody::Entry& e : block.entries) d_->M[e.index] += K(e.row, e.col);
  }
}

void Simulation::ForwardNereid(bool skip_sensor) {
  mj_fwdPosition(m_, d_);
  if (!added_mass_.empty()) {
    AddInertia();
    mj_factorM(m_, d_);
    mj_projectConstraint(m_, d_);
  }
  if (!skip_sensor) mj_sensorPos(m_, d_);
  mj_energyPos(m_, d_);
  mj_forwardSkip(m_, d_, mjSTAGE_POS, skip_sensor);
  if (uk_) uk_->Apply(m_, d_);  // UK connections: d->qacc <- constrained acceleration
}

void Simulation::Forward() {
  Guarded("forward dynamics", [this] {
    if (options_.engine == Engine::kMuJoCo) {
      mj_forward(m_, d_);
    } else {
      ForwardNereid(false);
    }
  });
}

void Simulation::StepNereid() {
  mj_checkPos(m_, d_);
  mj_checkVel(m_, d_);
  ForwardNereid(false);
  mj_checkAcc(m_, d_);
  if (m_->opt.enableflags & mjENBL_FWDINV) mj_compareFwdInv(m_, d_);
  switch (integrator_) {
    case Integrator::kEuler: mj_Euler(m_, d_); break;
    case Integrator::kRK4: RungeKutta4(); break;
    case Integrator::kImplicitFast: mj_implicit(m_, d_); break;
  }
  if (uk_) uk_->Project(m_, d_);  // UK post-step projection (UKOptions::project)
}

// Classic RK4 with Nereid's forward dynamics (added mass in every stage), following
// MuJoCo's mj_RungeKutta step for step (tableau, stage times, activation update, plugin
// advance and warm start), so that without added mass it equals mj_step with RK4.
void Simulation::RungeKutta4() {
  static constexpr double kA[3][3] = {{0.5, 0, 0}, {0, 0.5, 0}, {0, 0, 1}};
  static constexpr double kB[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  const int nq = static_cast<int>(m_->nq), nv = static_cast<int>(m_->nv),
            na = static_cast<int>(m_->na);
  const int nx = nq + nv + na, nf = nv + na;
  const mjtNum h = m_->opt.timestep, t0 = d_->time;
  mjtNum* X[4];
  mjtNum* F[4];
  mjtNum* buffer = rk_buffer_.data();
  for (int i = 0; i < 4; ++i) { X[i] = buffer; buffer += nx; }
  for (int i = 0; i < 4; ++i) { F[i] = buffer; buffer += nf; }
  mjtNum* dX = buffer;  // 2 nv + na

  mju_copy(X[0], d_->qpos, nq);
  mju_copy(X[0] + nq, d_->qvel, nv);
  if (na) mju_copy(X[0] + nq + nv, d_->act, na);
  mju_copy(F[0], d_->qacc, nv);
  if (na) mju_copy(F[0] + nv, d_->act_dot, na);

  for (int i = 1; i < 4; ++i) {
    mju_zero(dX, 2 * nv + na);
    double c = 0;
    for (int j = 0; j < i; ++j) {
      mju_addToScl(dX, X[j] + nq, kA[i - 1][j], nv);
      mju_addToScl(dX + nv, F[j], kA[i - 1][j], nv + na);
      c += kA[i - 1][j];
    }
    mju_copy(X[i], X[0], nx);
    mj_integratePos(m_, X[i], dX, h);
    mju_addToScl(X[i] + nq, dX + nv, h, nv + na);
    mju_copy(d_->qpos, X[i], nq);
    mju_copy(d_->qvel, X[i] + nq, nv);
    if (na) mju_copy(d_->act, X[i] + nq + nv, na);
    d_->time = t0 + c * h;
    ForwardNereid(true);
    mju_copy(F[i], d_->qacc, nv);
    if (na) mju_copy(F[i] + nv, d_->act_dot, na);
  }

  mju_zero(dX, 2 * nv + na);
  for (int j = 0; j < 4; ++j) {
    mju_addToScl(dX, X[j] + nq, kB[j], nv);
    mju_addToScl(dX + nv, F[j], kB[j], nv + na);
  }
  d_->time = t0;
  mju_copy(d_->qpos, X[0], nq);
  mju_copy(d_->qvel, X[0] + nq, nv);
  if (na) mju_copy(d_->act, X[0] + nq + nv, na);
  Advance(dX + 2 * nv, dX + nv, dX);
}

// MuJoCo's (internal) mj_advance: activations, velocities, positions, time, plugin
// advance, warm start. Sleep and sensor/actuator history are not supported (refused at
// load, in the constructor).
void Simulation::Advance(const mjtNum* act_dot, const mjtNum* qacc, const mjtNum* qvel) {
  const mjtNum h = m_->opt.timestep;
  for (int i = 0; i < m_->nu; ++i) {
    const int adr = m_->actuator_actadr[i];
    if (adr < 0) continue;
    const int group = m_->actuator_group[i];
    const bool disabled = group >= 0 && group <= 30 && (m_->opt.disableactuator & (1 << group));
    for (int j = adr; j < adr + m_->actuator_actnum[i]; ++j) {
      const mjtNum rate = disabled ? 0 : act_dot[j];
      mjtNum act = d_->act[j];
      if (m_->actuator_dyntype[i] == mjDYN_FILTEREXACT) {
        const mjtNum tau = mju_max(mjMINVAL, m_->actuator_dynprm[i * mjNDYN]);
        act += rate * tau * (1 - mju_exp(-h / tau));
      } else {
        act += rate * h;
      }
      if (m_->actuator_actlimited[i]) {
        act = mju_clip(act, m_->actuator_actrange[2 * i], m_->actuator_actrange[2 * i + 1]);
      }
      d_->act[j] = act;
    }
  }
  mju_addToScl(d_->qvel, qacc, h, static_cast<int>(m_->nv));
  mj_integratePos(m_, d_->qpos, qvel, h);
  d_->time += h;
  for (int i = 0; i < m_->nplugin; ++i) {
    const mjpPlugin* plugin = mjp_getPluginAtSlot(m_->plugin[i]);
    if (plugin && plugin->advance) plugin->advance(m_, d_, i);
  }
  mju_copy(d_->qacc_warmstart, d_->qacc, static_cast<int>(m_->nv));
}

bool Simulation::TryStep(std::string* error) {
  // MuJoCo's checks reset the data (and every warning counter) when they find a bad
  // value; zeroing the three counters first makes any non-zero count afterwards mean
  // "this step diverged"
  for (int w : kDivergenceChecks) d_->warning[w].number = 0;
  step_start_time_ = d_->time;
  Guarded("the step", [this] {
    if (options_.engine == Engine::kMuJoCo) {
      mj_step(m_, d_);
    } else {
      StepNereid();
    }
  });
  for (int w : kDivergenceChecks) {
    if (d_->warning[w].number) {
      if (error) *error = DivergenceMessage();
      return false;
    }
  }
  // MuJoCo checks the position and velocity only when the next step starts: a step that
  // ends beyond the limit is caught here, so that it is never kept as a finite state. It
  // is then handled as MuJoCo handles its own finds: the data is reset and the warning
  // counted.
  auto beyond = [](const mjtNum* x, int n) {
    for (int i = 0; i < n; ++i) {
      if (!(std::abs(x[i]) <= mjMAXVAL)) return i;
    }
    return -1;
  };
  const int bad_qpos = beyond(d_->qpos, static_cast<int>(m_->nq));
  const int bad_qvel = bad_qpos >= 0 ? -1 : beyond(d_->qvel, static_cast<int>(m_->nv));
  if (bad_qpos >= 0 || bad_qvel >= 0) {
    mj_resetData(m_, d_);
    mjWarningStat& w = d_->warning[bad_qpos >= 0 ? mjWARN_BADQPOS : mjWARN_BADQVEL];
    w.number = 1;
    w.lastinfo = bad_qpos >= 0 ? bad_qpos : bad_qvel;
    if (error) *error = DivergenceMessage();
    return false;
  }
  return true;
}

void Simulation::Step() {
  std::string error;
  if (!TryStep(&error)) throw DivergenceError(error);
}

std::string Simulation::DivergenceMessage() const {
  for (int i = 0; i < 3; ++i) {
    const mjWarningStat& w = d_->warning[kDivergenceChecks[i]];
    if (w.number == 0) continue;
    const int index = w.lastinfo;
    std::string joint = "?";
    if (i == 0) {
      for (int j = 0; j < m_->njnt; ++j) {
        const int end = j + 1 < m_->njnt ? m_->jnt_qposadr[j + 1] : static_cast<int>(m_->nq);
        if (index >= m_->jnt_qposadr[j] && index < end) {
          const char* n = mj_id2name(m_, mjOBJ_JOINT, j);
          joint = n ? n : "#" + std::to_string(j);
        }
      }
    } else if (index >= 0 && index < m_->nv) {
      const char* n = mj_id2name(m_, mjOBJ_JOINT, m_->dof_jntid[index]);
      joint = n ? n : "#" + std::to_string(m_->dof_jntid[index]);
    }
    char buffer[512];
    std::snprintf(buffer, sizeof(buffer),
                  "%s: state diverged in the step from t = %.6g s: %s[%d] (joint '%s') is not "
                  "finite or exceeds %g; MuJoCo reset the data",
                  source_.c_str(), step_start_time_, kDivergenceWhat[i], index, joint.c_str(), mjMAXVAL);
    return buffer;
  }
  return source_ + ": state diverged";
}

void Simulation::Reset(int key) {
  if (key >= 0 && key < m_->nkey) {
    mj_resetDataKeyframe(m_, d_, key);
  } else {
    mj_resetData(m_, d_);
  }
  if (uk_) uk_->Reset(m_, d_);
  Forward();
}

CurrentField* Simulation::current() { return MutableCurrent(d_, m_, current_instance_); }

void Simulation::SetCurrent(const Vec3& velocity) {
  if (CurrentField* target = current()) {
    target->SetConstant(velocity);
  } else {
    SetCurrent(CurrentField::Constant(velocity));  // explains the missing instance
  }
}

void Simulation::SetCurrent(const CurrentField& field) {
  CurrentField* target = current();
  if (!target) {
    if (field.is_zero()) return;
    throw ConfigError(source_ + ": the model has no nereid.current instance to set; add "
                      "<extension><plugin plugin=\"nereid.current\"><instance name=\"current\"/>"
                      "</plugin></extension>");
  }
  *target = field;
}

void Simulation::Connect(const std::string& name, bool capture) {
  if (uk_) {
    Forward();  // d->M (with added mass) at the current state
    uk_->Connect(m_, d_, name, capture);
    Forward();
    return;
  }
  const int eq = mj_name2id(m_, mjOBJ_EQUALITY, name.c_str());
  if (eq < 0) throw ConfigError(source_ + ": no equality constraint named '" + name + "'");
  if (capture && m_->eq_type[eq] == mjEQ_WELD && m_->eq_objtype[eq] == mjOBJ_BODY) {
    // relpose from the current poses; the point stays the anchor on body2
    const int b1 = m_->eq_obj1id[eq], b2 = m_->eq_obj2id[eq];
    mjtNum* data = m_->eq_data + mjNEQDATA * eq;
    mjtNum point[3], offset[3], q1inv[4];
    mju_mulMatVec3(point, d_->xmat + 9 * b2, data);
    mju_addTo3(point, d_->xpos + 3 * b2);
    mju_sub3(offset, point, d_->xpos + 3 * b1);
    mju_mulMatTVec3(data + 3, d_->xmat + 9 * b1, offset);
    mju_negQuat(q1inv, d_->xquat + 4 * b1);
    mju_mulQuat(data + 6, q1inv, d_->xquat + 4 * b2);
  }
  d_->eq_active[eq] = 1;
  Forward();
}

void Simulation::Release(const std::string& name) {
  if (uk_) {
    uk_->Release(name);
  } else {
    const int eq = mj_name2id(m_, mjOBJ_EQUALITY, name.c_str());
    if (eq < 0) throw ConfigError(source_ + ": no equality constraint named '" + name + "'");
    d_->eq_active[eq] = 0;
  }
  Forward();
}

std::vector<ConnectionReport> Simulation::ConnectionReports() const {
  if (!uk_) return {};
  return uk_->Reports(m_, d_);
}

double Simulation::KineticEnergy() const {
  std::vector<mjtNum> Mv(static_cast<size_t>(m_->nv));
  mj_mulM(m_, d_, Mv.data(), d_->qvel);
  return 0.5 * mju_dot(d_->qvel, Mv.data(), static_cast<int>(m_->nv));
}

}  // namespace nereid
