// Copyright Nereid authors.
// nereid crosscheck: one method's run and its measurements (crosscheck_parts.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <string>

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

}  // namespace

RunResult RunOne(const CrosscheckCase& c, CrosscheckMethod method) {
  const Scenario::Crosscheck& cc = *c.scenario->crosscheck;
  Scenario s = *c.scenario;  // Apply resolves the names in this copy
  RunResult r;
  r.method = method;
  SimulationOptions o;
  o.integrator = s.integrator;
  o.timestep = s.dt;
  if (method == CrosscheckMethod::kUK) {
    o.constraints = ConstraintMethod::kUK;
    o.uk = cc.uk;
  }
  if (method == CrosscheckMethod::kMerged && c.merged_xml.empty()) {
    r.skipped = c.merge_refused;
    return r;
  }
  std::unique_ptr<Simulation> sim = method == CrosscheckMethod::kMerged
                                        ? Simulation::LoadString(c.merged_xml, o, s.model + " (merged)")
                                        : Simulation::LoadFile(s.model, o);
  mjModel* m = sim->mutable_model();
  mjData* d = sim->data();
  if (method == CrosscheckMethod::kWeld) {
    for (int eq : c.welds) {
      for (int i = 0; i < 2; ++i) m->eq_solref[2 * eq + i] = cc.solref[static_cast<size_t>(i)];
      for (int i = 0; i < 5; ++i) m->eq_solimp[5 * eq + i] = cc.solimp[static_cast<size_t>(i)];
    }
  }
  s.Apply(*sim);  // keyframe 0 (or the model's defaults) and the wrenches' bodies
  // the state at t = 0 is recorded before any wrench acts (each is set before its step)
  mju_zero(d->xfrc_applied, static_cast<int>(6 * m->nbody));
  if (method == CrosscheckMethod::kMerged) {
    // the same initial state: every free joint from the original body of the same name, in
    // the original's keyframe 0 (or its reference pose at rest), read from the model as
    // mj_resetDataKeyframe / mj_resetData would set it. No mjData of the original is made:
    // plain MuJoCo's mj_makeData would create its plugin instances outside Nereid's engine
    // (the hydrodynamics plugin then warned that added mass is dropped, through MuJoCo's
    // default handler: on stdout and into MUJOCO_LOG.TXT in the working directory)
    const mjModel* original = c.original;
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
  sim->Forward();
  std::vector<int> asm_body;
  for (const std::string& n : c.assembly) asm_body.push_back(mj_name2id(m, mjOBJ_BODY, n.c_str()));
  const int peak_body = cc.peak_body.empty() ? -1 : mj_name2id(m, mjOBJ_BODY, cc.peak_body.c_str());
  if (!cc.peak_body.empty() && peak_body < 0) {
    throw ConfigError(s.source + ": /peak/body: no body named '" + cc.peak_body + "' in " + s.model);
  }

  auto record = [&]() {
    sim->Forward();  // current forces (UK multipliers, MuJoCo's efc_force) at this state
    Sample x;
    x.t = d->time;
    double mass = 0;
    x.com.setZero();
    for (int b : asm_body) {
      if (b < 0) continue;
      mass += m->body_mass[b];
      x.com += m->body_mass[b] * Vec3(d->xipos[3 * b], d->xipos[3 * b + 1], d->xipos[3 * b + 2]);
    }
    if (mass > 0) x.com /= mass;
    if (method == CrosscheckMethod::kMerged) { r.samples.push_back(x); return; }
    const std::vector<ConnectionReport> reports = sim->ConnectionReports();
    std::vector<mjtNum> f(static_cast<size_t>(d->nefc)), q(static_cast<size_t>(m->nv));
    for (size_t k = 0; k < c.welds.size(); ++k) {
      const int eq = c.welds[k];
      const int b1 = m->eq_obj1id[eq], b2 = m->eq_obj2id[eq];
      const int a1 = m->jnt_qposadr[m->body_jntadr[b1]], a2 = m->jnt_qposadr[m->body_jntadr[b2]];
      const int v1 = m->jnt_dofadr[m->body_jntadr[b1]], v2 = m->jnt_dofadr[m->body_jntadr[b2]];
      const uk::ConnectionGeometry g = uk::WeldGeometry(c.original->eq_data + mjNEQDATA * eq);
      const uk::FreeBodyState s1 = uk::ReadFreeBody(d->qpos, d->qvel, a1, v1);
      const uk::FreeBodyState s2 = uk::ReadFreeBody(d->qpos, d->qvel, a2, v2);
      const uk::ConnectionRows rows = uk::EvaluateConnection(g, s1, s2);
      x.pos_err.push_back(rows.c.head<3>().norm());
      x.ang_err.push_back(rows.c.tail<3>().norm());
      Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
      if (method == CrosscheckMethod::kUK) {
        for (const ConnectionReport& report : reports) {
          if (report.equality == eq) { force = report.force; torque = report.torque; }
        }
      } else {
        // MuJoCo: J^T f of this weld's rows, on body1's free dofs -> wrench at the point
        std::fill(f.begin(), f.end(), 0.0);
        for (int i = 0; i < d->nefc; ++i) {
          if (d->efc_type[i] == mjCNSTR_EQUALITY && d->efc_id[i] == eq) f[static_cast<size_t>(i)] = d->efc_force[i];
        }
        mj_mulJacTVec(m, d, q.data(), f.data());
        force = Vec3(q[static_cast<size_t>(v1)], q[static_cast<size_t>(v1 + 1)], q[static_cast<size_t>(v1 + 2)]);
        const Vec3 tb(q[static_cast<size_t>(v1 + 3)], q[static_cast<size_t>(v1 + 4)], q[static_cast<size_t>(v1 + 5)]);
        const Vec3 point = s1.p + s1.R * g.r1;
        torque = s1.R * tb - (point - s1.p).cross(force);
      }
      x.force.push_back(force);
      x.torque.push_back(torque);
    }
    r.samples.push_back(x);
  };

  const long steps = std::lround(s.duration.value_or(10.0) / m->opt.timestep);
  r.steps = steps;
  record();
  double ns = 0;
  std::vector<double> angle;
  std::vector<double> time;
  if (peak_body >= 0) { angle.push_back(AxisAngle(d, peak_body, cc.peak_axis)); time.push_back(d->time); }
  for (long i = 1; i <= steps; ++i) {
    s.ApplyInputs(*sim, d->time);  // the wrenches (scenario.cc, as nereid run applies them)
    const auto t0 = std::chrono::steady_clock::now();
    std::string error;
    const bool ok = sim->TryStep(&error);
    ns += static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now() - t0).count());
    if (!ok) {
      PrintWarnings(*sim, method);
      throw DivergenceError(error);
    }
    if (peak_body >= 0) {
      mj_kinematics(m, d);
      angle.push_back(AxisAngle(d, peak_body, cc.peak_axis));
      time.push_back(d->time);
    }
    if (i % cc.record_every == 0 || i == steps) record();
    Progress(Scenario::Crosscheck::Name(method), i, steps);
  }
  r.ns_per_step = steps ? ns / static_cast<double>(steps) : 0;
  // first peak: the first extremum of the angle after the start (parabola through 3 points)
  for (size_t i = 1; i + 1 < angle.size(); ++i) {
    const double a = angle[i] - angle[i - 1], b = angle[i + 1] - angle[i];
    if (std::abs(a) < 1e-12 || a * b > 0) continue;
    const double h = time[i] - time[i - 1];
    const double denom = angle[i - 1] - 2 * angle[i] + angle[i + 1];
    const double shift = std::abs(denom) > 0 ? 0.5 * (angle[i - 1] - angle[i + 1]) / denom : 0;
    r.first_peak = time[i] + shift * h;
    break;
  }
  PrintWarnings(*sim, method);
  r.ran = true;
  return r;
}


}  // namespace nereid::cli
