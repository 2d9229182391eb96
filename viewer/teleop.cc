// Copyright Nereid authors.
#include "teleop.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace nereid::viewer {
namespace {

// in (+, -) pairs per axis, which HelpText relies on
constexpr std::array<AxisKey, 12> kAxisKeys = {{
    {GLFW_KEY_W, kSurge, +1, "W"}, {GLFW_KEY_S, kSurge, -1, "S"},
    {GLFW_KEY_A, kSway, +1, "A"},  {GLFW_KEY_D, kSway, -1, "D"},
    {GLFW_KEY_R, kHeave, +1, "R"}, {GLFW_KEY_F, kHeave, -1, "F"},
    {GLFW_KEY_L, kRoll, +1, "L"},  {GLFW_KEY_J, kRoll, -1, "J"},
    {GLFW_KEY_K, kPitch, +1, "K"}, {GLFW_KEY_I, kPitch, -1, "I"},
    {GLFW_KEY_Q, kYaw, +1, "Q"},   {GLFW_KEY_E, kYaw, -1, "E"},
}};

double Deadband(double x, double deadband) {
  const double magnitude = std::abs(x);
  if (magnitude <= deadband) return 0;
  return std::copysign(std::min(1.0, (magnitude - deadband) / (1 - deadband)), x);
}

}  // namespace

std::span<const AxisKey> AxisKeys() { return kAxisKeys; }

Axes AxesFromKeys(const std::function<bool(int key)>& is_down) {
  Axes axes = Axes::Zero();
  for (const AxisKey& k : kAxisKeys) {
    if (is_down(k.key)) axes[k.axis] += k.sign;
  }
  return axes;
}

Axes AxesFromGamepad(std::span<const float> axes, double deadband) {
  Axes out = Axes::Zero();
  if (axes.size() <= GLFW_GAMEPAD_AXIS_LAST) return out;
  auto axis = [&](int i) { return Deadband(axes[i], deadband); };
  // triggers rest at -1 and read +1 when pulled
  auto trigger = [&](int i) { return Deadband(0.5 * (axes[i] + 1), deadband); };
  out[kSurge] = -axis(GLFW_GAMEPAD_AXIS_LEFT_Y);  // stick up = forward
  out[kSway] = -axis(GLFW_GAMEPAD_AXIS_LEFT_X);   // stick right = starboard = -y
  out[kHeave] = -axis(GLFW_GAMEPAD_AXIS_RIGHT_Y);
  out[kYaw] = -axis(GLFW_GAMEPAD_AXIS_RIGHT_X);   // stick right = turn right
  out[kRoll] = trigger(GLFW_GAMEPAD_AXIS_RIGHT_TRIGGER) - trigger(GLFW_GAMEPAD_AXIS_LEFT_TRIGGER);
  return out;
}

Vec6 BodyWrench(const Axes& axes, const TeleopLimits& limits) {
  Vec6 wrench;
  for (int i = 0; i < kAxisCount; ++i) {
    wrench[i] = std::clamp(axes[i], -1.0, 1.0) * (i < 3 ? limits.force : limits.moment);
  }
  return wrench;
}

}  // namespace nereid::viewer
