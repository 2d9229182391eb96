// Copyright Nereid authors.
// nereid crosscheck: one method's run and its measurements (crosscheck_parts.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/crosscheck_parts.h"
#include "nereid/error.h"
#include "nereid/mujoco_log.h"
#include "nereid/simulation.h"
#include "nereid/uk.h"

namespace nereid::cli {
namespace {

using uk::Vec3;

void Progress(const std::string& label, long step, long total) {
  static const bool tty = isatty(fileno(stderr)) != 0;
  if (total < 2000 || !tty) return;
  const long every = total / 100;
  if (step % every != 0 && step != total) return;
  const int width = 40;
  const int filled = static_cast<int>(width * step / total);
  std::fprintf(stderr, "\r  %-7s [%s%s] %3ld%%", label.c_str(), std::string(static_cast<size_t>(filled), '#').c_str(),
               std::string(static_cast<size_t>(width - filled), ' ').c_str(), 100 * step / total);
  if (step == total) std::fprintf(stderr, "\n");
}

// MuJoCo's warnings of one run (its load and steps, kept by the Simulation under Nereid's
// log handler), on stderr in Nereid's words, each message once per process: the runs load
// the same model, and their parse warnings would repeat.
void PrintWarnings(const Simulation& sim, CrosscheckMethod method) {
  static std::set<std::string> printed;
  const MuJoCoWarnings& w = sim.mujoco_warnings();
  const std::string name = Scenario::Crosscheck::Name(method);
  for (const std::string& message : w.messages()) {
    if (printed.insert(message).second) {
      std::fprintf(stderr, "warning: MuJoCo (%s run): %s\n", name.c_str(), message.c_str());
    }
  }
  if (w.count() > static_cast<long>(w.messages().size())) {
    std::fprintf(stderr, "warning: MuJoCo (%s run): %ld warnings in all (the first %zu kept)\n", name.c_str(),
                 w.count(), w.messages().size());
  }
}

double AxisAngle(const mjData* d, int body, int axis) {
  const mjtNum* R = d->xmat + 9 * body;  // row-major world-from-body
  switch (axis) {
    case 0: return std::atan2(R[7], R[8]);   // roll
    case 1: return std::asin(std::clamp(-R[6], -1.0, 1.0));  // pitch
    default: return std::atan2(R[3], R[0]);  // yaw
  }
}


// The options of the method's Simulation: the scenario's integrator and time step, and
// for the UK run UK constraints with the scenario's settings.
SimulationOptions MethodOptions(const Scenario& s, const Scenario::Crosscheck& cc, CrosscheckMethod method) {
  SimulationOptions o;
  o.integrator = s.integrator;
  o.timestep = s.dt;
  if (method == CrosscheckMethod::kUK) {
    o.constraints = ConstraintMethod::kUK;
    o.uk = cc.uk;
  }
  return o;
}

// The merged run's initial state, the same as the others': every free joint from the
// original body of the same name, in the original's keyframe 0 (or its reference pose at
// rest), read from the model as mj_resetDataKeyframe / mj_resetData would set it. No mjData
// of the original is made: plain MuJoCo's mj_makeData would create its plugin instances
// outside Nereid's engine (the hydrodynamics plugin then warned that added mass is
// dropped, through MuJoCo's default handler: on stdout and into MUJOCO_LOG.TXT in the
// working directory)
void SetMergedInitialState(const mjModel* original, const mjModel* m, mjData* d) {
  const bool key = original->nkey > 0;
  const mjtNum* qpos0 = key ? original->key_qpos : original->qpos0;
  for (int b = 1; b < m->nbody; ++b) {
    const int j = m->body_jntadr[b];
    if (m->body_jntnum[b] != 1 || m->jnt_type[j] != mjJNT_FREE) continue;
    const int b0 = mj_name2id(original, mjOBJ_BODY, mj_id2name(m, mjOBJ_BODY, b));
    if (b0 < 0) continue;
    const int j0 = original->body_jntadr[b0];
    mju_copy(d->qpos + m->jnt_qposadr[j], qpos0 + original->jnt_qposadr[j0], 7);
    if (key) {
      mju_copy(d->qvel + m->jnt_dofadr[j], original->key_qvel + original->jnt_dofadr[j0], 6);
    } else {
      mju_zero(d->qvel + m->jnt_dofadr[j], 6);
    }
  }
}

// The centre of mass of `bodies` (ids below 0 are skipped); 0 when they have no mass.
Vec3 CentreOfMass(const mjModel* m, const mjData* d, const std::vector<int>& bodies) {
  double mass = 0;
  Vec3 com = Vec3::Zero();
  for (int b : bodies) {
    if (b < 0) continue;
    mass += m->body_mass[b];
    com += m->body_mass[b] * Vec3(d->xipos[3 * b], d->xipos[3 * b + 1], d->xipos[3 * b + 2]);
  }
  if (mass > 0) com /= mass;
  return com;
}

// The force and torque that MuJoCo's weld `eq` applies on body1 (free dofs from v1, state
// s1) at the connection point: J^T f of the weld's rows of d->efc_force, as a wrench at the
// point. f and q are scratch of d->nefc and m->nv values.
void MuJoCoWeldWrench(const mjModel* m, const mjData* d, int eq, int v1, const uk::FreeBodyState& s1,
                      const uk::ConnectionGeometry& g, std::vector<mjtNum>* f, std::vector<mjtNum>* q, Vec3* force,
                      Vec3* torque) {
  std::fill(f->begin(), f->end(), 0.0);
  for (int i = 0; i < d->nefc; ++i) {
    if (d->efc_type[i] == mjCNSTR_EQUALITY && d->efc_id[i] == eq) (*f)[static_cast<size_t>(i)] = d->efc_force[i];
  }
  mj_mulJacTVec(m, d, q->data(), f->data());
  const std::vector<mjtNum>& v = *q;
  *force = Vec3(v[static_cast<size_t>(v1)], v[static_cast<size_t>(v1 + 1)], v[static_cast<size_t>(v1 + 2)]);
  const Vec3 tb(v[static_cast<size_t>(v1 + 3)], v[static_cast<size_t>(v1 + 4)], v[static_cast<size_t>(v1 + 5)]);
  const Vec3 point = s1.p + s1.R * g.r1;
  *torque = s1.R * tb - (point - s1.p).cross(*force);
}

// The first peak: the first extremum of the angle after the start (a parabola through 3
// points), or none.
std::optional<double> FirstPeak(const std::vector<double>& angle, const std::vector<double>& time) {
  for (size_t i = 1; i + 1 < angle.size(); ++i) {
    const double a = angle[i] - angle[i - 1], b = angle[i + 1] - angle[i];
    if (std::abs(a) < 1e-12 || a * b > 0) continue;
    const double h = time[i] - time[i - 1];
    const double denom = angle[i - 1] - 2 * angle[i] + angle[i + 1];
    const double shift = std::abs(denom) > 0 ? 0.5 * (angle[i - 1] - angle[i + 1]) / denom : 0;
    return time[i] + shift * h;
  }
  return std::nullopt;
}

// One method's run (RunOne), in named steps: Load the method's model, SetInitialState,
// FindBodies (the assembly's and the peak's), then StepAll, which Records a Sample every
// record_every steps.
class MethodRun {
 public:
  MethodRun(const CrosscheckCase& c, CrosscheckMethod method)
      : c_(c), cc_(*c.scenario->crosscheck), s_(*c.scenario), method_(method) {
    r_.method = method;
  }

  RunResult Run() {
    if (method_ == CrosscheckMethod::kMerged && c_.merged_xml.empty()) {
      r_.skipped = c_.merge_refused;
      return r_;
    }
    Load();
    SetInitialState();
    FindBodies();
    StepAll();
    r_.first_peak = FirstPeak(angle_, time_);
    PrintWarnings(*sim_, method_);
    r_.ran = true;
    return r_;
  }

 private:
  // The model as written (the merged body's for the merged run); the weld run's welds get
  // the scenario's solref and solimp.
  void Load() {
    const SimulationOptions o = MethodOptions(s_, cc_, method_);
    sim_ = method_ == CrosscheckMethod::kMerged ? Simulation::LoadString(c_.merged_xml, o, s_.model + " (merged)")
                                                : Simulation::LoadFile(s_.model, o);
    m_ = sim_->mutable_model();
    d_ = sim_->data();
    if (method_ == CrosscheckMethod::kWeld) {
      for (int eq : c_.welds) {
        for (int i = 0; i < 2; ++i) m_->eq_solref[2 * eq + i] = cc_.solref[static_cast<size_t>(i)];
        for (int i = 0; i < 5; ++i) m_->eq_solimp[5 * eq + i] = cc_.solimp[static_cast<size_t>(i)];
      }
    }
  }

  void SetInitialState() {
    s_.Apply(*sim_);  // keyframe 0 (or the model's defaults) and the wrenches' bodies
    // the state at t = 0 is recorded before any wrench acts (each is set before its step)
    mju_zero(d_->xfrc_applied, static_cast<int>(6 * m_->nbody));
    if (method_ == CrosscheckMethod::kMerged) SetMergedInitialState(c_.original, m_, d_);
    sim_->Forward();
  }

  // The assembly's bodies (-1 for a name the model lacks) and the body whose angle peaks.
  void FindBodies() {
    for (const std::string& n : c_.assembly) assembly_.push_back(mj_name2id(m_, mjOBJ_BODY, n.c_str()));
    peak_body_ = cc_.peak_body.empty() ? -1 : mj_name2id(m_, mjOBJ_BODY, cc_.peak_body.c_str());
    if (!cc_.peak_body.empty() && peak_body_ < 0) {
      throw ConfigError(s_.source + ": /peak/body: no body named '" + Excerpt(cc_.peak_body) + "' in " + s_.model);
    }
  }

  // The samples at t = 0, every record_every steps and after the last; the scenario's
  // wrenches before each step (scenario.cc, as nereid run applies them); the peak body's
  // angle at the start and after every step; the time spent stepping.
  void StepAll() {
    const long steps = std::lround(s_.duration.value_or(10.0) / m_->opt.timestep);
    r_.steps = steps;
    Record();
    double ns = 0;
    if (peak_body_ >= 0) { angle_.push_back(AxisAngle(d_, peak_body_, cc_.peak_axis)); time_.push_back(d_->time); }
    for (long i = 1; i <= steps; ++i) {
      s_.ApplyInputs(*sim_, d_->time);
      const auto t0 = std::chrono::steady_clock::now();
      std::string error;
      const bool ok = sim_->TryStep(&error);
      ns += static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::steady_clock::now() - t0).count());
      if (!ok) {
        PrintWarnings(*sim_, method_);
        throw DivergenceError(error);
      }
      if (peak_body_ >= 0) {
        mj_kinematics(m_, d_);
        angle_.push_back(AxisAngle(d_, peak_body_, cc_.peak_axis));
        time_.push_back(d_->time);
      }
      if (i % cc_.record_every == 0 || i == steps) Record();
      Progress(Scenario::Crosscheck::Name(method_), i, steps);
    }
    r_.ns_per_step = steps ? ns / static_cast<double>(steps) : 0;
  }

  // A sample at the current state: the assembly's centre of mass and (not merged) each
  // "uk:" weld's drift and the wrench on body1 at the connection point.
  void Record() {
    sim_->Forward();  // current forces (UK multipliers, MuJoCo's efc_force) at this state
    Sample x;
    x.t = d_->time;
    x.com = CentreOfMass(m_, d_, assembly_);
    if (method_ != CrosscheckMethod::kMerged) MeasureConnections(&x);
    r_.samples.push_back(x);
  }

  void MeasureConnections(Sample* x) const {
    const std::vector<ConnectionReport> reports = sim_->ConnectionReports();
    std::vector<mjtNum> f(static_cast<size_t>(d_->nefc)), q(static_cast<size_t>(m_->nv));
    for (size_t k = 0; k < c_.welds.size(); ++k) {
      const int eq = c_.welds[k];
      const int b1 = m_->eq_obj1id[eq], b2 = m_->eq_obj2id[eq];
      const int a1 = m_->jnt_qposadr[m_->body_jntadr[b1]], a2 = m_->jnt_qposadr[m_->body_jntadr[b2]];
      const int v1 = m_->jnt_dofadr[m_->body_jntadr[b1]], v2 = m_->jnt_dofadr[m_->body_jntadr[b2]];
      const uk::ConnectionGeometry g = uk::WeldGeometry(c_.original->eq_data + mjNEQDATA * eq);
      const uk::FreeBodyState s1 = uk::ReadFreeBody(d_->qpos, d_->qvel, a1, v1);
      const uk::FreeBodyState s2 = uk::ReadFreeBody(d_->qpos, d_->qvel, a2, v2);
      const uk::ConnectionRows rows = uk::EvaluateConnection(g, s1, s2);
      x->pos_err.push_back(rows.c.head<3>().norm());
      x->ang_err.push_back(rows.c.tail<3>().norm());
      Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
      if (method_ == CrosscheckMethod::kUK) {
        for (const ConnectionReport& report : reports) {
          if (report.equality == eq) { force = report.force; torque = report.torque; }
        }
      } else {
        MuJoCoWeldWrench(m_, d_, eq, v1, s1, g, &f, &q, &force, &torque);
      }
      x->force.push_back(force);
      x->torque.push_back(torque);
    }
  }

  const CrosscheckCase& c_;
  const Scenario::Crosscheck& cc_;
  Scenario s_;  // Apply resolves the names in this copy
  const CrosscheckMethod method_;
  RunResult r_;
  std::unique_ptr<Simulation> sim_;
  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
  std::vector<int> assembly_;  // the assembly's bodies in this model
  int peak_body_ = -1;
  std::vector<double> angle_, time_;  // the peak body's angle at the start and after every step
};

}  // namespace

RunResult RunOne(const CrosscheckCase& c, CrosscheckMethod method) { return MethodRun(c, method).Run(); }

}  // namespace nereid::cli
