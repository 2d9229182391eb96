// Copyright Nereid authors.
// nereid-view --headless: a fixed number of frames of 1/60 s, stepped as `nereid run`
// rounds its duration, then the screenshot and the report (the state reached, the
// vehicle's pixel).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "app.h"
#include "nereid/object_names.h"
#include "nereid/output.h"
#include "nereid/runner.h"

namespace nereid::viewer {
namespace {

constexpr double kHeadlessFrame = 1.0 / 60;  // simulated seconds per headless frame

}  // namespace

int App::RunHeadless() {
  const int width = options_.width, height = options_.height;
  // --record: every failure is an error naming the file (exit 1), not a message
  if (!options_.record.empty()) {
    const std::string error = StartRecording();
    if (!error.empty()) throw OutputError("--record " + error);
  }
  const auto start = std::chrono::steady_clock::now();
  const double start_time = sim_->data()->time;
  // frame k ends after round(k x frame time / dt) steps, as `nereid run --duration` rounds
  const double h = sim_->model()->opt.timestep;
  steps_ = 0;
  for (int frame = 0; frame < options_.frames && !diverged_ && !paused_; ++frame) {
    AdvanceSteps(std::lround((frame + 1) * kHeadlessFrame * speed_ / h));
    // the speed-up so far (the HUD of recorded frames shows it)
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    realtime_factor_ = elapsed > 0 ? (sim_->data()->time - start_time) / elapsed : 0;
    if (!record_dir_.empty()) {
      Render(width, height);
      const std::string error = RecordFrame(width, height);
      if (!error.empty()) throw OutputError("--record: " + error);
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  realtime_factor_ = wall > 0 ? (sim_->data()->time - start_time) / wall : 0;
  Render(width, height);
  const Image image = ReadPixels(width, height);
  if (!record_dir_.empty()) {
    const std::string error = StopRecording();
    if (!error.empty()) throw OutputError("--record: " + error);
  }

  if (!options_.screenshot.empty()) {
    const std::string error = WriteImage(options_.screenshot, image);
    if (!error.empty()) throw OutputError(error);
  }
  if (!options_.report.empty()) WriteReport(width, height);
  if (!message_.empty()) std::fprintf(stderr, "nereid-view: %s\n", message_.c_str());
  return diverged_ ? 3 : 0;
}

void App::WriteReport(int width, int height) const {
  nlohmann::json report = {{"input", options_.input}, {"width", width}, {"height", height},
                           {"time", sim_->data()->time}, {"screenshot", options_.screenshot}};
  nlohmann::json shown = nlohmann::json::array();
  for (const OverlayInfo& o : Overlays()) {
    if (overlays_[static_cast<size_t>(o.overlay)]) shown.push_back(o.name);
  }
  report["overlays"] = shown;
  // the state reached, as `nereid run` writes it (summary.json "final_state")
  report["final_state"] = nlohmann::json::parse(FinalStateJson(sim_->model(), sim_->data()));
  report["realtime_factor"] = realtime_factor_;
  report["vehicle"] = nullptr;
  report["vehicle_pixel"] = nullptr;
  if (vehicle_ >= 0) {
    report["vehicle"] = OutputName(sim_->model(), mjOBJ_BODY, vehicle_);  // as nereid run names it
    const std::optional<Pixel> pixel = Project(scn_.camera[0], width, height, sim_->data()->xpos + 3 * vehicle_);
    if (pixel) report["vehicle_pixel"] = {pixel->x, pixel->y};
  }
  WriteOutputFile(options_.report, report.dump(2) + "\n");  // checked; throws OutputError
}

}  // namespace nereid::viewer
