// Copyright Nereid authors.
// nereid.acoustic: a USBL-style acoustic position fix of a site (the vehicle's transponder)
// from a fixed transceiver: range, bearing and elevation with noise, the fix they give in
// world coordinates, an update rate and a latency; lost outside the transceiver's cone
// or beyond its range. Keys: README.md.
#ifndef NEREID_PLUGINS_ACOUSTIC_ACOUSTIC_H_
#define NEREID_PLUGINS_ACOUSTIC_ACOUSTIC_H_

#include <array>
#include <memory>

#include <mujoco/mujoco.h>

#include "common/sensor_base.h"
#include "nereid/plugins.h"

namespace nereid {

namespace acoustic_keys {
inline constexpr ConfigKey kRate{"rate", "Hz", "1"};
inline constexpr ConfigKey kTransceiver{"transceiver", "m", "0 0 0"};
inline constexpr ConfigKey kCone{"cone", "deg", "90"};
inline constexpr ConfigKey kMaxRange{"max_range", "m", "300"};
inline constexpr ConfigKey kRangeNoise{"range_noise", "m", "0.1"};
inline constexpr ConfigKey kAngleNoise{"angle_noise", "rad", "0.035"};
inline constexpr std::array kAll{sensor_keys::kSite, kRate, sensor_keys::kLatency, sensor_keys::kSeed,
                                 kTransceiver, kCone, kMaxRange, kRangeNoise, kAngleNoise};
static_assert(DistinctNames(kAll));
}  // namespace acoustic_keys

class Acoustic final : public SensorBase {
 public:
  static constexpr const char* kName = kAcousticPlugin;
  static constexpr auto kAttributes = KeyNames(acoustic_keys::kAll);
  static constexpr int kStage = mjSTAGE_POS;
  static constexpr int kDim = 7;
  static constexpr std::array<const char*, kDim> kFields{"x", "y", "z", "range", "bearing", "elevation", "valid"};

  static std::unique_ptr<Acoustic> Create(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();
  void Compute(const mjModel* m, mjData* d, int instance) noexcept;
  void Reset() noexcept { ResetBase(); }

 private:
  Vec3 transceiver_ = Vec3::Zero();
  double cos_cone_ = 0, max_range_ = 0, range_noise_ = 0, angle_noise_ = 0;
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_ACOUSTIC_ACOUSTIC_H_
