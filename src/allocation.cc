// Copyright Nereid authors.
#include "nereid/allocation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Cholesky>

#include "nereid/error.h"
#include "nereid/object_names.h"
#include "nereid/plugins.h"

namespace nereid {

Matrix6X ThrusterSet::B_frd() const {
  return FrameSigns6(BodyFrame::kFRD).asDiagonal() * B;
}

void ThrusterSet::SetCommands(const mjModel*, mjData* d, const Eigen::VectorXd& thrust) const {
  for (size_t j = 0; j < actuators.size(); ++j) {
    d->ctrl[controls[j]] = CommandFor(static_cast<int>(j), thrust[static_cast<Eigen::Index>(j)]);
  }
}

ThrusterSet FindThrusters(const mjModel* m, int body) {
  ThrusterSet set;
  set.body = body;
  std::vector<int> instances = FindPluginInstances(m, kThrusterPlugin);
  std::vector<Vec6> columns;
  for (int a = 0; a < static_cast<int>(m->nactuator); ++a) {
    const int instance = m->actuator_plugin[a];
    if (instance < 0 || std::find(instances.begin(), instances.end(), instance) == instances.end()) continue;
    if (m->actuator_trntype[a] != mjTRN_SITE) continue;  // the plugin refuses these at load
    const int site = m->actuator_trnid[2 * a];
    if (m->site_bodyid[site] != body) continue;
    // the site's pose in the body frame and the gear's wrench in the site frame
    mjtNum R[9];
    mju_quat2Mat(R, m->site_quat + 4 * site);
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R_bs(R);
    const Vec3 r(m->site_pos[3 * site], m->site_pos[3 * site + 1], m->site_pos[3 * site + 2]);
    const mjtNum* gear = m->actuator_gear + 6 * m->actuator_outadr[a];  // per force output
    const Vec3 force = R_bs * Vec3(gear[0], gear[1], gear[2]);
    const Vec3 torque = R_bs * Vec3(gear[3], gear[4], gear[5]);
    Vec6 column;
    column << force, r.cross(force) + torque;
    columns.push_back(column);
    set.actuators.push_back(a);
    set.controls.push_back(m->actuator_ctrladr[a]);
    set.outputs.push_back(m->actuator_outadr[a]);
    set.names.push_back(NameOrId(m, mjOBJ_ACTUATOR, a));
    set.models.push_back(ThrusterModelFromModel(m, instance));
  }
  const auto n = static_cast<Eigen::Index>(columns.size());
  set.B.resize(6, n);
  set.thrust_min.resize(n);
  set.thrust_max.resize(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    set.B.col(j) = columns[static_cast<size_t>(j)];
    const auto [lo, hi] = set.models[static_cast<size_t>(j)].ThrustRange();
    set.thrust_min[j] = lo;
    set.thrust_max[j] = hi;
  }
  return set;
}

Eigen::VectorXd Allocate(const Matrix6X& B, const Vec6& tau, const Eigen::VectorXd& lo,
                         const Eigen::VectorXd& hi, const AllocationOptions& options) {
  const Eigen::Index n = B.cols();
  // quadratic program: min 1/2 u^T H u - g^T u, lo <= u <= hi
  const Eigen::MatrixXd BtW = B.transpose() * options.weights.asDiagonal();
  Eigen::MatrixXd H = BtW * B;
  const double scale = std::max(1.0, H.diagonal().maxCoeff());
  H.diagonal().array() += options.regularization * scale;
  const Eigen::VectorXd g = BtW * tau;

  Eigen::VectorXd u = Eigen::VectorXd::Zero(n);  // feasible: bounds contain 0
  // active[i]: -1 at lower bound, +1 at upper bound, 0 free
  std::vector<int> active(static_cast<size_t>(n), 0);
  constexpr double kTol = 1e-12;
  for (int iteration = 0; iteration < 10 * static_cast<int>(n) + 10; ++iteration) {
    // the minimiser over the free variables with the active ones held
    std::vector<Eigen::Index> free;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (!active[static_cast<size_t>(i)]) free.push_back(i);
    }
    Eigen::VectorXd target = u;
    if (!free.empty()) {
      const auto f = static_cast<Eigen::Index>(free.size());
      Eigen::MatrixXd Hff(f, f);
      Eigen::VectorXd rhs(f);
      for (Eigen::Index a = 0; a < f; ++a) {
        rhs[a] = g[free[a]];
        for (Eigen::Index i = 0; i < n; ++i) {
          if (active[static_cast<size_t>(i)]) rhs[a] -= H(free[a], i) * u[i];
        }
        for (Eigen::Index b = 0; b < f; ++b) Hff(a, b) = H(free[a], free[b]);
      }
      const Eigen::VectorXd uf = Hff.llt().solve(rhs);
      for (Eigen::Index a = 0; a < f; ++a) target[free[a]] = uf[a];
    }
    const Eigen::VectorXd step = target - u;
    if (step.norm() <= kTol * (1 + u.norm())) {
      // stationary on this face: release the bound whose multiplier has the wrong sign
      const Eigen::VectorXd gradient = H * u - g;
      Eigen::Index release = -1;
      double worst = -kTol * (1 + g.norm());
      for (Eigen::Index i = 0; i < n; ++i) {
        const int s = active[static_cast<size_t>(i)];
        const double multiplier = s < 0 ? gradient[i] : (s > 0 ? -gradient[i] : 0);
        if (s && multiplier < worst) { worst = multiplier; release = i; }
      }
      if (release < 0) return u;  // KKT conditions hold: optimal
      active[static_cast<size_t>(release)] = 0;
      continue;
    }
    // move towards the target until a bound blocks
    double alpha = 1;
    Eigen::Index blocking = -1;
    for (Eigen::Index i : free) {
      if (step[i] < 0 && u[i] + step[i] < lo[i]) {
        const double a = (lo[i] - u[i]) / step[i];
        if (a < alpha) { alpha = a; blocking = i; }
      } else if (step[i] > 0 && u[i] + step[i] > hi[i]) {
        const double a = (hi[i] - u[i]) / step[i];
        if (a < alpha) { alpha = a; blocking = i; }
      }
    }
    u += alpha * step;
    if (blocking >= 0) {
      const bool upper = step[blocking] > 0;
      u[blocking] = upper ? hi[blocking] : lo[blocking];
      active[static_cast<size_t>(blocking)] = upper ? 1 : -1;
    }
  }
  return u;  // iteration limit (not reached for a strictly convex problem in practice)
}

}  // namespace nereid
