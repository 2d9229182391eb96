// Copyright Nereid authors.
// The viewer's key bindings: one table, used both to dispatch key presses and to print the
// help overlay, so the two cannot disagree. Teleoperation keys are held, not pressed, and
// are listed in teleop.h.
#ifndef NEREID_VIEWER_KEYS_H_
#define NEREID_VIEWER_KEYS_H_

#include <span>
#include <string>
#include <string_view>

namespace nereid::viewer {

enum class Action {
  kNone,
  kQuit,
  kHelp,
  kPause,
  kStep,
  kReset,
  kSlower,
  kFaster,
  kCamera,
  kScreenshot,
  kRecord,
  kHud,
  kPlots,
  kUnderwater,
  kScenery,
  kArrowsShorter,
  kArrowsLonger,
  kDepthHold,
  kHeadingHold,
  kToggleOverlay,  // the overlay is found by key in overlays.h
};

struct KeyBinding {
  int key;  // GLFW_KEY_*
  Action action;
  std::string_view label;        // key name for the help overlay
  std::string_view description;
};

// Single-press bindings (overlays excluded: see overlays.h).
std::span<const KeyBinding> KeyBindings();
// The action of a pressed key: a binding, kToggleOverlay for an overlay's key, or kNone.
Action ActionForKey(int key);
// Help overlay text: key names and descriptions, one line each, tab-free columns for
// mjr_overlay; teleoperation and overlay keys included.
void HelpText(std::string* keys, std::string* descriptions);

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_KEYS_H_
