// Copyright Nereid authors.
// Teleoperation: held keys or a gamepad's axes -> normalised body-frame axes in [-1, 1]
// (surge, sway, heave, roll, pitch, yaw; FLU: x forward, y port, z up) -> a body-frame
// wrench [force; moment], which the viewer writes, rotated to the world, into
// d->xfrc_applied of the vehicle (MuJoCo applies it at the body's centre of mass).
#ifndef NEREID_VIEWER_TELEOP_H_
#define NEREID_VIEWER_TELEOP_H_

#include <functional>
#include <span>
#include <string_view>

#include "nereid/frames.h"

namespace nereid::viewer {

enum Axis { kSurge, kSway, kHeave, kRoll, kPitch, kYaw, kAxisCount };
using Axes = Eigen::Matrix<double, 6, 1>;

struct AxisKey {
  int key;      // GLFW_KEY_*
  Axis axis;
  double sign;  // +1 or -1
  std::string_view label;
};

// The held-key table: W/S surge, A/D sway (A = port), R/F heave, J/L roll, I/K pitch,
// Q/E yaw (Q = turn left).
std::span<const AxisKey> AxisKeys();
// Axes from the keys that `is_down` reports held (opposite keys cancel).
Axes AxesFromKeys(const std::function<bool(int key)>& is_down);
// Axes from a GLFW gamepad state's axes (GLFW_GAMEPAD_AXIS_*; stick y points down):
// left stick surge/sway, right stick heave/yaw, triggers roll. Within `deadband` of
// centre an axis reads 0, and the rest is rescaled to reach 1 at full deflection.
Axes AxesFromGamepad(std::span<const float> axes, double deadband = 0.1);

struct TeleopLimits {
  double force = 40;   // N at full deflection
  double moment = 10;  // N m at full deflection
};
// Body-frame [force; moment] for the axes (each clamped to [-1, 1]).
Vec6 BodyWrench(const Axes& axes, const TeleopLimits& limits);

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_TELEOP_H_
