// Copyright Nereid authors.
// The viewer's own depth and heading holds: two PD loops that add a world-frame heave force
// and yaw moment to the teleoperation wrench, which then goes to the thrusters through the
// allocation (nereid/allocation.h) when the vehicle has them. They exist so that a person
// can fly the vehicle comfortably; the full pose controller is nereid::CascadedPid.
#ifndef NEREID_VIEWER_CONTROL_H_
#define NEREID_VIEWER_CONTROL_H_

namespace nereid::viewer {

struct PdGains {
  double kp = 0, kd = 0, limit = 0;  // output = clamp(kp e - kd rate, +-limit)
  // Critically damped gains for an inertia (kg or kg m^2) and a natural frequency (rad/s).
  static PdGains Critical(double inertia, double omega, double limit);
};

double PdOutput(const PdGains& gains, double error, double rate);

// Heading (yaw about world z) of a world-from-body rotation matrix (row-major, d->xmat):
// the angle of the body x axis projected on the horizontal plane, in (-pi, pi].
double Heading(const double xmat[9]);
// a - b wrapped to (-pi, pi].
double AngleDifference(double a, double b);

// A hold's setpoint follows the pilot: while the matching teleop axis is deflected, the
// setpoint moves at `rate` per unit deflection (m/s or rad/s) and the loop keeps holding.
struct Hold {
  bool on = false;
  double setpoint = 0;
  void Engage(double value) { on = true; setpoint = value; }
  void Nudge(double deflection, double rate, double dt) { setpoint += deflection * rate * dt; }
};

// World-frame outputs of both holds for the vehicle at height z (m, up), vertical speed
// zdot, heading psi and yaw rate r (rad, rad/s, about world z).
struct HoldOutput {
  double heave_force = 0;  // N along world z
  double yaw_moment = 0;   // N m about world z
};
HoldOutput HoldWrench(const Hold& depth, const PdGains& depth_gains, const Hold& heading,
                      const PdGains& heading_gains, double z, double zdot, double psi,
                      double r);

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_CONTROL_H_
