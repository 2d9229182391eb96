// Copyright Nereid authors.
// Paths for inspection missions and a follower that drives a CascadedPid along them.
#ifndef NEREID_PATH_H_
#define NEREID_PATH_H_

#include <vector>

#include <Eigen/Geometry>

#include "nereid/control.h"

namespace nereid {

struct Path {
  std::vector<Vec3> points;                                         // world, m
  Eigen::Quaterniond orientation = Eigen::Quaterniond::Identity();  // held along the path

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

struct TrackingReport {
  bool completed = false;
  double completion_time = 0;    // s from the start to reaching the last point
  double mse_position = 0;       // mean of Distance(p)^2 over the run, m^2
  double mse_rotation = 0;       // mean of (rotation angle to the path orientation)^2, rad^2
  long samples = 0;
};

// Follows a path point by point: the controller's reference is the current point, which
// advances once the vehicle is within `acceptance_radius` of it.
class PathFollower {
 public:
  PathFollower(Path path, CascadedPid controller, double acceptance_radius = 0.1);

  // Updates the reference and the controller; call once per step before stepping.
  void Update(const mjModel* m, mjData* d, int body, double dt);
  bool done() const { return report_.completed; }
  size_t target() const { return target_; }
  const TrackingReport& report() const { return report_; }
  const Path& path() const { return path_; }

 private:
  Path path_;
  CascadedPid controller_;
  double acceptance_radius_;
  size_t target_ = 0;
  double start_time_ = -1;
  double sum_position_ = 0, sum_rotation_ = 0;
  TrackingReport report_;
};

}  // namespace nereid

#endif  // NEREID_PATH_H_
