// Copyright Nereid authors.
// MpcPathFollower: the seed 002 loop (section 4.2) around VehicleMpc, and EnableMpc.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "mpc/prediction.h"
#include "nereid/error.h"
#include "nereid/mpc.h"
#include "nereid/output.h"
#include "nereid/scenario.h"

namespace nereid {

MpcPathFollower::MpcPathFollower(const Simulation& sim, int body, Path path, const MpcOptions& options,
                                 ReferenceRule rule, double pose_rate, double latency)
    : PathController(PathTracker(std::move(path), rule, pose_rate > 0 ? 1.0 / pose_rate : 0.0)),
      mpc_(std::make_unique<VehicleMpc>(sim, body, options)),
      pose_period_(pose_rate > 0 ? 1.0 / pose_rate : 0.0),
      delay_(latency) {
  const double dt = sim.model()->opt.timestep;
  // the plans and pose samples fall on time steps
  auto on_steps = [&](double period, const char* what) {
    const double steps = period / dt;
    if (std::abs(steps - std::round(steps)) > 1e-6 * steps || std::round(steps) < 1) {
      throw ConfigError(std::string(what) + " (" + std::to_string(period) +
                        " s) must be a whole number of time steps (dt " + std::to_string(dt) + " s)");
    }
  };
  on_steps(options.control_period, "control_period");
  if (pose_period_ > 0) {
    on_steps(pose_period_, "1 / pose_rate");
    const double ratio = options.control_period / pose_period_;
    if (std::abs(ratio - std::round(ratio)) > 1e-6 * ratio) {
      throw ConfigError("control_period must be a whole number of pose samples (1 / pose_rate)");
    }
  }
}

MpcPathFollower::~MpcPathFollower() = default;

void MpcPathFollower::Update(const mjModel* m, mjData* d, int body, double) {
  if (tracker_.Update(d, body)) sampled_state_ = mpc_->State(d);
  const MpcOptions& o = mpc_->options();
  if (!started_ || d->time >= next_plan_ - 1e-9) {
    if (!started_) next_plan_ = d->time;
    started_ = true;
    next_plan_ += o.control_period;
    // references x_k = path point (closest + lookahead + k), the last point past the end
    const Path& path = tracker_.path();
    std::vector<Vec6> refs(static_cast<size_t>(o.horizon + 1));
    for (int k = 0; k <= o.horizon; ++k) {
      const size_t i = std::min(path.points.size() - 1, tracker_.target() + static_cast<size_t>(k));
      // the attitude at that point (yaw in -pi..pi; Plan unwraps it along the horizon)
      refs[static_cast<size_t>(k)] << path.points[i], mpc::EulerZyx(path.OrientationAt(i).toRotationMatrix());
    }
    MpcPlan plan = mpc_->Plan(sampled_state_, refs);
    if (plan.fallback) {
      warnings_.push_back("mpc: solve failed at t = " + std::to_string(d->time) + " s (" + plan.status +
                          "); holding the previous plan's input");
    }
    held_thrust_ = plan.thrust;
    delay_.Give(d->time, held_thrust_);  // acts from d->time + latency
    plan.states.resize(0, 0);  // not kept in the log
    log_.push_back({d->time, std::move(plan)});
  }
  mpc_->thrusters().SetCommands(m, d, delay_.At(d->time, held_thrust_.size()));
}

double NearestRankQuantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(q * static_cast<double>(values.size()));
  return values[static_cast<size_t>(std::clamp(rank - 1, 0.0, static_cast<double>(values.size() - 1)))];
}

std::string MpcPathFollower::SummaryJson() const {
  std::vector<double> times;
  int failures = 0, retries = 0;
  double max_planned = 0;
  for (const LogRow& row : log_) {
    times.push_back(row.plan.solve_time_s);
    failures += row.plan.fallback;
    retries += row.plan.retried;
    max_planned = std::max(max_planned, row.plan.max_velocity_planned);
  }
  const double median = NearestRankQuantile(times, 0.5);
  const MpcOptions& o = mpc_->options();
  nlohmann::json j = {
      {"horizon", o.horizon},
      {"control_period_s", o.control_period},
      {"cost_pos", o.cost_pos},
      {"cost_rot", o.cost_rot},
      {"cost_thrust", o.cost_thrust},
      {"velocity_limit", o.velocity_limit},
      {"prediction", ToString(o.prediction)},
      {"integrator", o.implicit_rk4 ? "irk4" : "rk4"},
      {"qp_solver", o.qp_solver},
      {"max_sqp_iterations", o.max_sqp_iterations},
      {"hessian", o.gauss_newton ? "gauss_newton" : "exact"},
      {"max_line_search", o.max_line_search},
      {"plans", log_.size()},
      {"failed_solves", failures},
      {"retried_solves", retries},
      {"solve_time_median_s", median},
      {"solve_time_p99_s", NearestRankQuantile(times, 0.99)},
      {"solve_time_max_s", NearestRankQuantile(times, 1.0)},
      {"solve_time_median_fraction_of_period", median / o.control_period},
      {"max_planned_velocity", max_planned},
  };
  return j.dump();
}

void MpcPathFollower::WriteLogs(const std::string& dir) const {
  const std::string file = (std::filesystem::path(dir) / "mpc.csv").string();
  OutputFile output(file);
  std::ostream& out = output.stream();
  out.precision(17);
  out << "time,solve_time_s,iterations,fallback,retried,status,cost,max_planned_velocity";
  for (const std::string& name : mpc_->thrusters().names) out << ",thrust." << name;
  out << "\n";
  for (const LogRow& row : log_) {
    out << row.time << "," << row.plan.solve_time_s << "," << row.plan.iterations << "," << row.plan.fallback
        << "," << row.plan.retried << "," << row.plan.status << "," << row.plan.cost << "," << row.plan.max_velocity_planned;
    for (Eigen::Index i = 0; i < row.plan.thrust.size(); ++i) out << "," << row.plan.thrust[i];
    out << "\n";
  }
  output.Commit();
}

std::vector<std::string> MpcPathFollower::warnings() const { return warnings_; }

namespace {

std::unique_ptr<PathController> MakeMpcFollower(const Simulation& sim, int body, const Scenario::Controller& c) {
  return std::make_unique<MpcPathFollower>(sim, body, c.path, c.mpc, c.reference, c.pose_rate, c.latency);
}

}  // namespace

void EnableMpc() { Scenario::SetMpcFactory(&MakeMpcFollower); }

}  // namespace nereid
