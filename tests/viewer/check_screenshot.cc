// Copyright Nereid authors.
// nereid_view_check REPORT.json [--baseline BASELINE.png] [--expect OVERLAY]... [--vehicle-fraction F]
// Checks a headless nereid-view screenshot against the run's report: the image has the
// reported size and is not trivial, the vehicle's pixels are where the camera projects
// the vehicle (they differ from the water in the corners), and each expected overlay's
// colour covers enough pixels (and, given a baseline rendered without overlays, that many
// more than the baseline). Prints one line per check and 'N passed, M failed'. The vehicle
// check asks that F (default 0.5) of the 9x9 window differ from the water: an open frame
// such as the Raybot shows water through its middle.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "image.h"
#include "overlays.h"

namespace {

using nereid::viewer::Image;
using nereid::viewer::Rgb;

constexpr int kColourTolerance = 60;  // fog and antialiasing shift an overlay's colour a little
constexpr long kMinOverlayPixels = 100;
constexpr int kBackgroundTolerance = 40;

int passed = 0, failed = 0;

void Check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  (ok ? passed : failed)++;
}

Rgb ToRgb(const std::array<float, 4>& rgba) {
  return {static_cast<uint8_t>(255 * rgba[0]), static_cast<uint8_t>(255 * rgba[1]),
          static_cast<uint8_t>(255 * rgba[2])};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: nereid_view_check REPORT.json [--baseline PNG] [--expect OVERLAY]...\n");
    return 2;
  }
  std::string baseline_path;
  std::vector<std::string> expected;
  double vehicle_fraction = 0.5;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--vehicle-fraction") {
      vehicle_fraction = std::stod(argv[i + 1]);
      continue;
    }
    (flag == "--baseline" ? baseline_path : expected.emplace_back()) = argv[i + 1];
  }
  std::ifstream in(argv[1]);
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  Check(!report.is_discarded(), std::string("report ") + argv[1] + " is JSON");
  if (report.is_discarded()) return 1;

  Image image, baseline;
  std::string error;
  const std::string path = report.value("screenshot", "");
  const bool read = nereid::viewer::ReadPng(path, &image, &error);
  Check(read, "read " + path + (read ? "" : ": " + error));
  if (!read) return 1;
  Check(image.width == report["width"] && image.height == report["height"],
        "size " + std::to_string(image.width) + "x" + std::to_string(image.height));
  const long colours = nereid::viewer::DistinctColours(image);
  Check(colours >= 100, "non-trivial image: " + std::to_string(colours) + " distinct colours");

  const Rgb water = nereid::viewer::CornerBackground(image);
  const nlohmann::json& pixel = report["vehicle_pixel"];
  Check(pixel.is_array(), "the vehicle projects into the image");
  if (pixel.is_array()) {
    const int x = pixel[0], y = pixel[1];
    const double fraction =
        nereid::viewer::FractionDiffering(image, x, y, 4, water, kBackgroundTolerance);
    char line[160];
    std::snprintf(line, sizeof(line),
                  "vehicle pixels at (%d, %d): %.0f%% of the 9x9 window differ from the water "
                  "(%d, %d, %d)", x, y, 100 * fraction, water[0], water[1], water[2]);
    Check(fraction >= vehicle_fraction, line);
  }

  const bool have_baseline = !baseline_path.empty() && nereid::viewer::ReadPng(baseline_path, &baseline, &error);
  if (!baseline_path.empty()) Check(have_baseline, "read baseline " + baseline_path);
  for (const std::string& name : expected) {
    nereid::viewer::Overlay overlay;
    if (!nereid::viewer::FindOverlay(name, &overlay)) {
      Check(false, "unknown overlay " + name);
      continue;
    }
    const Rgb colour = ToRgb(nereid::viewer::Info(overlay).rgba);
    const long count = nereid::viewer::CountNear(image, colour, kColourTolerance);
    const long base = have_baseline ? nereid::viewer::CountNear(baseline, colour, kColourTolerance) : 0;
    Check(count - base >= kMinOverlayPixels,
          "overlay " + name + ": " + std::to_string(count) + " pixels of its colour (baseline " +
              std::to_string(base) + ")");
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
