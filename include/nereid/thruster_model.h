// Copyright Nereid authors.
// The static and dynamic thruster model behind nereid.thruster, as a plain value type.
//
//   command --(input map, dead band)--> commanded shaft speed n_c (rpm, signed)
//   n' = (n_c - n) / time_constant          (first-order motor lag; n = n_c if 0)
//   T = T0(n) - T_nu |n| u_a                 (seed 000 eq. 12, Blanke et al. 2000)
//   T saturated to [thrust_min, thrust_max]
// T0(n) is k_f |n| n forward and k_r |n| n reverse, or a table; u_a is the water
// velocity through the propeller along the thrust axis (vehicle motion minus current).
#ifndef NEREID_THRUSTER_MODEL_H_
#define NEREID_THRUSTER_MODEL_H_

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nereid/names.h"

namespace nereid {

enum class ThrusterInput {
  kNormalized,  // [-1, 1]: fraction of thrust_max (forward) or of |thrust_min| (reverse)
  kPwm,         // ESC pulse width, us, through command_map
  kRpm,         // shaft speed, rpm
  kThrust,      // thrust, N (at zero advance speed)
};

inline constexpr std::array<Named<ThrusterInput>, 4> kThrusterInputNames{
    {{ThrusterInput::kNormalized, "normalized"}, {ThrusterInput::kPwm, "pwm"}, {ThrusterInput::kRpm, "rpm"},
     {ThrusterInput::kThrust, "thrust"}}};
inline bool ParseThrusterInput(std::string_view text, ThrusterInput* input) {
  return ParseName(kThrusterInputNames, text, input);
}

struct ThrusterModel {
  ThrusterInput input = ThrusterInput::kThrust;
  // command -> shaft speed table (input pwm): strictly increasing commands, non-decreasing rpm
  std::vector<double> map_command, map_rpm;
  // T0(n): k |n| n with k_forward for n > 0 and k_reverse for n < 0 (N/rpm^2) ...
  double k_forward = 0, k_reverse = 0;
  // ... or a table n -> T0 (strictly increasing rpm, non-decreasing thrust)
  std::vector<double> curve_rpm, curve_thrust;
  double thrust_loss = 0;    // T_nu >= 0, N per (rpm m/s)
  double time_constant = 0;  // s; 0: no motor lag
  double thrust_min = -std::numeric_limits<double>::infinity();  // N
  double thrust_max = std::numeric_limits<double>::infinity();   // N
  std::optional<std::pair<double, double>> dead_band;            // command units

  // Throws ConfigError "<where>: ..." naming the offending key and value.
  void Validate(const std::string& where) const;

  // Commanded shaft speed (rpm) for a command; NaN (no command) gives 0.
  double ShaftSpeed(double command) const;
  // Thrust at shaft speed n (rpm) with zero advance speed, before saturation.
  double StaticThrust(double n) const;
  // Thrust at shaft speed n and advance speed u_a (m/s), saturated.
  double Thrust(double n, double advance_speed) const;
  // Shaft speed giving thrust T at zero advance speed (inverse of StaticThrust).
  double ShaftSpeedForThrust(double thrust) const;
  // The thrust range reachable at zero advance speed: the thrust limits, narrowed to the
  // command map's end speeds for input pwm.
  std::pair<double, double> ThrustRange() const;
  // The command that yields thrust T in steady state at zero advance speed (allocation
  // output to actuator ctrl). T is saturated to the thrust limits first.
  double CommandForThrust(double thrust) const;
  // The same with the thrust range given (ThrustRange(), computed once by a caller that
  // commands at every step: ThrusterSet keeps it).
  double CommandForThrust(double thrust, std::pair<double, double> range) const;
};

// Piecewise-linear interpolation with end values held; x strictly increasing.
double Interpolate(const std::vector<double>& x, const std::vector<double>& y, double at);

}  // namespace nereid

#endif  // NEREID_THRUSTER_MODEL_H_
