// Copyright Nereid authors.
// nereid.thruster's <config> keys, in README.md's order (nereid/config_key.h). The
// instance reader (thruster.cc) and ThrusterModel::Validate's messages both use them.
#ifndef NEREID_THRUSTER_KEYS_H_
#define NEREID_THRUSTER_KEYS_H_

#include "nereid/config_key.h"

namespace nereid::thruster_keys {

inline constexpr ConfigKey kInput{"input", "—", nullptr, true, "required"};
inline constexpr ConfigKey kCommandMap{"command_map", "µs, rpm", nullptr, false, "required for `pwm`"};
inline constexpr ConfigKey kThrustCoefficient{"thrust_coefficient", "N/rpm²", nullptr, false, "one of these two"};
inline constexpr ConfigKey kThrustCurve{"thrust_curve", "rpm, N", nullptr, false, "one of these two"};
inline constexpr ConfigKey kThrustLoss{"thrust_loss", "N/(rpm·m/s)", "0"};
inline constexpr ConfigKey kTimeConstant{"time_constant", "s", "0", false, "`0` (no lag)"};
inline constexpr ConfigKey kThrustLimits{"thrust_limits", "N", nullptr, false, "none (required for `normalized`)"};
inline constexpr ConfigKey kDeadBand{"dead_band", "command units", nullptr, false, "none"};
inline constexpr std::array kAll{kInput, kCommandMap, kThrustCoefficient, kThrustCurve, kThrustLoss,
                                 kTimeConstant, kThrustLimits, kDeadBand};
static_assert(DistinctNames(kAll));

}  // namespace nereid::thruster_keys

#endif  // NEREID_THRUSTER_KEYS_H_
