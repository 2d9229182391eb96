// Copyright Nereid authors.
// The stepper: a Simulation's options checked at construction, its forward dynamics (MuJoCo's
// pipeline with the added mass put into d->M before the factorisation), the step (Euler,
// implicitfast, or Nereid's RK4 in runge_kutta.cc) with MuJoCo's divergence checks, reset,
// the current and the UK connections. Loading is in simulation_load.cc, the added-mass
// blocks in added_mass.cc.
#include "nereid/simulation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "added_mass.h"
#include "passive_stage.h"
#include "site_transmission.h"
#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/object_names.h"
#include "nereid/plugins.h"
#include "nereid/tether.h"
#include "uk/constraint_set.h"

// libmujoco 3.14 (engine_derivative.h): builds the implicit effective metric M + K of the
// step, or with active == 0 marks it inactive; mj_fwdPosition ends with it
extern "C" void mjd_effBuild(const mjModel* m, mjData* d, int active, int flg_factor);
// PositionStage and VelocityOnward follow MuJoCo 3.14's own mj_fwdPosition, mj_passive and
// mj_forwardSkip (and call the internal mjd_effBuild): read them again on an upgrade
static_assert(mjVERSION_HEADER == 3014000, "PositionStage and VelocityOnward follow MuJoCo 3.14");

namespace nereid {
namespace {

constexpr int kSpringDamper = mjDSBL_SPRING | mjDSBL_DAMPER;

// MuJoCo's divergence checks, in the order mj_step runs them, and what each checks
constexpr int kDivergenceChecks[3] = {mjWARN_BADQPOS, mjWARN_BADQVEL, mjWARN_BADQACC};
constexpr const char* kDivergenceWhat[3] = {"qpos", "qvel", "qacc"};

}  // namespace

Simulation::Simulation(mjModel* m, mjData* d, std::string source, const SimulationOptions& options,
                       MuJoCoWarnings load_warnings)
    : m_(m), d_(d), owned_(d == nullptr), source_(std::move(source)), options_(options),
      warnings_(std::move(load_warnings)) {
  ApplyOptions();   // frees the model before it throws
  MakeOwnedData();  // the same
  try {
    // e.g. an added-mass body compiled "simple" elsewhere (Attach), UK constraints under
    // plain mj_step, an arena too small for one forward pass (MuJoCoError)
    if (options.engine == Engine::kNereid) FindAddedMass();
    if (options.constraints == ConstraintMethod::kUK) CreateUkConnections();
    PrepareStepper();
    StartState();
  } catch (...) {
    FreeData();
    FreeModel();
    throw;
  }
}

void Simulation::ApplyOptions() {
  if (options_.timestep) {
    if (!(*options_.timestep > 0) || !std::isfinite(*options_.timestep)) {
      FreeModel();
      throw ConfigError(source_ + ": time step must be a positive number of seconds, got " +
                        std::to_string(*options_.timestep));
    }
    m_->opt.timestep = *options_.timestep;
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
  if (options_.integrator) {
    switch (*options_.integrator) {
      case Integrator::kEuler: m_->opt.integrator = mjINT_EULER; break;
      case Integrator::kRK4: m_->opt.integrator = mjINT_RK4; break;
      case Integrator::kImplicitFast: m_->opt.integrator = mjINT_IMPLICITFAST; break;
    }
  }
  if (const std::string problem = UnsupportedOption(owned_ ? OptionSource::kMjcf : OptionSource::kAttached);
      !problem.empty()) {
    FreeModel();
    throw ConfigError(source_ + ": " + problem);
  }
  checked_ = {m_->opt.timestep, m_->opt.integrator, m_->opt.disableflags, m_->opt.enableflags};
}

void Simulation::MakeOwnedData() {
  if (owned_) {
    std::optional<EngineScope> scope;
    if (options_.engine == Engine::kNereid) scope.emplace();
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
}

void Simulation::CreateUkConnections() {
  if (options_.engine != Engine::kNereid) {
    throw ConfigError(source_ + ": UK constraints need Nereid's stepper (engine 'nereid'), "
                      "not plain mj_step");
  }
  uk_ = uk::ConstraintSet::Create(m_, d_, source_, options_.uk);
}

void Simulation::PrepareStepper() {
  for (const AddedMassBody& block : added_mass_) {
    const auto n = static_cast<Eigen::Index>(block.dofs.size());
    jacobians_.emplace_back(6, n);
    mass_jacobians_.emplace_back(6, n);
    inertias_.emplace_back(n, n);
  }
  current_instance_ = FindCurrentInstance(m_);
  skip_rne_post_ = SensorsSkipRnePost(m_);
  sensor_calls_ = NereidSensorCalls(m_, d_);
  if (options_.engine == Engine::kNereid) {
    stage_model_ = std::make_unique<mjModel>(*m_);
    if (sensor_calls_) stage_model_->nplugin = PluginsBeforeTrailingSensors(m_, *sensor_calls_);
    if (std::vector<PluginCall> calls; FindPassiveCalls(m_, &calls)) passive_calls_ = std::move(calls);
  }
  hydrodynamics_instances_ = FindPluginInstances(m_, kHydrodynamicsPlugin);
  const int nq = static_cast<int>(m_->nq), nv = static_cast<int>(m_->nv),
            na = static_cast<int>(m_->na);
  const auto n = static_cast<size_t>(4 * (nq + nv + na) + 4 * (nv + na) + 2 * nv + na);
  rk_buffer_.assign(n, 0.0);
}

void Simulation::StartState() {
  if (owned_) {
    Reset();
  } else {  // an attached mjData keeps its state; UK connections start as the model says
    if (uk_) uk_->Reset(m_, d_);
    Forward();
  }
}

std::string Simulation::UnsupportedOption(OptionSource source) const {
  const mjOption& o = m_->opt;
  // where the option comes from, as the user set it: the MJCF attribute of a model loaded
  // here, both spellings for a model made elsewhere, the mjModel field once changed
  auto where = [source](const std::string& mjcf, const std::string& field) {
    switch (source) {
      case OptionSource::kMjcf: return mjcf;
      case OptionSource::kAttached: return mjcf + " (mjModel.opt." + field + ")";
      case OptionSource::kChanged: break;
    }
    return "mjModel.opt." + field + " (changed after loading)";
  };
  if (!(o.timestep > 0) || !std::isfinite(o.timestep)) {
    char value[32];
    std::snprintf(value, sizeof(value), "%g", o.timestep);
    return where("<option timestep=\"" + std::to_string(o.timestep) + "\">", std::string("timestep = ") + value) +
           ": the time step must be a positive, finite number of seconds";
  }
  // a longer time step than a sensor's period: the plugins refuse it when their data is
  // made; a time step set on data made before (attached, or changed after loading) is checked here
  if (d_) {
    if (const std::string sensor = SensorFasterThanStep(m_, d_); !sensor.empty()) {
      char value[32];
      std::snprintf(value, sizeof(value), "%g", o.timestep);
      return where(std::string("<option timestep=\"") + value + "\">", std::string("timestep = ") + value) + ": " +
             sensor +
             ": a sensor samples at most once per step; keep the time step within the sensor's period or "
             "lower its rate key";
    }
  }
  // MuJoCo 3.14's discrete step map (a constraint solve in the effective metric M + K):
  // neither engine of Nereid's steps with it
  if (o.integrator == mjINT_DISCRETE) {
    return where("<option integrator=\"discrete\">", "integrator = mjINT_DISCRETE") +
           ": MuJoCo's discrete step map is not supported; use integrator euler, rk4, implicit or implicitfast";
  }
  if (o.integrator < mjINT_EULER || o.integrator > mjINT_DISCRETE) {  // MuJoCo's compiler allows no other
    const std::string field = "integrator = " + std::to_string(o.integrator);
    return (source == OptionSource::kChanged ? where("", field) : "mjModel.opt." + field) +
           ": not an mjtIntegrator (mjINT_EULER 0, mjINT_RK4 1, mjINT_IMPLICIT 2, mjINT_IMPLICITFAST 3, "
           "mjINT_DISCRETE 4)";
  }
  // Nereid's RK4 advances the state itself (Advance): it keeps no actuator or sensor
  // history and puts no island to sleep, so those would silently misbehave
  if (options_.engine == Engine::kNereid && o.integrator == mjINT_RK4 &&
      (m_->nhistory > 0 || (o.enableflags & mjENBL_SLEEP))) {
    const bool delays = m_->nhistory > 0;
    return where("integrator rk4", std::string("integrator = mjINT_RK4") +
                                       (delays ? "" : " with mjENBL_SLEEP in mjModel.opt.enableflags")) +
           ": Nereid's RK4 (added mass in every stage) does not support " +
           (delays ? "actuator or sensor delays (delay=\"...\")" : "sleeping (<option><flag sleep=\"enable\"/>)") +
           "; use integrator euler or implicitfast, or engine mujoco";
  }
  // with springs and dampers both disabled MuJoCo skips mj_passive, and with it every
  // passive plugin: the marine forces would vanish without a word (with either engine:
  // plain mj_step calls the same plugins)
  if ((o.disableflags & kSpringDamper) == kSpringDamper) {
    for (const char* plugin : {kHydrodynamicsPlugin, kBuoyancyPlugin, kTetherPlugin}) {
      if (FindPluginInstances(m_, plugin).empty()) continue;
      return where("<option><flag spring=\"disable\" damper=\"disable\">",
                   "disableflags has mjDSBL_SPRING and mjDSBL_DAMPER") +
             ": with both disabled MuJoCo skips its passive stage, and with it every " + plugin +
             " force; enable one of them (joints without springs or dampers are unaffected)";
    }
  }
  return "";
}

void Simulation::CheckOptions() {
  const mjOption& o = m_->opt;
  if (o.timestep == checked_.timestep && o.integrator == checked_.integrator &&  // NaN: checked again
      o.disableflags == checked_.disableflags && o.enableflags == checked_.enableflags) {
    return;
  }
  if (const std::string problem = UnsupportedOption(OptionSource::kChanged); !problem.empty()) {
    throw ConfigError(source_ + ": " + problem);
  }
  checked_ = {o.timestep, o.integrator, o.disableflags, o.enableflags};
}

Integrator Simulation::integrator() const {
  switch (m_->opt.integrator) {
    case mjINT_EULER: return Integrator::kEuler;
    case mjINT_RK4: return Integrator::kRK4;
    default: return Integrator::kImplicitFast;  // implicit or implicitfast
  }
}

bool Simulation::UkEnabled() const {
  return uk_ && !(m_->opt.disableflags & (mjDSBL_CONSTRAINT | mjDSBL_EQUALITY));
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

void Simulation::ComputeSensors(int stage) {
  if (!sensor_calls_) {  // MuJoCo's stage
    if (stage == mjSTAGE_POS) mj_sensorPos(m_, d_);
    if (stage == mjSTAGE_VEL) mj_sensorVel(m_, d_);
    if (stage == mjSTAGE_ACC) mj_sensorAcc(m_, d_);
    return;
  }
  if (m_->opt.disableflags & mjDSBL_SENSOR) return;  // as mj_sensorPos/Vel/Acc
  for (const SensorCall& call : (*sensor_calls_)[static_cast<size_t>(stage - mjSTAGE_POS)]) {
    if (call.clock && call.clock->Idle(d_->time)) continue;  // the call would return at once
    if (stage == mjSTAGE_VEL && !d_->flg_subtreevel) mj_subtreeVel(m_, d_);  // MuJoCo's preparation
    call.compute(m_, d_, call.instance, mjPLUGIN_SENSOR);
  }
}

void Simulation::PositionStage() {
  if (added_mass_.empty()) {
    mj_fwdPosition(m_, d_);
    return;
  }
  if (m_->opt.enableflags & mjENBL_SLEEP) {
    // waking bodies is internal to MuJoCo's position stage: run it whole, then enter the
    // added mass, factorise and project again
    mj_fwdPosition(m_, d_);
    AddInertia();
    mj_factorM(m_, d_);
    mj_projectConstraint(m_, d_);
    return;
  }
  // mj_fwdPosition of MuJoCo 3.14 (engine_forward.c) step by step, without its profiling
  // timers, and without its wake-up calls, which do nothing while sleeping is disabled.
  // The projection and the factor are then made once, from M + M_A; the result equals
  // the sequence above bit for bit (tests/engine/step_equivalence_test.cc).
  d_->flg_energypos = 0;
  mj_fwdKinematics(m_, d_);
  mj_makeM(m_, d_);
  AddInertia();
  mj_factorM(m_, d_);
  mj_collision(m_, d_);
  mj_makeConstraint(m_, d_);
  mj_island(m_, d_);
  mj_projectConstraint(m_, d_);
  // thrusters on their sites (the marine model): the same lengths and moments, read from
  // each site's chain of dofs (src/site_transmission.h)
  if (PlainSiteTransmissions(m_)) {
    SiteTransmission(m_, d_, &transmission_chain_);
  } else {
    mj_transmission(m_, d_);
  }
  // exported by libmujoco but declared in no public header; inactive for every integrator
  // Nereid's engine accepts (CheckOptions), it then only clears the effective-metric sizes
  mjd_effBuild(m_, d_, m_->opt.integrator == mjINT_DISCRETE, 1);
}

void Simulation::ForwardNereid(bool skip_sensor) {
  PositionStage();
  if (!skip_sensor) ComputeSensors(mjSTAGE_POS);
  if (m_->opt.enableflags & mjENBL_ENERGY) {  // as mj_forward's position stage
    mj_energyPos(m_, d_);
  } else {
    d_->energy[0] = d_->energy[1] = 0;
  }
  // MuJoCo runs mj_rnePostConstraint (cacc, cfrc_int, cfrc_ext) before any acceleration-
  // stage sensor plugin. When no sensor reads those (Nereid's IMU takes its site's
  // acceleration from qacc), the velocity and acceleration sensors run here with the flag
  // that says it ran set around them; when every sensor is a Nereid sensor plugin, they
  // run without MuJoCo's stages, which would look for them among all plugin instances at
  // every stage (docs/sensors.md "Cost")
  const bool own_sensors = !skip_sensor && (skip_rne_post_ || sensor_calls_);
  VelocityOnward(skip_sensor || own_sensors);
  if (own_sensors) {
    ComputeSensors(mjSTAGE_VEL);
    d_->flg_rnepost = 1;  // no sensor here reads cacc or cfrc (SensorsSkipRnePost)
    ComputeSensors(mjSTAGE_ACC);
    d_->flg_rnepost = 0;
  }
  if (UkEnabled()) uk_->Apply(m_, d_);  // UK connections: d->qacc <- constrained acceleration
}

void Simulation::SyncStageModel() {
  if (!stage_model_) return;
  stage_model_->opt = m_->opt;
  stage_model_->stat = m_->stat;
  // the scalars mj_setConst recomputes (a user may call it on an attached model)
  stage_model_->ngravcomp = m_->ngravcomp;
  stage_model_->flg_gravcomp = m_->flg_gravcomp;
  stage_model_->flg_surfacevel = m_->flg_surfacevel;
  stage_model_->flg_adhesion = m_->flg_adhesion;
  own_passive_ = passive_calls_ && (m_->opt.disableflags & kSpringDamper) != kSpringDamper &&
                 !(m_->opt.enableflags & mjENBL_SLEEP) && MuJoCoPassiveIsZero(m_);
}

void Simulation::VelocityOnward(bool skip_sensor) {
  if (!own_passive_) {
    mj_forwardSkip(StageModel(), d_, mjSTAGE_POS, skip_sensor);
    return;
  }
  // mj_forwardSkip of MuJoCo 3.14 (engine_forward.c) from its velocity stage on. With
  // springs and dampers disabled around mj_fwdVelocity alone, its mj_passive only clears
  // the passive forces (everything else, mj_Euler's choice of implicit damping for one,
  // sees the model's own flags); the plugins then add theirs as mj_passive would have, in
  // instance order. What mj_fwdVelocity computes after mj_passive (constraint references,
  // bias forces, tendon bias) does not read qfrc_passive, and no Nereid plugin reads what
  // it computes. A MuJoCo error inside leaves the flags set until the next SyncStageModel.
  mjModel* m = stage_model_.get();
  const int flags = m->opt.disableflags;
  m->opt.disableflags = flags | kSpringDamper;
  mj_fwdVelocity(m, d_);
  m->opt.disableflags = flags;
  for (const PluginCall& call : *passive_calls_) call.compute(m, d_, call.instance, mjPLUGIN_PASSIVE);
  if (!skip_sensor) mj_sensorVel(m, d_);
  if ((m->opt.enableflags & mjENBL_ENERGY) && !d_->flg_energyvel) mj_energyVel(m, d_);
  mj_forwardSkip(m, d_, mjSTAGE_VEL, skip_sensor);
}

void Simulation::Forward() {
  CheckOptions();
  SyncStageModel();
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
  switch (m_->opt.integrator) {  // read at every step (CheckOptions has checked it)
    case mjINT_EULER: mj_Euler(StageModel(), d_); break;
    case mjINT_RK4: RungeKutta4(); break;
    default: mj_implicit(StageModel(), d_); break;  // implicit or implicitfast
  }
  if (UkEnabled()) uk_->Project(m_, d_);  // UK post-step projection (UKOptions::project)
}

bool Simulation::TryStep(std::string* error) {
  // MuJoCo's checks reset the data (and every warning counter) when they find a bad
  // value; zeroing the three counters first makes any non-zero count afterwards mean
  // "this step diverged"
  CheckOptions();
  SyncStageModel();
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
    if (!(m_->opt.disableflags & mjDSBL_AUTORESET)) mj_resetData(m_, d_);
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
          joint = NameOrId(m_, mjOBJ_JOINT, j);
        }
      }
    } else if (index >= 0 && index < m_->nv) {
      joint = NameOrId(m_, mjOBJ_JOINT, m_->dof_jntid[index]);
    }
    char buffer[512];
    std::snprintf(buffer, sizeof(buffer),
                  "%s: state diverged in the step from t = %.6g s: %s[%d] (joint '%s') is not "
                  "finite or exceeds %g; %s",
                  source_.c_str(), step_start_time_, kDivergenceWhat[i], index, joint.c_str(), mjMAXVAL,
                  (m_->opt.disableflags & mjDSBL_AUTORESET) ? "the data was not reset (mjDSBL_AUTORESET)"
                                                             : "MuJoCo reset the data");
    return buffer;
  }
  return source_ + ": state diverged";
}

void Simulation::Reset(int key) {
  if (key < -1) {  // -1 is the defaults; anything below was taken for them without a word
    throw ConfigError(source_ + ": reset to keyframe " + std::to_string(key) +
                      ": expected a keyframe index >= 0, or -1 for the model's defaults");
  }
  if (key >= 0 && key < m_->nkey) {
    mj_resetDataKeyframe(m_, d_, key);
  } else {
    mj_resetData(m_, d_);
  }
  if (uk_) uk_->Reset(m_, d_);
  Forward();
}

CurrentField* Simulation::current() { return MutableCurrent(d_, m_, current_instance_); }

double Simulation::SurfaceElevation(double x, double y) const {
  const CurrentField* field = MutableCurrent(d_, m_, current_instance_);
  return field ? field->Elevation(d_->time, x, y) : 0.0;
}

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
  // the steady current is replaced; the model's waves stay unless `field` brings its own
  CurrentField previous;
  previous.ShareWaves(*target);
  *target = field;
  if (!field.waves()) target->ShareWaves(previous);
}

void Simulation::Connect(const std::string& name, bool capture) {
  if (uk_) {
    Forward();  // d->M (with added mass) at the current state
    uk_->Connect(m_, d_, name, capture);
    Forward();
    return;
  }
  const int eq = mj_name2id(m_, mjOBJ_EQUALITY, name.c_str());
  if (eq < 0) throw ConfigError(source_ + ": no equality constraint named '" + Excerpt(name) + "'");
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
    if (eq < 0) throw ConfigError(source_ + ": no equality constraint named '" + Excerpt(name) + "'");
    d_->eq_active[eq] = 0;
  }
  Forward();
}

std::vector<ConnectionReport> Simulation::ConnectionReports() const {
  if (!uk_) return {};
  return uk_->Reports(m_, d_);
}

void CheckControls(const mjModel* m, const mjtNum* ctrl, const std::string& what) {
  for (int i = 0; i < m->nu; ++i) {
    if (std::abs(ctrl[i]) <= mjMAXVAL) continue;  // false for NaN
    // the actuator whose controls include control i (an actuator may take 0 or several:
    // a <pid input="pos vel"> takes 2), named with its index among the actuators
    int actuator = 0;
    while (actuator + 1 < static_cast<int>(m->nactuator) && m->actuator_ctrladr[actuator + 1] <= i) ++actuator;
    const char* name = mj_id2name(m, mjOBJ_ACTUATOR, actuator);
    std::string which = "actuator " + (name ? "'" + Excerpt(name) + "' " : std::string()) + "(index " +
                        std::to_string(actuator);
    if (m->actuator_ctrlnum[actuator] != 1) {
      which += ", its control " + std::to_string(i - m->actuator_ctrladr[actuator] + 1) + " of " +
               std::to_string(m->actuator_ctrlnum[actuator]);  // counted from 1
    }
    char value[32];
    std::snprintf(value, sizeof(value), "%g", ctrl[i]);
    throw ConfigError(what + ": " + which + ") is " + value + "; controls must be finite and within +-" +
                      "1e10 (MuJoCo would zero every control with only a warning)");
  }
}

double Simulation::KineticEnergy() const {
  std::vector<mjtNum> Mv(static_cast<size_t>(m_->nv));
  mj_mulM(m_, d_, Mv.data(), d_->qvel);
  return 0.5 * mju_dot(d_->qvel, Mv.data(), static_cast<int>(m_->nv));
}

}  // namespace nereid
