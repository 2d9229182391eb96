// Copyright Nereid authors.
#include "options.h"

#include <cstdlib>
#include <sstream>

#include "cli/arguments.h"

namespace nereid::viewer {
namespace {

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
                    Overlay::kCurrent, Overlay::kPath, Overlay::kDepth, Overlay::kSensors, Overlay::kEstimate}) {
    set.set(static_cast<size_t>(o));
  }
  return set;
}

ViewerOptions ParseOptions(const std::vector<std::string>& args) {
  ViewerOptions options;
  bool overlay_given = false;
  std::string headless_flag;  // a flag that only makes sense with --headless
  cli::Parser parser("nereid-view");
  CLI::App& app = parser.app();
  cli::AddInput(app, &options.input, "input");
  app.add_option("--body", options.body);
  static constexpr std::array<Named<std::string_view>, 3> kCameras{{{"follow", "follow"}, {"free", "free"}, {"fixed", "fixed"}}};
  cli::AddChoice<std::string_view>(app, "--camera", kCameras, [&](const std::string_view& x) { options.camera = x; });
  cli::AddChoice<ConstraintMethod>(app, "--constraints", kConstraintMethodNames,
                                   [&](const ConstraintMethod& x) { options.constraints = x; });
  cli::AddNumber<double>(app, "--speed", [&](const double& x) { options.speed = x; }, 1e-6, 1e6);
  app.add_option_function<std::vector<std::string>>("--overlay", [&](const std::vector<std::string>& lists) {
    for (const std::string& list : lists) {
      AddOverlays(list, !overlay_given, &options.overlays);  // the first replaces the defaults
      overlay_given = true;
    }
  });
  app.add_flag_callback("--no-underwater", [&] { options.underwater = false; });
  app.add_flag_callback("--no-scenery", [&] { options.scenery = false; });
  app.add_flag_callback("--no-hud", [&] { options.hud = false; });
  // teleoperation at full deflection: 0 (off) up to 1e5 N and N m, far beyond any thruster
  // the models carry; NaN, infinities and negative values are refused (AddNumber's check is
  // !(lo <= x <= hi), which NaN fails)
  cli::AddNumber<double>(app, "--max-force", [&](const double& x) { options.max_force = x; }, 0, kMaxTeleop);
  cli::AddNumber<double>(app, "--max-moment", [&](const double& x) { options.max_moment = x; }, 0, kMaxTeleop);
  cli::AddNumber<long>(app, "--width", [&](const long& x) { options.width = static_cast<int>(x); }, 1, kMaxPixels);
  cli::AddNumber<long>(app, "--height", [&](const long& x) { options.height = static_cast<int>(x); }, 1, kMaxPixels);
  app.add_flag_callback("--headless", [&] { options.headless = true; });
  auto headless_only = [&](const char* flag) { headless_flag = flag; };
  cli::AddNumber<long>(app, "--frames", [&](const long& x) {
    headless_only("--frames");
    options.frames = static_cast<int>(x);
  }, 1, kMaxFrames);
  for (auto [flag, target] : {std::pair{"--screenshot", &options.screenshot}, std::pair{"--record", &options.record},
                              std::pair{"--report", &options.report}}) {
    app.add_option_function<std::string>(flag, [&, flag = flag, target = target](const std::string& x) {
      headless_only(flag);
      *target = x;
    });
  }
  parser.Parse(args);
  if (options.input.empty()) throw Usage{"needs a MODEL.xml or SCENARIO.json"};
  if (!options.headless && !headless_flag.empty()) throw Usage{headless_flag + " needs --headless"};
  return options;
}

}  // namespace nereid::viewer
