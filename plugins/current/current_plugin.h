// Copyright Nereid authors.
// nereid.current: the water current of the model, held per mjData so that a scenario or
// an environment can change it (nereid::MutableCurrent). See README.md for the keys.
#ifndef NEREID_PLUGINS_CURRENT_CURRENT_PLUGIN_H_
#define NEREID_PLUGINS_CURRENT_CURRENT_PLUGIN_H_

#include <memory>
#include <optional>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/config_key.h"
#include "nereid/current.h"
#include "nereid/plugins.h"

namespace nereid {

// The <config> keys, in README.md's order: the grammar of nereid/current.h.
namespace current_keys {
using Kind = CurrentField::Kind;
inline constexpr ConfigKey kVelocity{CurrentField::kKeys[static_cast<int>(Kind::kConstant)], "m/s", "0 0 0", false,
                                     "optional; `0 0 0` if no key is given"};
inline constexpr ConfigKey kTimeProfile{CurrentField::kKeys[static_cast<int>(Kind::kTime)], "s; m/s", nullptr, false,
                                        "optional"};
inline constexpr ConfigKey kDepthProfile{CurrentField::kKeys[static_cast<int>(Kind::kDepth)],
                                         "m (depth, positive down); m/s", nullptr, false, "optional"};
// surface waves (nereid/waves.h, docs/waves.md) added to the current
inline constexpr ConfigKey kWaveType{"wave_type", "—", "none", false};
inline constexpr ConfigKey kWaveHeight{"wave_height", "m", nullptr, false, "**required** with waves"};
inline constexpr ConfigKey kWavePeriod{"wave_period", "s", nullptr, false, "**required** with waves"};
inline constexpr ConfigKey kWaveDirection{"wave_direction", "rad", "0", false};
inline constexpr ConfigKey kWaterDepth{"water_depth", "m", "0", false};
inline constexpr ConfigKey kWaveGamma{"wave_gamma", "—", "3.3", false};
inline constexpr ConfigKey kWaveSpreading{"wave_spreading", "—", "0", false};
inline constexpr ConfigKey kWaveComponents{"wave_components", "—", "64", false};
inline constexpr ConfigKey kWaveSeed{"wave_seed", "—", "1", false};
inline constexpr std::array kCurrent{kVelocity, kTimeProfile, kDepthProfile};  // Kind order
inline constexpr std::array kWaves{kWaveType,  kWaveHeight,     kWavePeriod,     kWaveDirection, kWaterDepth,
                                   kWaveGamma, kWaveSpreading, kWaveComponents, kWaveSeed};
inline constexpr std::array kAll{kVelocity,   kTimeProfile, kDepthProfile,  kWaveType,       kWaveHeight, kWavePeriod,
                                 kWaveDirection, kWaterDepth, kWaveGamma, kWaveSpreading, kWaveComponents, kWaveSeed};
static_assert(DistinctNames(kAll));
}  // namespace current_keys

class CurrentPlugin final {
 public:
  static constexpr const char* kName = kCurrentPlugin;
  static constexpr auto kAttributes = KeyNames(current_keys::kAll);

  static std::unique_ptr<CurrentPlugin> Create(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();
  void Compute(const mjModel*, mjData*, int) noexcept {}
  void Reset() noexcept { field = initial; }

  // The field of the model's current instance in `d` (nullptr if instance < 0).
  static const CurrentField* Field(const mjData* d, int instance);

  // The field at p on a body of the model, for the body's parts (its hydrodynamics at the
  // origin, its buoyancy, its thrusters' inflow): the steady current at p plus the waves
  // of one waves::Tracker sample per body, taken at the body's origin (d->xpos) and
  // extrapolated to p to first order (waves::LocalWaves::Near; docs/waves.md "Cost").
  // Without waves, field.Evaluate(d->time, p) bit for bit. nullopt: no current instance.
  static std::optional<CurrentSample> OnBody(const mjData* d, int instance, int body, const Vec3& p);
  // OnBody(...)->velocity alone
  static std::optional<Vec3> VelocityOnBody(const mjData* d, int instance, int body, const Vec3& p);

  CurrentField initial;  // as configured in the model
  CurrentField field;    // as used now
  // per body: the waves at its origin, followed from step to step (a cache of `field`'s
  // waves: any state of it gives the same numbers to rounding)
  std::vector<waves::Tracker> trackers;
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_CURRENT_CURRENT_PLUGIN_H_
