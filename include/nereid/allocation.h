// Copyright Nereid authors.
// Thrust allocation: the 6 x n matrix B that maps thruster forces to the body wrench of
// a vehicle, derived from the model's thruster actuators (nereid.thruster on sites), and
// the allocation tau -> thrusts that respects each thruster's thrust limits.
#ifndef NEREID_ALLOCATION_H_
#define NEREID_ALLOCATION_H_

#include <string>
#include <vector>

#include <Eigen/Core>
#include <mujoco/mujoco.h>

#include "nereid/frames.h"
#include "nereid/thruster_model.h"

namespace nereid {

using Matrix6X = Eigen::Matrix<double, 6, Eigen::Dynamic>;

// The thrusters of one vehicle body: every nereid.thruster actuator whose site is on it.
struct ThrusterSet {
  int body = -1;
  std::vector<int> actuators;         // actuator ids, in model order
  // each one's control in mjData.ctrl and force output in actuator_force (actuator_ctrladr,
  // actuator_outadr: an actuator before it may take 0 or several controls or outputs)
  std::vector<int> controls, outputs;
  std::vector<std::string> names;     // actuator names
  std::vector<ThrusterModel> models;  // each actuator's thruster type
  // B: column j is the wrench [force; moment] about the body origin, in MuJoCo's body
  // frame (FLU), per newton of thruster j's force (its gear: direction and reaction torque)
  Matrix6X B;
  Eigen::VectorXd thrust_min, thrust_max;  // N, reachable (ThrusterModel::ThrustRange)

  // B in SNAME/FRD body axes: rows [X Y Z K M N] = T6 B with T6 = diag(1,-1,-1,1,-1,-1).
  Matrix6X B_frd() const;
  // Sets each thruster's ctrl so that it gives `thrust` (N) in steady state.
  void SetCommands(const mjModel* m, mjData* d, const Eigen::VectorXd& thrust) const;
  // Thruster j's command for `thrust` (N): ThrusterModel::CommandForThrust with the range
  // kept here.
  double CommandFor(int j, double thrust) const {
    return models[static_cast<size_t>(j)].CommandForThrust(thrust, {thrust_min[j], thrust_max[j]});
  }
  // The RL tasks' action scale, for thruster j: an action a is the fraction of its
  // reachable forward (a > 0) or reverse (a < 0) thrust. Neither clamps.
  double ThrustForAction(int j, double a) const { return a >= 0 ? a * thrust_max[j] : -a * thrust_min[j]; }
  double ActionForThrust(int j, double thrust) const {
    return thrust >= 0 ? thrust / thrust_max[j] : -thrust / thrust_min[j];
  }
};

// Thrusters on `body`. Throws ConfigError if a thruster's config is invalid.
ThrusterSet FindThrusters(const mjModel* m, int body);

struct AllocationOptions {
  Vec6 weights = Vec6::Ones();  // weight of each wrench component in the fit
  double regularization = 1e-9; // relative weight of sum(thrust^2): picks the least effort
};

// Thrusts u minimising |W^(1/2) (B u - tau)|^2 + lambda |u|^2 subject to
// lo <= u <= hi (box-constrained least squares, solved exactly by a primal active-set
// method). Bounds must contain 0. With loose bounds it is the weighted pseudo-inverse.
Eigen::VectorXd Allocate(const Matrix6X& B, const Vec6& tau, const Eigen::VectorXd& lo,
                         const Eigen::VectorXd& hi, const AllocationOptions& options = {});

}  // namespace nereid

#endif  // NEREID_ALLOCATION_H_
