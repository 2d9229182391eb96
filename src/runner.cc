// Copyright Nereid authors.
#include "nereid/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/object_names.h"
#include "nereid/output.h"
#include "nereid/path.h"
#include "nereid/plugins.h"
#include "nereid/scenario.h"
#include "nereid/vms.h"

namespace nereid {
namespace {

using nlohmann::json;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

json FinalState(const mjModel* m, const mjData* d) {
  json state = {{"time", d->time}};
  json bodies = json::object(), joints = json::object();
  for (int j = 0; j < m->njnt; ++j) {
    const mjtNum* q = d->qpos + m->jnt_qposadr[j];
    const mjtNum* v = d->qvel + m->jnt_dofadr[j];
    if (m->jnt_type[j] == mjJNT_FREE) {
      bodies[OutputName(m, mjOBJ_BODY, m->jnt_bodyid[j])] = {
          {"position", {q[0], q[1], q[2]}},
          {"quaternion", {q[3], q[4], q[5], q[6]}},
          {"velocity", {v[0], v[1], v[2]}},
          {"angular_velocity", {v[3], v[4], v[5]}}};
    } else if (m->jnt_type[j] == mjJNT_HINGE || m->jnt_type[j] == mjJNT_SLIDE) {
      joints[OutputName(m, mjOBJ_JOINT, j)] = {{"q", q[0]}, {"qd", v[0]}};
    }
  }
  state["bodies"] = bodies;
  state["joints"] = joints;
  return state;
}

// A run's progress on stderr, on one line rewritten about once a second, when asked for (the
// CLI asks when stderr is a terminal); nothing for runs that end within two seconds.
class Progress {
 public:
  Progress(bool enabled, double t0, double t1)
      : enabled_(enabled), t0_(t0), t1_(t1), start_(std::chrono::steady_clock::now()), next_(2.0) {}
  void Update(double t) {
    if (!enabled_ || (++calls_ & 1023) != 0) return;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (wall < next_) return;
    next_ = wall + 1.0;
    const double done = t1_ > t0_ ? (t - t0_) / (t1_ - t0_) : 1.0;
    std::fprintf(stderr, "\r  t = %.6g of %.6g s (%.0f %%), %.0f s elapsed, about %.0f s left   ", t, t1_,
                 100 * done, wall, done > 0 ? wall * (1 - done) / done : 0.0);
    shown_ = true;
  }
  void Done() {
    if (shown_) std::fprintf(stderr, "\n");
    shown_ = false;
  }

 private:
  bool enabled_;
  double t0_, t1_;
  std::chrono::steady_clock::time_point start_;
  double next_;
  unsigned long calls_ = 0;
  bool shown_ = false;
};

}  // namespace

double EstimateCsvBytes(double rows, size_t columns) {
  // a number at precision 17 takes at most 24 characters ("-1.2345678901234567e-308"), plus
  // its separator
  return rows * static_cast<double>(columns) * 25.0;
}

std::string FinalStateJson(const mjModel* m, const mjData* d) { return FinalState(m, d).dump(); }

ScenarioControl::ScenarioControl(const Scenario& scenario, Simulation& sim) : scenario_(scenario), sim_(sim) {
  follower_ = scenario.MakeController(sim, &controlled_body_);
  if (scenario.vms_controller) {
    vms_ = std::make_unique<VmsController>(sim, *scenario.vms_controller, scenario.source);
  }
  holds_ = scenario.MakeStabilizers(sim);
  if (scenario.seed || scenario.navigation) {
    // the sensors restart at the scenario's initial state (their first sample was taken at
    // load, before it was applied), with the run's seed (0: their own streams)
    SeedSensors(sim.model(), sim.data(), scenario.seed.value_or(0));
    sim.Forward();
  }
  if (scenario.navigation) {
    const mjModel* m = sim.model();
    const std::string& name = scenario.navigation->body;
    int body = controlled_body_ >= 0 ? controlled_body_ : !holds_.empty() ? holds_.front().body() : -1;
    if (!name.empty()) {
      body = mj_name2id(m, mjOBJ_BODY, name.c_str());
      if (body < 0) {
        throw ConfigError(scenario.source + ": /navigation/body: no body named '" + Excerpt(name) + "' in " +
                          sim.source());
      }
      if (body == 0) {
        throw ConfigError(scenario.source + ": /navigation/body: 'world' is not a vehicle (give a body with a free "
                          "joint and the filter's sensors) in " + sim.source());
      }
    }
    if (body < 0) {
      throw ConfigError(scenario.source + ": /navigation: no vehicle to estimate: give navigation.body, a "
                        "controller or a stabilize hold");
    }
    navigator_ = std::make_unique<Navigator>(m, sim.data(), body, scenario.navigation->settings, scenario.source,
                                             sim.source());
  }
}

namespace {

// Writes a navigator's estimate of its body into d (the free joint's qpos and qvel, and
// xpos, xquat, xmat and cvel, which the controllers read) and puts the truth back when it
// goes: the controllers of a "feedback": "estimate" scenario run inside one.
class EstimateInData {
 public:
  EstimateInData(const mjModel* m, mjData* d, const Navigator& nav) : m_(m), d_(d), b_(nav.body()) {
    const int jnt = m->body_jntadr[b_];
    qpos_ = d->qpos + m->jnt_qposadr[jnt];
    qvel_ = d->qvel + m->jnt_dofadr[jnt];
    std::copy(qpos_, qpos_ + 7, saved_qpos_);
    std::copy(qvel_, qvel_ + 6, saved_qvel_);
    std::copy(d->xpos + 3 * b_, d->xpos + 3 * b_ + 3, saved_xpos_);
    std::copy(d->xquat + 4 * b_, d->xquat + 4 * b_ + 4, saved_xquat_);
    std::copy(d->xmat + 9 * b_, d->xmat + 9 * b_ + 9, saved_xmat_);
    std::copy(d->cvel + 6 * b_, d->cvel + 6 * b_ + 6, saved_cvel_);
    const BodyEstimate& e = nav.estimate();
    const Eigen::Quaterniond& q = e.quaternion;
    const double quat[4] = {q.w(), q.x(), q.y(), q.z()};
    for (int i = 0; i < 3; ++i) qpos_[i] = d->xpos[3 * b_ + i] = e.position[i];
    for (int i = 0; i < 4; ++i) qpos_[3 + i] = d->xquat[4 * b_ + i] = quat[i];
    mju_quat2Mat(d->xmat + 9 * b_, quat);
    for (int i = 0; i < 3; ++i) qvel_[i] = e.velocity[i], qvel_[3 + i] = e.angular_velocity[i];
    // cvel: world angular velocity, and the linear velocity at the root's centre of mass
    const Vec3 w = q * e.angular_velocity;
    const mjtNum* c = d->subtree_com + 3 * m->body_rootid[b_];
    const Vec3 lin = e.velocity - w.cross(e.position - Vec3(c[0], c[1], c[2]));
    for (int i = 0; i < 3; ++i) d->cvel[6 * b_ + i] = w[i], d->cvel[6 * b_ + 3 + i] = lin[i];
  }
  ~EstimateInData() {
    std::copy(saved_qpos_, saved_qpos_ + 7, qpos_);
    std::copy(saved_qvel_, saved_qvel_ + 6, qvel_);
    std::copy(saved_xpos_, saved_xpos_ + 3, d_->xpos + 3 * b_);
    std::copy(saved_xquat_, saved_xquat_ + 4, d_->xquat + 4 * b_);
    std::copy(saved_xmat_, saved_xmat_ + 9, d_->xmat + 9 * b_);
    std::copy(saved_cvel_, saved_cvel_ + 6, d_->cvel + 6 * b_);
  }
  EstimateInData(const EstimateInData&) = delete;
  EstimateInData& operator=(const EstimateInData&) = delete;

 private:
  const mjModel* m_;
  mjData* d_;
  int b_;
  mjtNum* qpos_;
  mjtNum* qvel_;
  mjtNum saved_qpos_[7], saved_qvel_[6], saved_xpos_[3], saved_xquat_[4], saved_xmat_[9], saved_cvel_[6];
};

}  // namespace

ScenarioControl::~ScenarioControl() = default;

bool ScenarioControl::BeforeStep() {
  const mjModel* m = sim_.model();
  mjData* d = sim_.data();
  scenario_.ApplyInputs(sim_, d->time);
  if (navigator_) navigator_->Update(m, d);
  std::optional<EstimateInData> estimate;
  if (scenario_.feedback_estimate) {
    // the path is scored on the true pose; the controllers and the reference see the estimate
    if (follower_) follower_->SetScoredPose(PathTracker::Pose{BodyPosition(d, controlled_body_),
                                                              BodyRotation(d, controlled_body_)});
    estimate.emplace(m, d, *navigator_);
  }
  if (follower_) {
    follower_->Update(m, d, controlled_body_, m->opt.timestep);
    if (follower_->done() && scenario_.controller->stop_when_done) return false;
  }
  if (vms_) vms_->Update(m->opt.timestep);
  for (Stabilize& h : holds_) h.Update(m, d);
  return true;
}

std::vector<std::string> TrajectoryColumns(const mjModel* m) {
  std::vector<std::string> columns = {"time"};
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_type[j] == mjJNT_FREE) {
      const std::string b = OutputName(m, mjOBJ_BODY, m->jnt_bodyid[j]);
      for (const char* c : {"px", "py", "pz", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"}) {
        columns.push_back(b + "." + c);
      }
    }
  }
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_type[j] == mjJNT_HINGE || m->jnt_type[j] == mjJNT_SLIDE) {
      const std::string n = OutputName(m, mjOBJ_JOINT, j);
      columns.push_back(n + ".q");
      columns.push_back(n + ".qd");
    }
  }
  // plugin sensors (Nereid's marine sensors): <sensor>.<field>
  for (int j = 0; j < m->nsensor; ++j) {
    if (m->sensor_type[j] != mjSENS_PLUGIN) continue;
    const std::string n = OutputName(m, mjOBJ_SENSOR, j);
    for (const std::string& field : SensorFieldNames(m, j)) columns.push_back(n + "." + field);
  }
  return columns;
}

void TrajectoryRow(const mjModel* m, const mjData* d, std::vector<double>* row) {
  row->clear();
  row->push_back(d->time);
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_type[j] != mjJNT_FREE) continue;
    // free joint: qpos = world position and world-from-body quaternion, qvel = world linear
    // velocity then body-frame angular velocity
    const mjtNum* q = d->qpos + m->jnt_qposadr[j];
    const mjtNum* v = d->qvel + m->jnt_dofadr[j];
    row->insert(row->end(), q, q + 7);
    row->insert(row->end(), v, v + 6);
  }
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_type[j] == mjJNT_HINGE || m->jnt_type[j] == mjJNT_SLIDE) {
      row->push_back(d->qpos[m->jnt_qposadr[j]]);
      row->push_back(d->qvel[m->jnt_dofadr[j]]);
    }
  }
  for (int j = 0; j < m->nsensor; ++j) {
    if (m->sensor_type[j] != mjSENS_PLUGIN) continue;
    const mjtNum* s = d->sensordata + m->sensor_adr[j];
    row->insert(row->end(), s, s + m->sensor_dim[j]);
  }
}

ResolvedInput ResolveInput(const std::string& input, std::optional<Engine> engine,
                           std::optional<Integrator> integrator, std::optional<double> dt,
                           std::optional<ConstraintMethod> constraints) {
  CheckNoNul(input);
  ResolvedInput r;
  r.model = input;
  if (EndsWith(input, ".json")) {
    r.scenario = Scenario::FromFile(input);
    r.model = r.scenario->model;
    if (r.scenario->crosscheck && !r.scenario->crosscheck->solver_key.empty()) {
      throw ConfigError(input + ": " + r.scenario->crosscheck->solver_key +
                        ": a solver setting of nereid crosscheck; nereid run and nereid-view use the "
                        "model's own welds and Nereid's UK defaults (run this file with nereid crosscheck)");
    }
  } else if (!EndsWith(input, ".xml") && !EndsWith(input, ".mjcf")) {
    throw ConfigError(Excerpt(input) + ": expected an MJCF model (.xml) or a scenario (.json)");
  }
  const std::optional<Scenario>& s = r.scenario;
  r.options.engine = engine.value_or(s && s->engine ? *s->engine : Engine::kNereid);
  r.options.integrator = integrator ? integrator : (s ? s->integrator : std::nullopt);
  r.options.timestep = dt ? dt : (s ? s->dt : std::nullopt);
  r.options.constraints =
      constraints.value_or(s && s->constraints ? *s->constraints : ConstraintMethod::kMuJoCo);
  if (s && s->scene.solid && !s->scene.Empty()) {
    // the scene's walls, seabed, terrain and pillars become the model's collision geometry
    r.options.edit = [scene = s->scene, source = s->source](mjSpec* spec) {
      Scenario::AddSceneGeometry(scene, source, spec);
    };
  }
  return r;
}

namespace {

// A run's CSV outputs: trajectory.csv and, with depth and attitude holds, stabilize.csv
// (their attitude readings and thruster commands); each row written and checked as it goes.
class RunRecorder {
 public:
  RunRecorder(const std::string& dir, const mjModel* m, const std::vector<Stabilize>& holds)
      : m_(m), holds_(holds), trajectory_path_((std::filesystem::path(dir) / "trajectory.csv").string()),
        holds_path_((std::filesystem::path(dir) / "stabilize.csv").string()), columns_(TrajectoryColumns(m)) {
    for (const Stabilize& h : holds) hold_columns_ += 2 + h.thrusters().names.size();
  }
  // the navigation filter's est.* columns after the others (docs/outputs.md)
  void SetNavigator(const Navigator* navigator) {
    navigator_ = navigator;
    if (!navigator) return;
    for (const std::string& c : Navigator::EstColumns()) columns_.push_back(c);
  }

  // An upper bound of the bytes `rows` rows take.
  double EstimateBytes(double rows) const {
    return EstimateCsvBytes(rows, columns_.size() + (holds_.empty() ? 0 : 1 + hold_columns_));
  }
  size_t columns() const { return columns_.size(); }
  const std::string& trajectory_path() const { return trajectory_path_; }
  const std::string& holds_path() const { return holds_path_; }

  // Opens the files and writes their headers.
  void Open() {
    trajectory_.emplace(trajectory_path_);
    std::ostream& out = trajectory_->stream();
    out.precision(17);
    for (size_t i = 0; i < columns_.size(); ++i) out << (i ? "," : "") << columns_[i];
    out << "\n";
    if (holds_.empty()) return;
    holds_file_.emplace(holds_path_);
    std::ostream& hold = holds_file_->stream();
    hold.precision(10);
    hold << "t";
    for (const Stabilize& h : holds_) {
      const std::string b = OutputName(m_, mjOBJ_BODY, h.body());
      hold << "," << b << ".roll," << b << ".pitch";
      for (const std::string& n : h.thrusters().names) hold << ",ctrl." << n;
    }
    hold << "\n";
  }

  void Row(const mjData* d) {
    TrajectoryRow(m_, d, &row_);
    if (navigator_) navigator_->EstRow(d, &row_);
    std::ostream& out = trajectory_->stream();
    for (size_t i = 0; i < row_.size(); ++i) out << (i ? "," : "") << row_[i];
    out << "\n";
    trajectory_->Check();
    if (!holds_file_) return;
    std::ostream& hold = holds_file_->stream();
    hold << d->time;
    for (const Stabilize& h : holds_) {
      hold << "," << h.roll() << "," << h.pitch();
      for (int c : h.thrusters().controls) hold << "," << d->ctrl[c];
    }
    hold << "\n";
    holds_file_->Check();
  }

  void Commit() {
    trajectory_->Commit();
    if (holds_file_) holds_file_->Commit();
  }

 private:
  const mjModel* m_;
  const std::vector<Stabilize>& holds_;
  std::string trajectory_path_, holds_path_;
  std::vector<std::string> columns_;
  size_t hold_columns_ = 0;
  std::optional<OutputFile> trajectory_, holds_file_;
  std::vector<double> row_;
  const Navigator* navigator_ = nullptr;
};

// The number of steps of `duration` at the model's time step, bounded before it is rounded
// (1e300 s or a 1e-300 s step would overflow).
long StepCount(const Simulation& sim, double duration) {
  const double dt = sim.model()->opt.timestep;
  constexpr double kMaxSteps = 1e10;
  const double step_count = duration / dt;
  if (!(step_count <= kMaxSteps)) {
    throw ConfigError(sim.source() + ": duration " + std::to_string(duration) + " s at dt " +
                      std::to_string(dt) + " s is " + std::to_string(step_count) + " steps; at most 1e10");
  }
  const long steps = std::lround(step_count);
  if (steps < 1 && duration > 0) {
    throw ConfigError(sim.source() + ": duration " + std::to_string(duration) +
                      " s is shorter than half a time step (" + std::to_string(dt) + " s)");
  }
  return steps;
}

// The output's size, known before the first step (a long run at a small step could fill the disk).
void CheckOutputSize(const Simulation& sim, const RunRecorder& recorder, long steps, const RunOptions& options) {
  const double rows = static_cast<double>(steps / options.record_every + 2);
  const double bytes = recorder.EstimateBytes(rows);
  if (bytes <= options.max_output_bytes) return;
  char estimate[160];
  std::snprintf(estimate, sizeof(estimate), "%.4g rows x %zu columns, up to %.4g MB; the limit is %.4g MB", rows,
                recorder.columns(), bytes / 1e6, options.max_output_bytes / 1e6);
  throw ConfigError(sim.source() + ": the run would write " + estimate +
                    ": shorten --duration, write every N-th step with --record-every N, or raise "
                    "the limit with --max-output-mb");
}

// Steps the simulation `steps` times (or until the scenario's controller is done), a row
// every `record_every` steps and the last. A diverged step or a MuJoCo error ends the loop
// with the last finite state restored (MuJoCo resets the data when a step diverges, and the
// summary reports the state before it).
RunResult StepLoop(Simulation& sim, ScenarioControl* control, RunRecorder& recorder, long steps,
                   const RunOptions& options) {
  const mjModel* m = sim.model();
  mjData* d = sim.data();
  RunResult result;
  const double t0 = d->time;
  Progress progress(options.progress, d->time, d->time + static_cast<double>(steps) * m->opt.timestep);
  recorder.Row(d);
  std::vector<mjtNum> last_qpos(d->qpos, d->qpos + m->nq), last_qvel(d->qvel, d->qvel + m->nv);
  double last_time = d->time;
  const auto start = std::chrono::steady_clock::now();
  for (long k = 0; k < steps; ++k) {
    if (control && !control->BeforeStep()) break;
    std::string error;
    std::copy(d->qpos, d->qpos + m->nq, last_qpos.begin());
    std::copy(d->qvel, d->qvel + m->nv, last_qvel.begin());
    last_time = d->time;
    bool stepped = false;
    try {
      stepped = sim.TryStep(&error);
    } catch (const MuJoCoError& e) {
      result.mujoco_error = true;
      error = e.what();
    }
    if (!stepped) {
      result.diverged = !result.mujoco_error;
      result.error = error;
      std::copy(last_qpos.begin(), last_qpos.end(), d->qpos);
      std::copy(last_qvel.begin(), last_qvel.end(), d->qvel);
      d->time = last_time;
      break;
    }
    ++result.steps;
    if ((k + 1) % options.record_every == 0 || k + 1 == steps) recorder.Row(d);
    progress.Update(d->time);
  }
  progress.Done();
  result.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.sim_time = d->time - t0;
  return result;
}

// Energy at the final state: kinetic includes added mass (1/2 v^T M v with M from the
// engine); the potential is MuJoCo's (gravity and springs; buoyancy is not included).
json FinalEnergy(Simulation& sim, const RunResult& result) {
  if (result.diverged || result.mujoco_error) return nullptr;
  const int flags = sim.mutable_model()->opt.enableflags;
  sim.mutable_model()->opt.enableflags |= mjENBL_ENERGY;
  sim.Forward();
  json energy = {{"kinetic_J", sim.KineticEnergy()},
                 {"potential_gravity_J", sim.data()->energy[0]},
                 {"note", "kinetic = 1/2 qvel^T M qvel with M including added mass; potential "
                          "is MuJoCo's gravity (and spring) energy, buoyancy excluded"}};
  sim.mutable_model()->opt.enableflags = flags;
  return energy;
}

// The scenario's controllers' parts of summary.json, and their logs written into `dir`.
void AddControllerReports(const ScenarioControl& control, const Scenario& scenario, const mjModel* m,
                          const std::string& dir, const std::string& holds_path, json* summary) {
  if (const PathController* follower = control.follower()) {
    // the path, for plots, and how well it was followed
    const std::string path_csv = (std::filesystem::path(dir) / "path.csv").string();
    OutputFile path_out(path_csv);
    path_out.stream().precision(17);
    path_out.stream() << "x,y,z\n";
    for (const Vec3& p : follower->path().points) {
      path_out.stream() << p.x() << "," << p.y() << "," << p.z() << "\n";
    }
    path_out.Commit();
    const TrackingReport& t = follower->report();
    (*summary)["tracking"] = {{"body", scenario.controller->body},
                              {"path_points", follower->path().points.size()},
                              {"path_length_m", follower->path().Length()},
                              {"completed", t.completed},
                              {"completion_time_s", t.completed ? json(t.completion_time) : json(nullptr)},
                              {"mse_position_m2", t.mse_position},
                              {"mse_rotation_rad2", t.mse_rotation},
                              {"samples", t.samples},
                              {"path", path_csv}};
    const std::string controller_json = follower->SummaryJson();
    if (!controller_json.empty()) (*summary)["controller"] = json::parse(controller_json);
    follower->WriteLogs(dir);
    const std::vector<std::string> warnings = follower->warnings();
    if (!warnings.empty()) (*summary)["warnings"] = warnings;
  }
  if (!control.holds().empty()) {
    json list = json::array();
    for (const Stabilize& h : control.holds()) {
      list.push_back({{"body", OutputName(m, mjOBJ_BODY, h.body())},
                      {"depth_reference_m", -h.height_reference()},
                      {"thrusters", h.thrusters().names}});
    }
    (*summary)["stabilize"] = {{"holds", list}, {"log", holds_path}};
  }
  if (const VmsController* vms = control.vms()) {
    // the vms controller's references, thruster wrenches and monitors (docs/vms.md)
    const std::string vms_csv = (std::filesystem::path(dir) / "vms.csv").string();
    vms->WriteLog(vms_csv);
    (*summary)["vms_log"] = vms_csv;
    (*summary)["warnings"] = vms->warnings();
  }
}

}  // namespace

RunResult Run(const RunOptions& options, std::ostream* log, std::ostream* errors) {
  if (!errors) errors = log;
  if (options.record_every < 1) {
    throw ConfigError("--record-every must be >= 1, got " + std::to_string(options.record_every));
  }
  ResolvedInput input = ResolveInput(options.input, options.engine, options.integrator, options.dt,
                                     options.constraints);
  std::optional<Scenario>& scenario = input.scenario;
  const double duration = options.duration.value_or(
      scenario && scenario->duration ? *scenario->duration : 10.0);
  if (!(duration > 0) || !std::isfinite(duration)) {
    throw ConfigError("duration must be a positive number of seconds, got " + std::to_string(duration));
  }

  std::unique_ptr<Simulation> sim = Simulation::LoadFile(input.model, input.options);
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  if (options.exact_sensors) {
    // before the scenario's state and the first step, as if the data had been made exact
    SetSensorsExact(m, d, true);
    sim->Forward();
  }
  std::unique_ptr<ScenarioControl> control;
  if (scenario) {
    scenario->Apply(*sim);
    control = std::make_unique<ScenarioControl>(*scenario, *sim);
    if (log && control->vms()) {
      for (const std::string& w : control->vms()->warnings()) *log << "warning: " << w << "\n";
    }
  } else {
    sim->Reset(m->nkey > 0 ? 0 : -1);  // keyframe 0 (qpos, qvel, ctrl) when there is one
  }
  const std::vector<Stabilize> no_holds;
  RunRecorder recorder(options.out_dir, m, control ? control->holds() : no_holds);
  recorder.SetNavigator(control ? control->navigator() : nullptr);

  std::error_code dir_error;
  std::filesystem::create_directories(options.out_dir, dir_error);
  if (dir_error) throw OutputError(options.out_dir + ": cannot create the output folder: " + dir_error.message());
  const long steps = StepCount(*sim, duration);
  if (log) {
    *log << "nereid run: " << sim->source() << " (" << ToString(sim->engine()) << ", "
         << ToString(sim->integrator()) << ", dt " << m->opt.timestep << " s, " << steps
         << " steps)\n";
  }
  CheckOutputSize(*sim, recorder, steps, options);
  recorder.Open();
  const RunResult result = StepLoop(*sim, control.get(), recorder, steps, options);
  recorder.Commit();

  json summary = {
      {"model", input.model},
      {"scenario", scenario ? json(scenario->source) : json(nullptr)},
      {"mujoco_version", mj_versionString()},
      {"nereid_version", NEREID_VERSION},
      {"engine", ToString(sim->engine())},
      {"integrator", ToString(sim->integrator())},
      {"constraints", ToString(sim->constraints())},
      {"timestep", m->opt.timestep},
      {"duration_requested", duration},
      {"steps", result.steps},
      {"sim_time", result.sim_time},
      {"wall_time_s", result.wall_time},
      {"realtime_factor", result.wall_time > 0 ? result.sim_time / result.wall_time : 0.0},
      {"status", result.diverged ? "diverged" : result.mujoco_error ? "mujoco_error" : "ok"},
      {"error", result.diverged || result.mujoco_error ? json(result.error) : json(nullptr)},
      {"final_state", FinalState(m, d)},  // after a divergence: the last finite state
      {"energy", FinalEnergy(*sim, result)},
      {"trajectory", recorder.trajectory_path()},
  };
  if (options.exact_sensors) summary["exact_sensors"] = true;  // written only then (docs/outputs.md)
  if (control) AddControllerReports(*control, *scenario, m, options.out_dir, recorder.holds_path(), &summary);
  // MuJoCo's warnings in this run (Nereid keeps them: nothing goes to MUJOCO_LOG.TXT)
  summary["mujoco_warnings"] = {{"count", sim->mujoco_warnings().count()},
                                {"messages", sim->mujoco_warnings().messages()}};
  const std::string summary_path = (std::filesystem::path(options.out_dir) / "summary.json").string();
  WriteOutputFile(summary_path, summary.dump(2) + "\n");
  if (errors && (result.diverged || result.mujoco_error)) *errors << "error: " << result.error << "\n";
  if (log) {
    *log << "wrote " << recorder.trajectory_path() << " and " << summary_path << " (" << result.steps
         << " steps, " << result.sim_time << " s simulated in " << result.wall_time << " s)\n";
    if (sim->mujoco_warnings().count() > 0) {
      *log << "MuJoCo warnings: " << sim->mujoco_warnings().count() << " (first: "
           << sim->mujoco_warnings().messages().front() << "; all in summary.json)\n";
    }
    if (const PathController* follower = control ? control->follower() : nullptr) {
      const TrackingReport& t = follower->report();
      *log << "path " << (t.completed ? "completed in " + std::to_string(t.completion_time) + " s" : "not completed")
           << ", MSE position " << t.mse_position << " m^2, MSE rotation " << t.mse_rotation << " rad^2\n";
    }
  }
  return result;
}

}  // namespace nereid
