// Copyright Nereid authors.
#include "nereid/path.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <utility>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/output.h"

namespace nereid {

double Path::Length() const {
  double length = 0;
  for (size_t i = 1; i < points.size(); ++i) length += (points[i] - points[i - 1]).norm();
  return length;
}

double Path::Distance(const Vec3& x) const {
  if (points.size() == 1) return (x - points[0]).norm();
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 1; i < points.size(); ++i) {
    const Vec3 a = points[i - 1], ab = points[i] - a;
    const double t = ab.squaredNorm() > 0 ? std::clamp((x - a).dot(ab) / ab.squaredNorm(), 0.0, 1.0) : 0;
    best = std::min(best, (x - (a + t * ab)).norm());
  }
  return best;
}

Path ZigZagPath(const ZigZagSpec& spec) {
  // the continuous path as segments: strokes down/up joined by half circles at the ends,
  // sampled every point_spacing along its length
  Path path;
  const double r = 0.5 * spec.stroke_spacing;
  auto add = [&](const Vec3& p) { path.points.push_back(p); };
  auto sample_line = [&](const Vec3& a, const Vec3& b) {
    const int n = std::max(1, static_cast<int>(std::ceil((b - a).norm() / spec.point_spacing)));
    for (int i = 1; i <= n; ++i) add(a + (b - a) * (static_cast<double>(i) / n));
  };
  auto sample_arc = [&](const Vec3& centre, double from, double to) {  // in the y-z plane
    const int n = std::max(2, static_cast<int>(std::ceil(std::abs(to - from) * r / spec.point_spacing)));
    for (int i = 1; i <= n; ++i) {
      const double a = from + (to - from) * i / n;
      add(centre + Vec3(0, r * std::cos(a), r * std::sin(a)));
    }
  };
  const double bottom = spec.z_top - spec.stroke_height;
  Vec3 p(spec.wall_offset, spec.y0, spec.z_top);
  add(p);
  for (int s = 0; s < spec.strokes; ++s) {
    const bool down = s % 2 == 0;
    const Vec3 end(spec.wall_offset, p.y(), down ? bottom : spec.z_top);
    sample_line(p, end);
    p = end;
    if (s + 1 == spec.strokes) break;
    // half circle to the next stroke: below the bottom when going down, above the top
    const Vec3 centre(spec.wall_offset, p.y() + r, p.z());
    if (down) {
      sample_arc(centre, M_PI, 2 * M_PI);  // from the left end, under the centre
    } else {
      sample_arc(centre, M_PI, 0);         // from the left end, over the centre
    }
    p = path.points.back();
  }
  return path;
}

double PillarSpec::Length() const {
  const double r = HelixRadius(), angle = 2 * M_PI * turns;
  return std::hypot(r * angle, z_end - z_start);
}

Path PillarPath(const PillarSpec& spec) {
  // a helix has a constant slope: equal angle steps are equal steps along its length
  const double sweep = 2 * M_PI * spec.turns * (spec.ccw ? 1 : -1);
  const int n = std::max(1, static_cast<int>(std::ceil(spec.Length() / spec.point_spacing)));
  const double r = spec.HelixRadius();
  Path path;
  path.points.reserve(static_cast<size_t>(n) + 1);
  path.orientations.reserve(static_cast<size_t>(n) + 1);
  for (int i = 0; i <= n; ++i) {
    const double s = static_cast<double>(i) / n;
    const double bearing = spec.start_angle + s * sweep;
    path.points.emplace_back(spec.center_x + r * std::cos(bearing), spec.center_y + r * std::sin(bearing),
                             spec.z_start + s * (spec.z_end - spec.z_start));
    // facing the axis: yaw = bearing + pi
    path.orientations.emplace_back(Eigen::AngleAxisd(bearing + M_PI, Vec3::UnitZ()));
  }
  path.orientation = path.orientations.front();
  return path;
}

size_t ClosestPoint(const std::vector<Vec3>& points, const Vec3& x) {
  size_t best = 0;
  double best_d2 = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < points.size(); ++i) {
    const double d2 = (points[i] - x).squaredNorm();
    if (d2 < best_d2) best_d2 = d2, best = i;
  }
  return best;
}

PathTracker::PathTracker(Path path, ReferenceRule rule, double sample_period)
    : path_(std::move(path)), rule_(rule), sample_period_(sample_period) {}

bool PathTracker::Update(const mjData* d, int body) {
  if (start_time_ < 0) start_time_ = next_sample_ = d->time;
  // a sample is due at every call (period 0), or once the time reaches the next instant
  // (half a step early is on time: the instants are multiples of the period)
  if (sample_period_ > 0 && d->time < next_sample_ - 1e-9) return false;
  if (sample_period_ > 0) next_sample_ += sample_period_;
  const Vec3 p = BodyPosition(d, body);
  const size_t last = path_.points.size() - 1;
  bool at_end = false;
  if (rule_.kind == ReferenceRule::Kind::kAcceptanceRadius) {
    while (target_ < last && (path_.points[target_] - p).norm() < rule_.acceptance_radius) ++target_;
    at_end = target_ == last && (path_.points[target_] - p).norm() < rule_.acceptance_radius;
  } else {
    closest_ = ClosestPoint(path_.points, p);
    target_ = std::min(last, closest_ + static_cast<size_t>(rule_.lookahead));
    // a path is complete only within the acceptance distance of its last point, whatever
    // the rule (a one-point path 100 km away was "completed" at once)
    at_end = closest_ == last && (path_.points[last] - p).norm() < rule_.acceptance_radius;
  }
  if (!report_.completed) {
    const Vec3 scored_p = scored_ ? scored_->position : p;
    const Mat3 scored_R = scored_ ? scored_->rotation : BodyRotation(d, body);
    const double distance = path_.Distance(scored_p);
    // the attitude the path asks for here: at the closest point where it turns along the path
    const size_t here = path_.orientations.empty() ? 0
                        : rule_.kind == ReferenceRule::Kind::kClosestAhead ? closest_
                                                                           : ClosestPoint(path_.points, p);
    const Eigen::AngleAxisd rotation(
        Eigen::Quaterniond(scored_R.transpose() * path_.OrientationAt(here).toRotationMatrix()));
    sum_position_ += distance * distance;
    sum_distance_ += distance;
    sum_rotation_ += rotation.angle() * rotation.angle();
    ++report_.samples;
    report_.mse_position = sum_position_ / static_cast<double>(report_.samples);
    report_.mse_rotation = sum_rotation_ / static_cast<double>(report_.samples);
    report_.mean_distance = sum_distance_ / static_cast<double>(report_.samples);
    report_.max_distance = std::max(report_.max_distance, distance);
    if (at_end) {
      report_.completed = true;
      report_.completion_time = d->time - start_time_;
    }
  }
  return true;
}

PathFollower::PathFollower(Path path, CascadedPid controller, double acceptance_radius)
    : PathFollower(std::move(path), std::move(controller),
                   ReferenceRule{ReferenceRule::Kind::kAcceptanceRadius, acceptance_radius, 0}, 0) {}

void CommandDelay::Give(double t, const Eigen::VectorXd& command) {
  if (latency_ <= 0) {
    acting_ = command;
    return;
  }
  queue_.emplace_back(t + latency_, command);
}

const Eigen::VectorXd& CommandDelay::At(double t, Eigen::Index n) {
  // a command is due once its time is reached, to within a fraction of any time step
  while (!queue_.empty() && queue_.front().first <= t + 1e-9) {
    acting_ = std::move(queue_.front().second);
    queue_.pop_front();
  }
  if (acting_.size() != n) acting_ = Eigen::VectorXd::Zero(n);
  return acting_;
}

PathFollower::PathFollower(Path path, CascadedPid controller, ReferenceRule rule, double sample_period,
                           double latency, bool at_pose_rate)
    : PathController(PathTracker(std::move(path), rule, sample_period)),
      controller_(std::move(controller)),
      delay_(latency),
      at_pose_rate_(at_pose_rate && sample_period > 0),
      sample_period_(sample_period) {}

void PathFollower::Update(const mjModel* m, mjData* d, int body, double dt) {
  const bool sampled = tracker_.Update(d, body);
  if (!at_pose_rate_ || sampled) {
    const size_t target = tracker_.target();
    controller_.Update(m, d, tracker_.path().points[target], tracker_.path().OrientationAt(target),
                       at_pose_rate_ ? sample_period_ : dt);
  } else if (delay_.latency() <= 0) {
    controller_.thrusters().SetCommands(m, d, controller_.thrust());  // held since the last sample
  }
  if (delay_.latency() > 0) {  // the thrust computed now acts from t + latency
    delay_.Give(d->time, controller_.thrust());
    controller_.thrusters().SetCommands(m, d, delay_.At(d->time, controller_.thrust().size()));
  }
  if (sampled) {
    log_times_.push_back(d->time);
    log_thrust_.push_back(delay_.latency() > 0 ? delay_.At(d->time, controller_.thrust().size())
                                               : controller_.thrust());
  }
}

void PathFollower::WriteLogs(const std::string& dir) const {
  const std::string file = (std::filesystem::path(dir) / "pid.csv").string();
  OutputFile output(file);
  std::ostream& out = output.stream();
  out.precision(17);
  out << "time";
  for (const std::string& name : controller_.thrusters().names) out << ",thrust." << name;
  out << "\n";
  for (size_t k = 0; k < log_times_.size(); ++k) {
    out << log_times_[k];
    for (Eigen::Index i = 0; i < log_thrust_[k].size(); ++i) out << "," << log_thrust_[k][i];
    out << "\n";
  }
  output.Commit();
}

}  // namespace nereid
