// Copyright Nereid authors.
// nereid-view's command line.
#ifndef NEREID_VIEWER_OPTIONS_H_
#define NEREID_VIEWER_OPTIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "cli/usage.h"
#include "nereid/uk.h"
#include "overlays.h"

namespace nereid::viewer {

inline constexpr char kUsage[] =
    "usage: nereid-view MODEL.xml|SCENARIO.json [options]\n"
    "  --body NAME           vehicle to fly and follow (default: first body with a free joint)\n"
    "  --camera MODE         follow (default), free, or fixed (the model's first camera)\n"
    "  --speed X             simulated seconds per wall-clock second (default 1; 1e-6..1e6)\n"
    "  --overlay NAME        overlays to show, repeatable or comma-separated: thrust, damping,\n"
    "                        coriolis, weight, buoyancy, current, tether, constraint, path,\n"
    "                        depth, sensors, estimate, all, none\n"
    "  --no-underwater       no fog or water backdrop\n"
    "  --constraints M       mujoco or uk: who enforces the model's uk: welds (as nereid run)\n"
    "  --no-scenery          no water surface, wall or seabed grid\n"
    "  --no-hud              no text and plots over the scene (H toggles them)\n"
    "  --max-force N         teleoperation force at full deflection (default 40; 0..1e5)\n"
    "  --max-moment NM       teleoperation moment at full deflection (default 10; 0..1e5)\n"
    "  --width W --height H  window or image size (default 1280 x 720; 1..16384 each)\n"
    "headless (CI, under xvfb-run):\n"
    "  --headless            no window: step, render offscreen, write the outputs, exit\n"
    "  --frames N            frames to step; each is 1/60 s simulated (default 60; 1..1048576)\n"
    "  --screenshot FILE     PNG of the last frame\n"
    "  --record DIR          PNG of every frame in DIR (and DIR.mp4 when ffmpeg is on PATH)\n"
    "  --report FILE         JSON: image size, the vehicle's pixel, overlays shown\n";

// The bounds of the numeric flags (a value outside is a usage error stating the range).
inline constexpr double kMaxTeleop = 1e5;        // --max-force (N), --max-moment (N m)
inline constexpr long kMaxPixels = 1 << 14;      // --width, --height: 1..16384
inline constexpr long kMaxFrames = 1 << 20;      // --frames

struct ViewerOptions {
  std::string input;
  std::string body;
  std::string camera = "follow";
  std::optional<ConstraintMethod> constraints;  // --constraints: who enforces "uk:" welds
  double speed = 1;
  OverlaySet overlays = DefaultOverlays();
  bool underwater = true;
  bool scenery = true;  // the water surface, a scenario's wall, the seabed grid
  bool hud = true;
  double max_force = 40, max_moment = 10;
  int width = 1280, height = 720;
  bool headless = false;
  int frames = 60;
  std::string screenshot, record, report;

  // thrust, damping, weight, buoyancy, current, path, depth, sensors, estimate
  static OverlaySet DefaultOverlays();
};

// A command-line mistake (exit status 2, with the usage text).
using Usage = nereid::cli::Usage;

// Parses the arguments after the program name. Throws Usage.
ViewerOptions ParseOptions(const std::vector<std::string>& args);

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_OPTIONS_H_
