// Copyright Nereid authors.
// nereid-view's rendering: the scene (MuJoCo's, the scenery, the overlays, the underwater
// look) and the HUD drawn over it (status text, help, message, plots).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app.h"
#include "instruments.h"
#include "keys.h"
#include "nereid/kinematics.h"
#include "nereid/navigator.h"

namespace nereid::viewer {

void App::Render(int width, int height) {
  const mjModel* m = sim_->model();
  mjData* d = sim_->data();
  const mjrRect viewport = {0, 0, width, height};
  if (camera_mode_ == CameraMode::kFollow && group_.size() > 1) {
    double mass = 0, center[3] = {0, 0, 0};
    for (int b : group_) {
      mass += m->body_mass[b];
      for (int k = 0; k < 3; ++k) center[k] += m->body_mass[b] * d->xipos[3 * b + k];
    }
    for (int k = 0; k < 3; ++k) cam_.lookat[k] = mass > 0 ? center[k] / mass : d->xpos[3 * vehicle_ + k];
  }
  mjv_updateScene(m, d, &opt_, nullptr, &cam_, mjCAT_ALL, &scn_);
  if (scenery_on_) {
    const CurrentField* current = sim_->current();
    AddScenery(m, scenery_, cam_.lookat, &scn_, current ? current->waves() : nullptr, d->time);
  } else {
    HideSceneGeoms(m, &scn_);
  }
  // the navigation filter's estimate as a ghost of the vehicle (and the bodies welded to it)
  const Navigator* navigator = control_ ? control_->navigator() : nullptr;
  if (overlays_[static_cast<size_t>(Overlay::kEstimate)] && navigator) {
    const int body = navigator->body();
    const std::vector<int> bodies = body == vehicle_ && !group_.empty() ? group_ : std::vector<int>{body};
    const BodyEstimate& e = navigator->estimate();
    AddGhost(m, d, bodies, body, e.position, e.quaternion.toRotationMatrix(), Info(Overlay::kEstimate).rgba.data(),
             &scn_);
  }
  AddOverlays(m, d, *sim_, vehicle_, overlays_, scales_, &scn_);
  if (overlays_[static_cast<size_t>(Overlay::kDepth)] && vehicle_ >= 0) {
    const Vec3 at(d->xpos[3 * vehicle_], d->xpos[3 * vehicle_ + 1], d->xpos[3 * vehicle_ + 2]);
    AddDepthGauge(m, scenery_, at, Info(Overlay::kDepth).rgba.data(), &scn_);
  }
  if (overlays_[static_cast<size_t>(Overlay::kPath)]) {
    static const std::vector<Vec3> kNoPath;
    const PathController* follower = control_ ? control_->follower() : nullptr;
    AddPath(follower ? follower->path().points : kNoPath, trail_, &scn_);
  }
  ApplyUnderwaterLook(underwater_, m, &scn_);
  mjr_render(viewport, &scn_, &con_);
  DrawHud(viewport);
}

std::string App::ControllerStatus() const {
  if (!control_) return "";
  const mjData* d = sim_->data();
  std::string out;
  char buffer[160];
  if (const PathController* f = control_->follower()) {
    const std::vector<Vec3>& points = f->path().points;
    const size_t k = std::min(f->target(), points.empty() ? size_t{0} : points.size() - 1);
    const int body = control_->controlled_body();
    const double distance =
        points.empty() ? 0 : (BodyPosition(d, body) - points[k]).norm();
    std::snprintf(buffer, sizeof(buffer), "path: point %zu of %zu, %.3f m from it%s", k + 1, points.size(),
                  distance, f->done() ? " (done)" : "");
    out = buffer;
  }
  if (control_->vms()) out += std::string(out.empty() ? "" : "; ") + "vms: vehicle PD + joint PID";
  if (!control_->holds().empty()) {
    double worst = 0;
    for (const Stabilize& h : control_->holds()) worst = std::max({worst, std::abs(h.roll()), std::abs(h.pitch())});
    std::snprintf(buffer, sizeof(buffer), "%zu depth/attitude holds, largest tilt %.1f deg",
                  control_->holds().size(), worst * 180 / M_PI);
    out += std::string(out.empty() ? "" : "; ") + buffer;
  }
  const bool piloted = !axes_.isZero(0) || depth_hold_.on || heading_hold_.on;
  if (!out.empty() && piloted) out += " (pilot has control)";
  return out;
}

void App::DrawHud(const mjrRect& viewport) {
  if (hud_) {
    HudStatus status;
    status.realtime_factor = realtime_factor_;
    status.speed = speed_;
    status.paused = paused_;
    status.recording = !record_dir_.empty();
    status.depth_hold = depth_hold_.on;
    status.heading_hold = heading_hold_.on;
    constexpr const char* kModes[] = {"follow", "free", "fixed"};
    status.camera = kModes[static_cast<int>(camera_mode_)];
    status.controller = ControllerStatus();
    std::string titles, values;
    HudText(sim_->model(), sim_->data(), vehicle_, status, &titles, &values);
    mjr_overlay(mjFONT_NORMAL, mjGRID_TOPLEFT, viewport, titles.c_str(), values.c_str(), &con_);
  }
  if (help_) {
    std::string keys, descriptions;
    HelpText(&keys, &descriptions);
    mjr_overlay(mjFONT_NORMAL, mjGRID_TOPRIGHT, viewport, keys.c_str(), descriptions.c_str(), &con_);
  } else if (!options_.headless) {
    mjr_overlay(mjFONT_NORMAL, mjGRID_TOPRIGHT, viewport, "H", "help", &con_);
  }
  if (!message_.empty()) {
    mjr_overlay(mjFONT_NORMAL, mjGRID_BOTTOMLEFT, viewport, message_.c_str(), nullptr, &con_);
  }
  if (plots_on_ && vehicle_ >= 0) {
    // a figure needs about 160 px for its title, axis labels and three readable y ticks
    const int w = std::min(viewport.width / 2, std::max(viewport.width / 4, 220));
    const int h = std::min(viewport.height / 2, std::max(viewport.height / 4, 160));
    mjr_figure({viewport.width - w, h, w, h}, plots_.depth(), &con_);
    mjr_figure({viewport.width - w, 0, w, h}, plots_.speed(), &con_);
  }
}

}  // namespace nereid::viewer
