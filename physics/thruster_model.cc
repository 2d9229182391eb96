// Copyright Nereid authors.
#include "nereid/thruster_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "nereid/error.h"
#include "nereid/thruster_keys.h"

namespace nereid {
namespace {

std::string Num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", x);
  return buffer;
}

void CheckTable(const std::vector<double>& x, const std::vector<double>& y, const std::string& where,
                const char* key, const char* what_x, const char* what_y) {
  if (x.size() < 2) throw ConfigError(where + ": key '" + key + "' needs at least 2 pairs");
  for (size_t i = 1; i < x.size(); ++i) {
    if (!(x[i] > x[i - 1])) {
      throw ConfigError(where + ": key '" + key + "': " + what_x + " must be strictly increasing (" +
                        Num(x[i - 1]) + " then " + Num(x[i]) + ")");
    }
    if (y[i] < y[i - 1]) {
      throw ConfigError(where + ": key '" + key + "': " + what_y + " must not decrease (" +
                        Num(y[i - 1]) + " then " + Num(y[i]) + " at " + Num(x[i]) + ")");
    }
  }
}

// inverse of a non-decreasing piecewise-linear table: the smallest x with y(x) = target,
// clamped to the table's ends; flat stretches at zero map to zero when they contain it
double InverseInterpolate(const std::vector<double>& x, const std::vector<double>& y, double target) {
  if (target <= y.front()) return x.front();
  if (target >= y.back()) return x.back();
  // the first i >= 1 with target <= y[i] (y does not decrease: CheckTable)
  const auto i = static_cast<size_t>(std::lower_bound(y.begin() + 1, y.end(), target) - y.begin());
  if (y[i] == y[i - 1]) return x[i - 1];
  return x[i - 1] + (target - y[i - 1]) * (x[i] - x[i - 1]) / (y[i] - y[i - 1]);
}

}  // namespace

double Interpolate(const std::vector<double>& x, const std::vector<double>& y, double at) {
  if (at <= x.front()) return y.front();
  if (at >= x.back()) return y.back();
  const size_t i = static_cast<size_t>(std::upper_bound(x.begin(), x.end(), at) - x.begin());
  return y[i - 1] + (at - x[i - 1]) * (y[i] - y[i - 1]) / (x[i] - x[i - 1]);
}

void ThrusterModel::Validate(const std::string& where) const {
  namespace k = thruster_keys;
  const std::string coefficient = k::kThrustCoefficient.name, curve = k::kThrustCurve.name,
                    map = k::kCommandMap.name, limits = k::kThrustLimits.name, band = k::kDeadBand.name;
  const bool parametric = k_forward > 0 || k_reverse > 0;
  if (parametric == !curve_rpm.empty()) {
    throw ConfigError(where + ": give exactly one of '" + coefficient + "' (k_forward k_reverse) and '" + curve +
                      "' (rpm thrust pairs)");
  }
  if (parametric && (k_forward <= 0 || k_reverse <= 0)) {
    throw ConfigError(where + ": key '" + coefficient + "': both coefficients must be > 0 (got " +
                      Num(k_forward) + " " + Num(k_reverse) + ")");
  }
  if (!curve_rpm.empty()) {
    CheckTable(curve_rpm, curve_thrust, where, k::kThrustCurve.name, "rpm", "thrust");
  }
  if (input == ThrusterInput::kPwm) {
    if (map_command.empty()) {
      throw ConfigError(where + ": input 'pwm' needs key '" + map + "' (pwm rpm pairs)");
    }
    CheckTable(map_command, map_rpm, where, k::kCommandMap.name, "commands", "rpm");
  }
  if (thrust_min > thrust_max) {
    throw ConfigError(where + ": key '" + limits + "': min > max (" + Num(thrust_min) + " > " +
                      Num(thrust_max) + ")");
  }
  if (thrust_min > 0 || thrust_max < 0) {
    throw ConfigError(where + ": key '" + limits + "' must contain 0 (got " + Num(thrust_min) + " " +
                      Num(thrust_max) + ")");
  }
  if (input == ThrusterInput::kNormalized && (!std::isfinite(thrust_min) || !std::isfinite(thrust_max))) {
    throw ConfigError(where + ": input 'normalized' needs key '" + limits + "' (min max, N)");
  }
  if (dead_band && dead_band->first > dead_band->second) {
    throw ConfigError(where + ": key '" + band + "': low > high (" + Num(dead_band->first) + " > " +
                      Num(dead_band->second) + ")");
  }
  if (thrust_loss < 0) {
    throw ConfigError(where + ": key '" + std::string(k::kThrustLoss.name) + "' = '" + Num(thrust_loss) +
                      "': must be >= 0");
  }
  if (time_constant < 0) {
    throw ConfigError(where + ": key '" + std::string(k::kTimeConstant.name) + "' = '" + Num(time_constant) +
                      "': must be >= 0 s");
  }
}

double ThrusterModel::ShaftSpeed(double command) const {
  if (std::isnan(command)) return 0;  // no command: motor stopped
  if (dead_band && command >= dead_band->first && command <= dead_band->second) return 0;
  switch (input) {
    case ThrusterInput::kPwm: return Interpolate(map_command, map_rpm, command);
    case ThrusterInput::kRpm: return command;
    case ThrusterInput::kThrust: return ShaftSpeedForThrust(command);
    case ThrusterInput::kNormalized: {
      const double c = std::clamp(command, -1.0, 1.0);
      return ShaftSpeedForThrust(c >= 0 ? c * thrust_max : -c * thrust_min);
    }
  }
  return 0;
}

double ThrusterModel::StaticThrust(double n) const {
  if (!curve_rpm.empty()) return Interpolate(curve_rpm, curve_thrust, n);
  return (n >= 0 ? k_forward : k_reverse) * std::abs(n) * n;
}

double ThrusterModel::Thrust(double n, double advance_speed) const {
  const double T = StaticThrust(n) - thrust_loss * std::abs(n) * advance_speed;
  return std::clamp(T, thrust_min, thrust_max);
}

double ThrusterModel::ShaftSpeedForThrust(double thrust) const {
  const double T = std::clamp(thrust, thrust_min, thrust_max);
  if (!curve_rpm.empty()) return InverseInterpolate(curve_rpm, curve_thrust, T);
  const double k = T >= 0 ? k_forward : k_reverse;
  return T >= 0 ? std::sqrt(T / k) : -std::sqrt(-T / k);
}

std::pair<double, double> ThrusterModel::ThrustRange() const {
  if (input != ThrusterInput::kPwm) return {thrust_min, thrust_max};
  return {std::max(thrust_min, StaticThrust(map_rpm.front())),
          std::min(thrust_max, StaticThrust(map_rpm.back()))};
}

double ThrusterModel::CommandForThrust(double thrust) const { return CommandForThrust(thrust, ThrustRange()); }

double ThrusterModel::CommandForThrust(double thrust, std::pair<double, double> range) const {
  const double T = std::clamp(thrust, range.first, range.second);
  switch (input) {
    case ThrusterInput::kThrust: return T;
    case ThrusterInput::kRpm: return ShaftSpeedForThrust(T);
    case ThrusterInput::kNormalized:
      return T >= 0 ? (thrust_max > 0 ? T / thrust_max : 0) : (thrust_min < 0 ? -T / thrust_min : 0);
    case ThrusterInput::kPwm: {
      const double n = ShaftSpeedForThrust(T);
      if (n != 0) return InverseInterpolate(map_command, map_rpm, n);
      if (dead_band) return 0.5 * (dead_band->first + dead_band->second);
      // the middle of the table's zero-speed plateau (the ESC's neutral)
      double first = 0, last = 0;
      bool found = false;
      for (size_t i = 0; i < map_rpm.size(); ++i) {
        if (map_rpm[i] != 0) continue;
        if (!found) first = map_command[i];
        last = map_command[i];
        found = true;
      }
      return found ? 0.5 * (first + last) : InverseInterpolate(map_command, map_rpm, 0.0);
    }
  }
  return 0;
}

}  // namespace nereid
