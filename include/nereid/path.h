// Copyright Nereid authors.
// Paths for inspection missions and a follower that drives a CascadedPid along them.
#ifndef NEREID_PATH_H_
#define NEREID_PATH_H_

#include <cmath>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Geometry>

#include "nereid/control.h"

namespace nereid {

struct Path {
  std::vector<Vec3> points;                                         // world, m
  Eigen::Quaterniond orientation = Eigen::Quaterniond::Identity();  // held along the path
  // the attitude at each point where it turns along the path (the pillar helix); empty:
  // `orientation` at every point
  std::vector<Eigen::Quaterniond> orientations;

  // The attitude at point i: orientations[i], or `orientation` when there are none.
  const Eigen::Quaterniond& OrientationAt(size_t i) const {
    return orientations.empty() ? orientation : orientations[i];
  }
  double Length() const;
  // Distance from x to the polyline through the points.
  double Distance(const Vec3& x) const;
};

// The quay-wall zig-zag of seed 002 (sections 2.1, 5.2): vertical strokes of
// `stroke_height` (m, down then up) at x = wall_offset in front of a wall in the y-z
// plane, `strokes` of them spaced `stroke_spacing` along +y, joined by half circles, with
// points every `point_spacing` along the path, starting at (x, y0, z_top).
struct ZigZagSpec {
  double wall_offset = 0.0;   // x of the path (the wall is in front, along +x)
  double y0 = 0.0;            // y of the first stroke
  double z_top = -1.0;        // top of the strokes
  double stroke_height = 3.0;
  double stroke_spacing = 0.5;
  int strokes = 6;
  double point_spacing = 0.1;
};
Path ZigZagPath(const ZigZagSpec& spec);

// An inspection helix around a vertical pillar (the path seed 002 section 5.1 attempted
// and section 7.3 left open): a cylinder of `radius` about the vertical axis through
// (center_x, center_y), flown at `standoff` from its surface (helix radius radius +
// standoff), from depth z_start to z_end over `turns` turns, counter-clockwise seen from
// above (ccw true, the bearing growing) or clockwise, starting at the bearing
// `start_angle` (rad, from +x about +z). The vehicle faces the pillar's axis: at each
// point the yaw is the bearing + pi (roll and pitch zero), so the yaw reference turns
// through 2 pi per turn and crosses +-pi. Points every `point_spacing` along the helix.
struct PillarSpec {
  double center_x = 0, center_y = 0;
  double radius = 0.5;
  double standoff = 1.0;
  double z_start = -1.0, z_end = -3.0;
  double turns = 1.0;
  bool ccw = true;
  double start_angle = M_PI;  // on the -x side, facing +x (yaw 0)
  double point_spacing = 0.1;

  double HelixRadius() const { return radius + standoff; }
  // the helix's length, m
  double Length() const;
};
Path PillarPath(const PillarSpec& spec);

struct TrackingReport {
  bool completed = false;
  double completion_time = 0;    // s from the start to reaching the last point
  double mse_position = 0;       // mean of Distance(p)^2 over the samples, m^2
  double mse_rotation = 0;       // mean of (rotation angle to the path orientation)^2, rad^2
  double mean_distance = 0;      // mean of Distance(p) over the samples (cross-track), m
  double max_distance = 0;       // its largest value, m
  long samples = 0;
};

// How a follower picks its reference point on the path.
struct ReferenceRule {
  enum class Kind {
    // the reference is the current point; it advances once the vehicle is within
    // `acceptance_radius` of it; done when within that radius of the last point
    kAcceptanceRadius,
    // the reference is `lookahead` points past the path point closest to the vehicle
    // (seed 002's position_control node, its ref. [9]: lookahead 2); done when the
    // closest point is the last one and the vehicle is within `acceptance_radius` of it
    kClosestAhead,
  };
  Kind kind = Kind::kAcceptanceRadius;
  double acceptance_radius = 0.1;  // m
  int lookahead = 2;               // points
};

// Index of the point closest to x (the first one on ties).
size_t ClosestPoint(const std::vector<Vec3>& points, const Vec3& x);

// Samples a vehicle's pose every `sample_period` (0: at every call), keeps the reference
// point of `rule`, and scores the samples against the path: the MSE of seed 002 section
// 5.2 (squared distance to the path and squared rotation angle to the path's
// orientation, at the closest path point where it turns along the path) from the first
// sample until completion.
class PathTracker {
 public:
  PathTracker(Path path, ReferenceRule rule, double sample_period = 0);

  // Call once per step, before stepping. Returns true when it took a sample.
  bool Update(const mjData* d, int body);
  // A pose to score (MSE) instead of the one in d, which then only picks the reference
  // and the end: a "feedback": "estimate" run scores the truth while flying on the estimate.
  struct Pose {
    Vec3 position;
    Mat3 rotation;
  };
  void SetScoredPose(const Pose& pose) { scored_ = pose; }
  size_t target() const { return target_; }    // the reference point's index
  size_t closest() const { return closest_; }  // closest point at the last sample
  bool done() const { return report_.completed; }
  const TrackingReport& report() const { return report_; }
  const Path& path() const { return path_; }
  const ReferenceRule& rule() const { return rule_; }

 private:
  Path path_;
  ReferenceRule rule_;
  double sample_period_;
  double next_sample_ = 0;
  size_t target_ = 0, closest_ = 0;
  double start_time_ = -1;
  std::optional<Pose> scored_;
  double sum_position_ = 0, sum_rotation_ = 0, sum_distance_ = 0;
  TrackingReport report_;
};

// A fixed latency between a controller and its thrusters: a command given at time t acts
// from t + latency until a later one is due (zero thrust before the first is due), as a
// command computed from the pose sampled at t reaches the thrusters after the message and
// solve delays of seed 002's ROS nodes (its section 7.1). Latency 0 passes every command
// through at once.
class CommandDelay {
 public:
  static constexpr double kMaxLatency = 10.0;  // s, the scenario key's bound
  explicit CommandDelay(double latency = 0) : latency_(latency) {}
  // Queues the command given at time t.
  void Give(double t, const Eigen::VectorXd& command);
  // The command acting at time t (calls in time order; zeros of size n before the first).
  const Eigen::VectorXd& At(double t, Eigen::Index n);
  double latency() const { return latency_; }

 private:
  double latency_;
  std::deque<std::pair<double, Eigen::VectorXd>> queue_;
  Eigen::VectorXd acting_;
};

// A controller that flies one vehicle along a path (the scenario's "controller": the
// cascaded PID below, or the MPC of include/nereid/mpc.h).
class PathController {
 public:
  virtual ~PathController() = default;
  // Updates the reference and the controller; call once per step before stepping.
  virtual void Update(const mjModel* m, mjData* d, int body, double dt) = 0;
  bool done() const { return tracker_.done(); }
  size_t target() const { return tracker_.target(); }
  const TrackingReport& report() const { return tracker_.report(); }
  const Path& path() const { return tracker_.path(); }
  // the pose the next Update scores (PathTracker::SetScoredPose)
  void SetScoredPose(const PathTracker::Pose& pose) { tracker_.SetScoredPose(pose); }
  // Controller-specific results for summary.json (a JSON object's text; empty if none),
  // its log files written into `dir`, and warnings (e.g. failed solves).
  virtual std::string SummaryJson() const { return {}; }
  virtual void WriteLogs(const std::string& dir) const { (void)dir; }
  virtual std::vector<std::string> warnings() const { return {}; }

 protected:
  explicit PathController(PathTracker tracker) : tracker_(std::move(tracker)) {}
  PathTracker tracker_;
};

// Follows a path with the cascaded PID: the reference is the tracker's target point.
class PathFollower final : public PathController {
 public:
  PathFollower(Path path, CascadedPid controller, double acceptance_radius = 0.1);
  // latency: seconds from the computed thrust to the thrusters (CommandDelay). The PID runs
  // at every step on the state of that step, or with at_pose_rate only when the pose is
  // sampled (every sample_period > 0), its thrust held in between.
  PathFollower(Path path, CascadedPid controller, ReferenceRule rule, double sample_period, double latency = 0,
               bool at_pose_rate = false);

  void Update(const mjModel* m, mjData* d, int body, double dt) override;
  // dir/pid.csv: time and each thruster's thrust (N) acting at every pose sample
  void WriteLogs(const std::string& dir) const override;

 private:
  CascadedPid controller_;
  CommandDelay delay_;
  bool at_pose_rate_ = false;
  double sample_period_ = 0;
  std::vector<double> log_times_;
  std::vector<Eigen::VectorXd> log_thrust_;
};

}  // namespace nereid

#endif  // NEREID_PATH_H_
