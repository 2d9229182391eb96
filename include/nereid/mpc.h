// Copyright Nereid authors.
// Model predictive control of a thruster vehicle (seed 002 chapter 4, eqs. 4.1-4.6),
// solved with CasADi (automatic derivatives, its SQP method and a QP solver). Built as
// libnereid_mpc (CMake option NEREID_BUILD_MPC); call EnableMpc() once so that scenarios
// with "controller": {"type": "mpc"} can be run (the nereid CLI does).
//
// State x = [x y z phi theta psi u v w p q r]: world position (Nereid's world, z up), ZYX
// Euler angles of the body, body-frame linear and angular velocity (MuJoCo's FLU body
// frame, about the body origin). Input: the thrust of each of the vehicle's thrusters, N.
//
// Prediction models:
//  - kSeed: eq. 4.1 as the seed simplifies it: M nu_dot = T u - D(nu) nu - g(eta) with
//    M = M_RB + M_A, D = D_l + D_nl |nu|, the restoring wrench g of the full attitude, no
//    Coriolis or centripetal terms, position rates R_z(psi) [u v w] (yaw-only rotation,
//    eq. 4.2) and attitude rates [p q r] (phi = theta = 0, where the Euler-rate matrix is
//    the identity).
//  - kFull: Nereid's vehicle model: full rotation J(eta), C_RB and C_A (Munk moment),
//    added-mass coupling, damping and added mass acting on the velocity relative to the
//    (constant) water current, and the thrusters' first-order motor lag where the model
//    has one (the lagged thrusts are then extra states).
#ifndef NEREID_MPC_H_
#define NEREID_MPC_H_

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <mujoco/mujoco.h>

#include "nereid/allocation.h"
#include "nereid/frames.h"
#include "nereid/names.h"
#include "nereid/path.h"

namespace nereid {

class Simulation;
namespace rl {
class Env;
struct TaskSpec;
}

// The vehicle parameters an MPC predicts with, read from a Nereid model. MuJoCo body
// frame about the body origin, [linear; angular].
struct VehiclePredictionModel {
  Mat6 rigid_body_mass = Mat6::Zero();   // M_RB (CG offset included)
  Mat6 added_mass = Mat6::Zero();        // M_A
  Mat6 linear_damping = Mat6::Zero();    // D_l
  Vec6 quadratic_damping = Vec6::Zero(); // diag of D_nl (positive magnitudes)
  Vec3 damping_point = Vec3::Zero();     // point the damping acts about (body frame)
  double weight = 0;                     // W = m g, N
  double buoyancy = 0;                   // B = rho g V, N
  Vec3 center_of_gravity = Vec3::Zero(); // r_g, body frame, m
  Vec3 center_of_buoyancy = Vec3::Zero();// r_b, body frame, m
  Matrix6X thrust_matrix;                // T: body wrench per newton of each thruster
  Eigen::VectorXd thrust_min, thrust_max;        // N
  Eigen::VectorXd motor_time_constant;           // s per thruster; 0: no lag
  Vec3 current = Vec3::Zero();           // world water velocity, m/s (kFull only)

  int thrusters() const { return static_cast<int>(thrust_matrix.cols()); }
  Mat6 mass() const { return rigid_body_mass + added_mass; }
  // Reads the vehicle `body` (its M_RB, nereid.hydrodynamics, nereid.buoyancy and
  // nereid.thruster actuators, the model's gravity and the current at the body).
  // Throws ConfigError if the body has no thrusters.
  static VehiclePredictionModel FromSimulation(const Simulation& sim, int body);
  // The same with the body's thrusters already found (FindThrusters).
  static VehiclePredictionModel FromSimulation(const Simulation& sim, int body, const ThrusterSet& thrusters);
};

enum class MpcPrediction { kSeed, kFull };
inline constexpr std::array<Named<MpcPrediction>, 2> kMpcPredictionNames{
    {{MpcPrediction::kSeed, "seed"}, {MpcPrediction::kFull, "full"}}};
inline std::string_view ToString(MpcPrediction prediction) { return NameOf(kMpcPredictionNames, prediction); }
// "seed" | "full"; false if unknown.
inline bool ParseMpcPrediction(std::string_view text, MpcPrediction* prediction) {
  return ParseName(kMpcPredictionNames, text, prediction);
}

// Eq. 4.1 of seed 002 (kSeed above), evaluated directly: x_dot = f(x, u). 12-state x.
Eigen::VectorXd SeedDynamics(const VehiclePredictionModel& model, const Eigen::VectorXd& x,
                             const Eigen::VectorXd& u);

// Why cost_thrust must be > 0 (the scenario parser's and VehicleMpc's message).
inline constexpr const char* kCostThrustReason =
    "R = cost_thrust I is the QP's Hessian in the thrusts: without it the QP is singular; a tiny value such as "
    "1e-6 weighs thrust as little as you like";

struct MpcOptions {
  int horizon = 15;               // N (eq. 4.5), 1..kMaxHorizon
  double control_period = 0.5;    // s: a new plan every period, also the RK4 step
  double cost_pos = 1e4;          // Q on x, y, z (eq. 4.6)
  double cost_rot = 1e3;          // Q on phi, theta, psi
  double cost_thrust = 0.06;      // R = cost_thrust I; Q_N = 2 Q (eq. 4.6)
  double velocity_limit = 0.5;    // |u v w| m/s and |p q r| rad/s (eq. 4.3)
  MpcPrediction prediction = MpcPrediction::kSeed;
  // the discretisation over one control period: true: implicit RK4 (2-stage
  // Gauss-Legendre), as seed 002 section 4.1 and its code (ForcesPro IRK4) integrate;
  // false: explicit RK4 (unstable for the Raybot's damping at a 0.5 s step)
  bool implicit_rk4 = true;
  std::string qp_solver = "qrqp"; // CasADi conic plugin: qrqp | osqp | qpoases
  int max_sqp_iterations = 4;     // QP solves per plan (the seed's ForcesPro setting)
  // the SQP's Hessian: true: Gauss-Newton (the cost's Hessian; seed 002 section 6.3 tunes
  // the regularisation of its solver's Hessian approximation); false: the exact Hessian of
  // the Lagrangian, regularised where it is indefinite
  bool gauss_newton = true;
  int max_line_search = 10;       // backtracking steps per SQP iteration
  // twice seed 002's largest (Table 6.2: N = 50); 200 made one plan take 12 s on 2 cores
  static constexpr int kMaxHorizon = 100;
  // 100 QPs bound one plan to a few seconds (1000 made a 0.2 s run take over 20 s)
  static constexpr int kMaxSqpIterations = 100;
  static constexpr int kMaxLineSearch = 100;
  // active-set iterations per QP (qrqp): with kMaxSqpIterations, bounds a plan's work; a QP
  // that reaches it fails, and the plan falls back with a named warning
  static constexpr int kMaxQpIterations = 100;
};

// The outcome of one plan.
struct MpcPlan {
  Eigen::VectorXd thrust;          // the input applied until the next plan, N
  bool fallback = false;           // the solve failed: `thrust` is the fallback
  bool retried = false;            // the warm-started solve failed and was redone from
                                   // the model's rollout (iterations and time: both)
  std::string status;              // CasADi's return status
  int iterations = 0;              // SQP iterations
  double solve_time_s = 0;         // wall time of the solve
  double cost = 0;                 // J of eq. 4.5 at the returned solution
  double max_velocity_planned = 0; // max |nu_i| over the planned states x_1..x_N
  Eigen::MatrixXd states;          // planned x_0..x_N (columns)
};

// An MPC for one vehicle of a Simulation. Not copyable; one per thread.
class VehicleMpc {
 public:
  VehicleMpc(const Simulation& sim, int body, const MpcOptions& options);
  ~VehicleMpc();
  VehicleMpc(const VehicleMpc&) = delete;
  VehicleMpc& operator=(const VehicleMpc&) = delete;

  // The 12-state x of the vehicle in `d`.
  Eigen::VectorXd State(const mjData* d) const;
  // Plans from state x (12, or 12 + thrusters with the full model's lag states) towards
  // references[k] = [x y z phi theta psi] for x_0..x_N (N + 1 of them; psi is unwrapped
  // along the horizon: psi_0 to within pi of the state's, each next to within pi of the one
  // before; the state's psi itself is moved by whole turns to within pi of the last plan's,
  // so that plans stay continuous through +-pi). Never throws for a failed solve: the plan then says
  // `fallback` and holds the previous plan's next input (zero thrust if none).
  MpcPlan Plan(const Eigen::VectorXd& x, const std::vector<Vec6>& references);
  // Plans from the vehicle's state in `d` and writes the thrusters' ctrl.
  MpcPlan PlanAndApply(const mjModel* m, mjData* d, const std::vector<Vec6>& references);

  const VehiclePredictionModel& model() const;
  const ThrusterSet& thrusters() const;
  const MpcOptions& options() const;
  int state_size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A path follower driven by VehicleMpc, run as seed 002 section 4.2 runs it: the pose is
// sampled at `pose_rate` Hz, a plan is made every control period from the latest sample
// with references x_k = path point (closest + lookahead + k), and its first input is held
// until the next plan; with a latency, a plan's input acts from its plan time + latency
// (CommandDelay, include/nereid/path.h).
class MpcPathFollower final : public PathController {
 public:
  MpcPathFollower(const Simulation& sim, int body, Path path, const MpcOptions& options,
                  ReferenceRule rule, double pose_rate, double latency = 0);
  ~MpcPathFollower() override;
  void Update(const mjModel* m, mjData* d, int body, double dt) override;
  std::string SummaryJson() const override;
  void WriteLogs(const std::string& dir) const override;   // dir/mpc.csv
  std::vector<std::string> warnings() const override;

  struct LogRow {
    double time;
    MpcPlan plan;
  };
  const std::vector<LogRow>& log() const { return log_; }
  const VehicleMpc& mpc() const { return *mpc_; }

 private:
  std::unique_ptr<VehicleMpc> mpc_;
  double pose_period_, next_plan_ = 0;
  bool started_ = false;
  Eigen::VectorXd sampled_state_, held_thrust_;
  CommandDelay delay_;
  std::vector<LogRow> log_;
  std::vector<std::string> warnings_;
};

// The MPC as a policy for an RL task: every control period it plans from the state the
// task's controllers read (rl::Env::feedback: the truth, or the sensor-derived state)
// towards the task's references (rl::Task::References: the station, the docking pose, the
// quay wall's path points from the next unreached one on; the k-th is x_k's, k = 1..N, the
// first also x_0's) and holds the plan's first input; actions are each thruster's thrust over its reachable forward (> 0) or reverse
// (< 0) thrust, as the tasks map them. The prediction model is read from the
// environment's simulation when the policy is made: build it before the first reset to
// predict with the nominal model, not an episode's randomised one (the current is then
// unknown to it, as to the other policies).
class MpcPolicy {
 public:
  // Throws ConfigError if the period is not a whole number of environment steps (or, from
  // VehicleMpc, if the options or the vehicle cannot be planned for).
  MpcPolicy(rl::Env& env, const MpcOptions& options);
  ~MpcPolicy();
  // The settings `nereid baselines` flies a task with (docs/rl.md, "Baselines"): the task's
  // own (rl::TaskSpec::mpc, declared with the task in src/rl/tasks.cc), the rest MpcOptions'.
  static MpcOptions DefaultsFor(const rl::TaskSpec& task);
  // Call after each reset of the environment: the next Act plans afresh.
  void Reset();
  // The action for the environment's present state (action_size floats).
  void Act(float* action);

  int plans() const { return plans_; }
  int failed_solves() const { return failed_; }
  const std::vector<double>& solve_times() const { return solve_times_; }

 private:
  rl::Env& env_;
  std::unique_ptr<VehicleMpc> mpc_;
  std::vector<Vec6> references_;
  Eigen::VectorXd held_;
  double next_plan_ = 0;
  bool started_ = false;
  int plans_ = 0, failed_ = 0;
  std::vector<double> solve_times_;
};

// The nearest-rank quantile q (0..1) of `values` (0 if empty): how solve times are reported.
double NearestRankQuantile(std::vector<double> values, double q);

// Lets Scenario::MakeController build "type": "mpc" controllers (idempotent).
void EnableMpc();

}  // namespace nereid

#endif  // NEREID_MPC_H_
