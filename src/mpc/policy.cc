// Copyright Nereid authors.
// The MPC as a policy for the RL tasks (include/nereid/mpc.h).
#include <algorithm>
#include <cmath>
#include <string>

#include "mpc/prediction.h"
#include "nereid/error.h"
#include "nereid/mpc.h"
#include "nereid/rl.h"
#include "nereid/simulation.h"

namespace nereid {

MpcOptions MpcPolicy::DefaultsFor(const rl::TaskSpec& task) {
  MpcOptions options;
  options.control_period = task.mpc.control_period;
  options.horizon = task.mpc.horizon;
  options.prediction = task.mpc.seed_prediction ? MpcPrediction::kSeed : MpcPrediction::kFull;
  options.velocity_limit = task.mpc.velocity_limit;
  return options;
}

MpcPolicy::MpcPolicy(rl::Env& env, const MpcOptions& options) : env_(env) {
  const Simulation& sim = env.simulation();
  const double env_step = env.spec().frame_skip * sim.model()->opt.timestep;
  const double steps = options.control_period / env_step;
  if (std::round(steps) < 1 || std::abs(steps - std::round(steps)) > 1e-6 * steps) {
    throw ConfigError("MPC policy: control_period (" + std::to_string(options.control_period) +
                      " s) must be a whole number of environment steps (" + std::to_string(env_step) + " s)");
  }
  mpc_ = std::make_unique<VehicleMpc>(sim, env.task().controlled_body(), options);
  held_ = Eigen::VectorXd::Zero(mpc_->model().thrusters());
}

MpcPolicy::~MpcPolicy() = default;

void MpcPolicy::Reset() { started_ = false; }

void MpcPolicy::Act(float* action) {
  const mjData* d = env_.feedback();  // the truth, or the sensor-derived state (docs/rl.md)
  if (!started_ || d->time >= next_plan_ - 1e-9) {
    if (!started_) next_plan_ = d->time;
    started_ = true;
    next_plan_ += mpc_->options().control_period;
    // the task's next N references for x_1..x_N, one per step of the horizon: the cost
    // starts at x_1 (x_0 is the state), so the first, the task's present reference (the quay
    // wall's next unreached point), must be x_1's; x_0's is the same
    const int horizon = mpc_->options().horizon;
    std::vector<rl::Task::Pose> poses;
    env_.References(horizon, &poses);
    references_.resize(static_cast<size_t>(horizon) + 1);
    for (int k = 0; k <= horizon; ++k) {
      const rl::Task::Pose& pose = poses[static_cast<size_t>(std::max(k - 1, 0))];
      references_[static_cast<size_t>(k)] << pose.position, mpc::EulerZyx(pose.attitude.toRotationMatrix());
    }
    const MpcPlan plan = mpc_->Plan(mpc_->State(d), references_);
    held_ = plan.thrust;
    ++plans_;
    failed_ += plan.fallback;
    solve_times_.push_back(plan.solve_time_s);
  }
  const ThrusterSet& thrusters = mpc_->thrusters();
  for (int j = 0; j < static_cast<int>(held_.size()); ++j) {
    action[j] = static_cast<float>(std::clamp(thrusters.ActionForThrust(j, held_[j]), -1.0, 1.0));
  }
}

}  // namespace nereid
