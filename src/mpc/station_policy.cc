// Copyright Nereid authors.
// The MPC as a policy for station-keeping RL tasks (include/nereid/mpc.h).
#include <algorithm>
#include <cmath>
#include <string>

#include "mpc/prediction.h"
#include "nereid/error.h"
#include "nereid/mpc.h"
#include "nereid/rl.h"
#include "nereid/simulation.h"

namespace nereid {

MpcStationPolicy::MpcStationPolicy(rl::Env& env, const MpcOptions& options) : env_(env) {
  const std::optional<rl::Task::Station> station = env.task().station();
  if (!station) throw ConfigError("MPC policy: task " + env.spec().id + " holds no station");
  const Simulation& sim = env.simulation();
  body_ = mj_name2id(sim.model(), mjOBJ_BODY, station->body.c_str());
  if (body_ < 0) throw ConfigError("MPC policy: task " + env.spec().id + ": no body '" + station->body + "'");
  const double env_step = env.spec().frame_skip * sim.model()->opt.timestep;
  const double steps = options.control_period / env_step;
  if (std::round(steps) < 1 || std::abs(steps - std::round(steps)) > 1e-6 * steps) {
    throw ConfigError("MPC policy: control_period (" + std::to_string(options.control_period) +
                      " s) must be a whole number of environment steps (" + std::to_string(env_step) + " s)");
  }
  mpc_ = std::make_unique<VehicleMpc>(sim, body_, options);
  Vec6 pose;
  pose << station->position, mpc::EulerZyx(station->attitude.toRotationMatrix());
  references_.assign(static_cast<size_t>(options.horizon + 1), pose);
  held_ = Eigen::VectorXd::Zero(mpc_->model().thrusters());
}

MpcStationPolicy::~MpcStationPolicy() = default;

void MpcStationPolicy::Reset() { started_ = false; }

void MpcStationPolicy::Act(float* action) {
  const mjData* d = env_.feedback();  // the truth, or the sensor-derived state (docs/rl.md)
  if (!started_ || d->time >= next_plan_ - 1e-9) {
    if (!started_) next_plan_ = d->time;
    started_ = true;
    next_plan_ += mpc_->options().control_period;
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
