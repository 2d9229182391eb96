// Copyright Nereid authors.
#include "nereid/mpc.h"

#include <cmath>
#include <limits>
#include <optional>

#include "mpc/ocp.h"
#include "mpc/prediction.h"
#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/simulation.h"

namespace nereid {

struct VehicleMpc::Impl {
  int body, free_dof;
  MpcOptions options;
  VehiclePredictionModel model;
  ThrusterSet thrusters;
  int nx;
  std::unique_ptr<mpc::Ocp> ocp;
  Eigen::MatrixXd last_inputs;  // the last successful plan's inputs (nu x N)
  int failed_in_a_row = 0;
  // the yaw of the last plan's state, unwrapped: a state's yaw (-pi..pi from its attitude)
  // is moved by whole turns to within pi of it, so that consecutive plans (and the warm
  // start the solver keeps) see one continuous yaw through +-pi
  std::optional<double> last_yaw;
};

VehicleMpc::VehicleMpc(const Simulation& sim, int body, const MpcOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.body = body;
  s.free_dof = FreeJointDof(sim.model(), body);
  if (s.free_dof < 0) {
    throw ConfigError(sim.source() + ": MPC: body '" + std::string(mj_id2name(sim.model(), mjOBJ_BODY, body)) +
                      "' has no free joint");
  }
  s.options = options;
  if (options.horizon < 1 || options.horizon > MpcOptions::kMaxHorizon) {
    throw ConfigError("MPC: horizon must be in 1.." + std::to_string(MpcOptions::kMaxHorizon) +
                      ", got " + std::to_string(options.horizon));
  }
  if (options.max_sqp_iterations < 1 || options.max_sqp_iterations > MpcOptions::kMaxSqpIterations) {
    throw ConfigError("MPC: max_sqp_iterations must be in 1.." + std::to_string(MpcOptions::kMaxSqpIterations) +
                      ", got " + std::to_string(options.max_sqp_iterations));
  }
  // R = cost_thrust I is the QP's whole Hessian in the thrusts (the states' part is Q, zero
  // in the velocities): with no thrust cost the QP is singular and the solver spins
  if (!(options.cost_thrust > 0) || !std::isfinite(options.cost_thrust)) {
    throw ConfigError("MPC: cost_thrust must be > 0 (got " + std::to_string(options.cost_thrust) +
                      "): " + kCostThrustReason);
  }
  if (options.max_line_search < 1 || options.max_line_search > MpcOptions::kMaxLineSearch) {
    throw ConfigError("MPC: max_line_search must be in 1.." + std::to_string(MpcOptions::kMaxLineSearch) +
                      ", got " + std::to_string(options.max_line_search));
  }
  s.thrusters = FindThrusters(sim.model(), body);
  s.model = VehiclePredictionModel::FromSimulation(sim, body, s.thrusters);
  const casadi::Function f = options.prediction == MpcPrediction::kSeed ? mpc::SeedDynamicsFunction(s.model)
                                                                        : mpc::FullDynamicsFunction(s.model);
  s.nx = static_cast<int>(f.size1_in(0));
  const int nu = s.model.thrusters();
  const double inf = std::numeric_limits<double>::infinity();
  mpc::OcpSpec spec;
  spec.dynamics = f;
  spec.horizon = options.horizon;
  spec.dt = options.control_period;
  spec.q = Eigen::VectorXd::Zero(s.nx);
  spec.q.head<3>().setConstant(options.cost_pos);
  spec.q.segment<3>(3).setConstant(options.cost_rot);
  spec.r = Eigen::VectorXd::Constant(nu, options.cost_thrust);
  spec.x_lo = Eigen::VectorXd::Constant(s.nx, -inf);
  spec.x_hi = Eigen::VectorXd::Constant(s.nx, inf);
  spec.x_lo.segment<6>(6).setConstant(-options.velocity_limit);  // eq. 4.3
  spec.x_hi.segment<6>(6).setConstant(options.velocity_limit);
  spec.u_lo = s.model.thrust_min;  // eq. 4.4: the thrusters' reachable range
  spec.u_hi = s.model.thrust_max;
  for (Eigen::Index i = 0; i < nu; ++i) {
    if (!std::isfinite(spec.u_lo[i]) || !std::isfinite(spec.u_hi[i])) {
      throw ConfigError(sim.source() + ": MPC: thruster '" + s.thrusters.names[static_cast<size_t>(i)] +
                        "' has no finite thrust range (set thrust_limits or a bounded input)");
    }
  }
  spec.qp_solver = options.qp_solver;
  spec.max_sqp_iterations = options.max_sqp_iterations;
  spec.max_qp_iterations = MpcOptions::kMaxQpIterations;
  spec.implicit = options.implicit_rk4;
  spec.gauss_newton = options.gauss_newton;
  spec.max_line_search = options.max_line_search;
  s.ocp = std::make_unique<mpc::Ocp>(spec);
}

VehicleMpc::~VehicleMpc() = default;

const VehiclePredictionModel& VehicleMpc::model() const { return impl_->model; }
const ThrusterSet& VehicleMpc::thrusters() const { return impl_->thrusters; }
const MpcOptions& VehicleMpc::options() const { return impl_->options; }
int VehicleMpc::state_size() const { return impl_->nx; }

Eigen::VectorXd VehicleMpc::State(const mjData* d) const {
  const int b = impl_->body;
  const Mat3 R = BodyRotation(d, b);
  const mjtNum* qvel = d->qvel + impl_->free_dof;  // [world velocity of the origin; body rates]
  Eigen::VectorXd x = Eigen::VectorXd::Zero(impl_->nx);
  x.head<3>() = BodyPosition(d, b);
  x.segment<3>(3) = mpc::EulerZyx(R);
  x.segment<3>(6) = R.transpose() * Vec3(qvel[0], qvel[1], qvel[2]);
  x.segment<3>(9) = Vec3(qvel[3], qvel[4], qvel[5]);
  // the full model's lagged thrusts: the thrusters' present force
  const Eigen::VectorXd& tau = impl_->model.motor_time_constant;
  int j = 12;
  for (Eigen::Index i = 0; i < tau.size() && j < impl_->nx; ++i) {
    if (tau[i] > 0) x[j++] = d->actuator_force[impl_->thrusters.outputs[static_cast<size_t>(i)]];
  }
  return x;
}

MpcPlan VehicleMpc::Plan(const Eigen::VectorXd& x, const std::vector<Vec6>& references) {
  Impl& s = *impl_;
  const int N = s.options.horizon;
  if (x.size() != s.nx || static_cast<int>(references.size()) != N + 1) {
    throw ConfigError("MPC: Plan needs a state of size " + std::to_string(s.nx) + " and " +
                      std::to_string(N + 1) + " references");
  }
  Eigen::VectorXd x0 = x;
  if (s.last_yaw) x0[5] += 2 * M_PI * std::round((*s.last_yaw - x[5]) / (2 * M_PI));  // exact when no turn
  s.last_yaw = x0[5];
  Eigen::MatrixXd refs = Eigen::MatrixXd::Zero(s.nx, N + 1);
  for (int k = 0; k <= N; ++k) {
    refs.col(k).head<6>() = references[static_cast<size_t>(k)];
    // unwrap the yaw reference along the horizon: the first to within pi of the current
    // yaw, each next to within pi of the one before, so that a reference turning through
    // +-pi (the pillar helix) stays continuous and is never reached the long way round
    const size_t i = static_cast<size_t>(k);
    if (k > 0 && references[i][5] == references[i - 1][5]) {
      refs(5, k) = refs(5, k - 1);  // a held attitude: the same unwrapped yaw
    } else {
      const double previous = k == 0 ? x0[5] : refs(5, k - 1);
      refs(5, k) = previous + WrapAngle(refs(5, k) - previous);
    }
  }
  const mpc::OcpSolution solution = s.ocp->Solve(x0, refs);
  MpcPlan plan;
  plan.status = solution.status;
  plan.iterations = solution.iterations;
  plan.retried = solution.retried;
  plan.solve_time_s = solution.solve_time_s;
  plan.cost = solution.cost;
  plan.states = solution.X;
  if (solution.ok) {
    plan.thrust = solution.U.col(0).cwiseMax(s.model.thrust_min).cwiseMin(s.model.thrust_max);
    s.last_inputs = solution.U;
    s.failed_in_a_row = 0;
    plan.max_velocity_planned = solution.X.block(6, 1, 6, N).cwiseAbs().maxCoeff();
  } else {
    // fallback: the last good plan's input for this period (it was made for this), then
    // its later inputs, zero thrust past its end or without one
    plan.fallback = true;
    ++s.failed_in_a_row;
    const int k = s.failed_in_a_row;
    if (s.last_inputs.size() > 0 && k < s.last_inputs.cols()) {
      plan.thrust = s.last_inputs.col(k);
    } else {
      plan.thrust = Eigen::VectorXd::Zero(s.model.thrusters());
    }
  }
  return plan;
}

MpcPlan VehicleMpc::PlanAndApply(const mjModel* m, mjData* d, const std::vector<Vec6>& references) {
  MpcPlan plan = Plan(State(d), references);
  impl_->thrusters.SetCommands(m, d, plan.thrust);
  return plan;
}

}  // namespace nereid
