// Copyright Nereid authors.
// nereid.altimeter: an echo sounder or rangefinder on a site: the distance along the
// site's z axis (as MuJoCo's rangefinder) to the first geom of another body, with noise
// proportional to the range, sampled at a rate with a latency; -1 with valid = 0 outside
// [min_range, max_range]. Keys: README.md.
#ifndef NEREID_PLUGINS_ALTIMETER_ALTIMETER_H_
#define NEREID_PLUGINS_ALTIMETER_ALTIMETER_H_

#include <array>
#include <memory>

#include <mujoco/mujoco.h>

#include "common/sensor_base.h"
#include "nereid/plugins.h"

namespace nereid {

namespace altimeter_keys {
inline constexpr ConfigKey kRate{"rate", "Hz", "10"};
inline constexpr ConfigKey kMinRange{"min_range", "m", "0.3"};
inline constexpr ConfigKey kMaxRange{"max_range", "m", "100"};
inline constexpr ConfigKey kNoise{"noise", "m", "0"};
inline constexpr ConfigKey kNoisePerRange{"noise_per_range", "—", "0.005"};
inline constexpr std::array kAll{sensor_keys::kSite, kRate, sensor_keys::kLatency, sensor_keys::kSeed,
                                 kMinRange, kMaxRange, kNoise, kNoisePerRange};
static_assert(DistinctNames(kAll));
}  // namespace altimeter_keys

class Altimeter final : public SensorBase {
 public:
  static constexpr const char* kName = kAltimeterPlugin;
  static constexpr auto kAttributes = KeyNames(altimeter_keys::kAll);
  static constexpr int kStage = mjSTAGE_POS;
  static constexpr int kDim = 2;
  static constexpr std::array<const char*, kDim> kFields{"range", "valid"};

  static std::unique_ptr<Altimeter> Create(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();
  void Compute(const mjModel* m, mjData* d, int instance) noexcept;
  void Reset() noexcept { ResetBase(); }

 private:
  double min_range_ = 0, max_range_ = 0, noise_ = 0, per_range_ = 0;
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_ALTIMETER_ALTIMETER_H_
