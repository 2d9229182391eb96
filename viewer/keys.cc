// Copyright Nereid authors.
#include "keys.h"

#include <GLFW/glfw3.h>

#include <array>

#include "overlays.h"
#include "teleop.h"

namespace nereid::viewer {
namespace {

constexpr std::array<KeyBinding, 18> kBindings = {{
    {GLFW_KEY_H, Action::kHelp, "H", "help"},
    {GLFW_KEY_SPACE, Action::kPause, "Space", "pause / run"},
    {GLFW_KEY_PERIOD, Action::kStep, ".", "single step (paused)"},
    {GLFW_KEY_BACKSPACE, Action::kReset, "Backspace", "reset (keyframe 0 / scenario)"},
    {GLFW_KEY_COMMA, Action::kSlower, ",", "slow motion (x1/2)"},
    {GLFW_KEY_SLASH, Action::kFaster, "/", "fast forward (x2)"},
    {GLFW_KEY_C, Action::kCamera, "C", "camera: follow, free, fixed"},
    {GLFW_KEY_P, Action::kScreenshot, "P", "screenshot (PNG)"},
    {GLFW_KEY_V, Action::kRecord, "V", "record video on/off"},
    {GLFW_KEY_TAB, Action::kHud, "Tab", "HUD"},
    {GLFW_KEY_G, Action::kPlots, "G", "plots"},
    {GLFW_KEY_U, Action::kUnderwater, "U", "underwater look"},
    {GLFW_KEY_0, Action::kScenery, "0", "scenery: water surface, wall, seabed grid"},
    {GLFW_KEY_MINUS, Action::kArrowsShorter, "-", "shorter arrows"},
    {GLFW_KEY_EQUAL, Action::kArrowsLonger, "=", "longer arrows"},
    {GLFW_KEY_Z, Action::kDepthHold, "Z", "depth hold"},
    {GLFW_KEY_X, Action::kHeadingHold, "X", "heading hold"},
    {GLFW_KEY_ESCAPE, Action::kQuit, "Esc", "quit"},
}};

}  // namespace

std::span<const KeyBinding> KeyBindings() { return kBindings; }

Action ActionForKey(int key) {
  for (const KeyBinding& b : kBindings) {
    if (b.key == key) return b.action;
  }
  for (const OverlayInfo& o : Overlays()) {
    if (o.key == key) return Action::kToggleOverlay;
  }
  return Action::kNone;
}

void HelpText(std::string* keys, std::string* descriptions) {
  keys->clear();
  descriptions->clear();
  auto line = [&](std::string_view key, std::string_view description) {
    *keys += std::string(key) + "\n";
    *descriptions += std::string(description) + "\n";
  };
  for (const KeyBinding& b : kBindings) line(b.label, b.description);
  for (const OverlayInfo& o : Overlays()) {
    line(std::string(1, static_cast<char>(o.key)), std::string(o.description) + " overlay");
  }
  // held keys come in pairs (+, -) in AxisKeys()
  constexpr std::array<std::string_view, kAxisCount> kAxisNames = {
      "surge", "sway (port / starboard)", "heave", "roll", "pitch", "yaw (left / right)"};
  const std::span<const AxisKey> axis_keys = AxisKeys();
  for (size_t i = 0; i + 1 < axis_keys.size(); i += 2) {
    line(std::string(axis_keys[i].label) + " " + std::string(axis_keys[i + 1].label),
         std::string("hold: ") + std::string(kAxisNames[axis_keys[i].axis]));
  }
  // mjr_overlay draws no trailing empty line
  if (!keys->empty()) keys->pop_back();
  if (!descriptions->empty()) descriptions->pop_back();
}

}  // namespace nereid::viewer
