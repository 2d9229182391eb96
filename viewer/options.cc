// Copyright Nereid authors.
#include "options.h"

#include <cstdlib>
#include <sstream>

namespace nereid::viewer {
namespace {

using cli::ParseDouble;

int ParsePositive(const std::string& flag, const std::string& text) {
  const long x = cli::ParseLong(flag, text);
  if (x < 1 || x > 1 << 20) throw Usage{flag + " expects a positive integer, got '" + text + "'"};
  return static_cast<int>(x);
}

void AddOverlays(const std::string& list, bool first, OverlaySet* set) {
  if (first) set->reset();  // the first --overlay replaces the defaults
  std::stringstream names(list);
  std::string name;
  while (std::getline(names, name, ',')) {
    Overlay overlay;
    if (name == "all") {
      set->set();
    } else if (name == "none") {
      set->reset();
    } else if (FindOverlay(name, &overlay)) {
      set->set(static_cast<size_t>(overlay));
    } else {
      throw Usage{"--overlay: unknown overlay '" + name + "'"};
    }
  }
}

}  // namespace

OverlaySet ViewerOptions::DefaultOverlays() {
  OverlaySet set;
  for (Overlay o : {Overlay::kThrust, Overlay::kDamping, Overlay::kWeight, Overlay::kBuoyancy,
                    Overlay::kCurrent, Overlay::kPath, Overlay::kDepth}) {
    set.set(static_cast<size_t>(o));
  }
  return set;
}

ViewerOptions ParseOptions(const std::vector<std::string>& args) {
  ViewerOptions options;
  bool overlay_given = false;
  std::string headless_flag;  // a flag that only makes sense with --headless
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw Usage{a + " needs a value"};
      return args[++i];
    };
    if (a == "--body") {
      options.body = value();
    } else if (a == "--camera") {
      options.camera = value();
      if (options.camera != "follow" && options.camera != "free" && options.camera != "fixed") {
        throw Usage{"--camera expects follow, free or fixed, got '" + options.camera + "'"};
      }
    } else if (a == "--constraints") {
      ConstraintMethod method;
      const std::string v = value();
      if (!ParseConstraintMethod(v, &method)) throw Usage{"--constraints expects mujoco or uk, got '" + v + "'"};
      options.constraints = method;
    } else if (a == "--speed") {
      options.speed = ParseDouble(a, value());
      if (!(options.speed > 0)) throw Usage{"--speed must be positive"};
    } else if (a == "--overlay") {
      AddOverlays(value(), !overlay_given, &options.overlays);
      overlay_given = true;
    } else if (a == "--no-underwater") {
      options.underwater = false;
    } else if (a == "--no-scenery") {
      options.scenery = false;
    } else if (a == "--no-hud") {
      options.hud = false;
    } else if (a == "--max-force") {
      options.max_force = ParseDouble(a, value());
    } else if (a == "--max-moment") {
      options.max_moment = ParseDouble(a, value());
    } else if (a == "--width") {
      options.width = ParsePositive(a, value());
    } else if (a == "--height") {
      options.height = ParsePositive(a, value());
    } else if (a == "--headless") {
      options.headless = true;
    } else if (a == "--frames") {
      headless_flag = a;
      options.frames = ParsePositive(a, value());
    } else if (a == "--screenshot") {
      headless_flag = a;
      options.screenshot = value();
    } else if (a == "--record") {
      headless_flag = a;
      options.record = value();
    } else if (a == "--report") {
      headless_flag = a;
      options.report = value();
    } else if (!a.empty() && a[0] == '-') {
      throw Usage{"unknown option '" + a + "'"};
    } else if (options.input.empty()) {
      options.input = a;
    } else {
      throw Usage{"unexpected argument '" + a + "'"};
    }
  }
  if (options.input.empty()) throw Usage{"needs a MODEL.xml or SCENARIO.json"};
  if (!options.headless && !headless_flag.empty()) throw Usage{headless_flag + " needs --headless"};
  return options;
}

}  // namespace nereid::viewer
