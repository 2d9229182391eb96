// Copyright Nereid authors.
#include "acoustic/acoustic.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "common/config_reader.h"
#include "common/plugin_base.h"
#include "nereid/kinematics.h"

namespace nereid {

std::unique_ptr<Acoustic> Acoustic::Create(const mjModel* m, mjData*, int instance) {
  namespace k = acoustic_keys;
  ConfigReader config(m, instance, kAcousticPlugin);
  auto a = std::make_unique<Acoustic>();
  a->ReadCommon(m, instance, config, k::kRate, kDim);
  a->transceiver_ = *config.Vector3(k::kTransceiver);
  const double cone = config.Number(k::kCone);
  if (!(cone > 0 && cone <= 180)) config.Fail(k::kCone, "must be in (0, 180] degrees (half-angle around the transceiver's downward axis)");
  a->cos_cone_ = std::cos(cone * std::numbers::pi / 180);
  a->max_range_ = config.Number(k::kMaxRange);
  if (!(a->max_range_ > 0)) config.Fail(k::kMaxRange, "must be > 0 (m)");
  a->range_noise_ = config.Number(k::kRangeNoise);
  if (!(a->range_noise_ >= 0)) config.Fail(k::kRangeNoise, "must be >= 0 (m, a standard deviation)");
  a->angle_noise_ = config.Number(k::kAngleNoise);
  if (!(a->angle_noise_ >= 0)) config.Fail(k::kAngleNoise, "must be >= 0 (rad, a standard deviation)");
  a->Reset();
  return a;
}

void Acoustic::Compute(const mjModel*, mjData* d, int) noexcept {
  Step(d, [&] {
    sensors::Reading y{};
    const Vec3 p(d->site_xpos[3 * site_], d->site_xpos[3 * site_ + 1], d->site_xpos[3 * site_ + 2]);
    const Vec3 rel = p - transceiver_;
    double range = rel.norm();
    // lost beyond the range or outside the cone around the transceiver's downward axis
    if (range > max_range_ || !(range > 0) || -rel.z() < cos_cone_ * range) return y;
    double bearing = std::atan2(rel.y(), rel.x());
    double elevation = std::asin(std::clamp(rel.z() / range, -1.0, 1.0));
    if (!exact_) {
      range = std::max(0.0, range + range_noise_ * stream_.Normal());
      bearing = WrapAngle(bearing + angle_noise_ * stream_.Normal());
      elevation = std::clamp(elevation + angle_noise_ * stream_.Normal(), -std::numbers::pi / 2, std::numbers::pi / 2);
    }
    const Vec3 fix = transceiver_ + range * Vec3(std::cos(elevation) * std::cos(bearing),
                                                 std::cos(elevation) * std::sin(bearing), std::sin(elevation));
    y = {fix.x(), fix.y(), fix.z(), range, bearing, elevation, 1.0};
    return y;
  });
}

void Acoustic::RegisterPlugin() { nereid::RegisterPlugin<Acoustic>(mjPLUGIN_SENSOR); }

}  // namespace nereid
