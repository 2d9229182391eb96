// Copyright Nereid authors.
// nereid.marker: a camera on a site that sees a fiducial marker (an ArUco or AprilTag
// board) on a site of another body and reports the marker's pose in the camera frame,
// the way a vision pipeline's pose estimate (PnP) does: position and rotation with noise
// that grows with range, at a frame rate with a processing latency; lost outside the
// camera's view cone or range, when the marker is seen too obliquely, or when another
// body's geom lies on the line of sight. Keys: README.md.
#ifndef NEREID_PLUGINS_MARKER_MARKER_H_
#define NEREID_PLUGINS_MARKER_MARKER_H_

#include <array>
#include <memory>

#include <mujoco/mujoco.h>

#include "common/sensor_base.h"
#include "nereid/plugins.h"

namespace nereid {

namespace marker_keys {
inline constexpr ConfigKey kRate{"rate", "Hz", "10"};
inline constexpr ConfigKey kMarker{"marker", "—", nullptr, true};
inline constexpr ConfigKey kFov{"fov", "deg", "40"};
inline constexpr ConfigKey kMinRange{"min_range", "m", "0.05"};
inline constexpr ConfigKey kMaxRange{"max_range", "m", "4"};
inline constexpr ConfigKey kMaxViewAngle{"max_view_angle", "deg", "75"};
inline constexpr ConfigKey kPositionNoise{"position_noise", "—", "0.01"};
inline constexpr ConfigKey kAngleNoise{"angle_noise", "rad", "0.02"};
inline constexpr std::array kAll{sensor_keys::kSite, kRate, sensor_keys::kLatency, sensor_keys::kSeed,
                                 kMarker, kFov, kMinRange, kMaxRange, kMaxViewAngle, kPositionNoise,
                                 kAngleNoise};
static_assert(DistinctNames(kAll));
}  // namespace marker_keys

class Marker final : public SensorBase {
 public:
  static constexpr const char* kName = kMarkerPlugin;
  static constexpr auto kAttributes = KeyNames(marker_keys::kAll);
  static constexpr int kStage = mjSTAGE_POS;
  static constexpr int kDim = 8;
  static constexpr std::array<const char*, kDim> kFields{"x", "y", "z", "rx", "ry", "rz", "range", "valid"};

  static std::unique_ptr<Marker> Create(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();
  void Compute(const mjModel* m, mjData* d, int instance) noexcept;
  void Reset() noexcept { ResetBase(); }

  int marker_site() const { return marker_; }

 private:
  int marker_ = -1;
  double cos_fov_ = 0, min_range_ = 0, max_range_ = 0, cos_view_ = 0, position_noise_ = 0, angle_noise_ = 0;
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_MARKER_MARKER_H_
