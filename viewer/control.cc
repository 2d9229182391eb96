// Copyright Nereid authors.
#include "control.h"

#include <algorithm>
#include <cmath>

namespace nereid::viewer {

PdGains PdGains::Critical(double inertia, double omega, double limit) {
  // inertia * (e'' + 2 omega e' + omega^2 e) = 0: damping ratio 1
  return PdGains{inertia * omega * omega, 2 * inertia * omega, limit};
}

double PdOutput(const PdGains& gains, double error, double rate) {
  return std::clamp(gains.kp * error - gains.kd * rate, -gains.limit, gains.limit);
}

double Heading(const double xmat[9]) { return std::atan2(xmat[3], xmat[0]); }

double AngleDifference(double a, double b) {
  double d = std::remainder(a - b, 2 * M_PI);
  if (d <= -M_PI) d += 2 * M_PI;
  return d;
}

HoldOutput HoldWrench(const Hold& depth, const PdGains& depth_gains, const Hold& heading,
                      const PdGains& heading_gains, double z, double zdot, double psi,
                      double r) {
  HoldOutput out;
  if (depth.on) out.heave_force = PdOutput(depth_gains, depth.setpoint - z, zdot);
  if (heading.on) out.yaw_moment = PdOutput(heading_gains, AngleDifference(heading.setpoint, psi), r);
  return out;
}

}  // namespace nereid::viewer
