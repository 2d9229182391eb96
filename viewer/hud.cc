// Copyright Nereid authors.
#include "hud.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "control.h"
#include "nereid/kinematics.h"

namespace nereid::viewer {
namespace {

std::string Format(const char* format, double a, double b = 0) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, a, b);
  return buffer;
}

void InitFigure(mjvFigure* figure, const char* title, const char* unit) {
  mjv_defaultFigure(figure);
  std::snprintf(figure->title, sizeof(figure->title), "%s", title);
  std::snprintf(figure->xlabel, sizeof(figure->xlabel), "time (s)");
  // tick labels with a decimal: MuJoCo's default "%.0f" reads "0 0 1" over the first second
  std::snprintf(figure->xformat, sizeof(figure->xformat), "%%.1f");
  std::snprintf(figure->yformat, sizeof(figure->yformat), "%%.2f");
  std::snprintf(figure->linename[0], sizeof(figure->linename[0]), "%s", unit);
  figure->flg_extend = 1;
  figure->flg_legend = 0;
  figure->gridsize[0] = 3;
  figure->gridsize[1] = 3;
  figure->figurergba[3] = 0.5f;
  figure->linergb[0][0] = 1.0f;
  figure->linergb[0][1] = 0.6f;
  figure->linergb[0][2] = 0.2f;
}

}  // namespace

void HudText(const mjModel* m, const mjData* d, int vehicle, const HudStatus& status,
             std::string* titles, std::string* values) {
  titles->clear();
  values->clear();
  auto line = [&](const std::string& title, const std::string& value) {
    *titles += title + "\n";
    *values += value + "\n";
  };
  line("time", Format("%.2f s", d->time) + (status.paused ? "  (paused)" : ""));
  line("real time", Format("%.2fx (speed %gx)", status.realtime_factor, status.speed));
  if (vehicle >= 0) {
    const double depth = -d->xpos[3 * vehicle + 2];
    line("depth", Format("%.2f m", depth));
    line("heading", Format("%.1f deg", Heading(d->xmat + 9 * vehicle) * 180 / M_PI));
    const Vec6 nu = BodyVelocity(m, d, vehicle);
    line("speed", Format("%.2f m/s", nu.head<3>().norm()));
    std::string holds = status.depth_hold ? "depth" : "";
    if (status.heading_hold) holds += holds.empty() ? "heading" : " + heading";
    line("hold", holds.empty() ? "off" : holds);
  }
  if (!status.controller.empty()) line("controller", status.controller);
  line("camera", status.camera);
  if (status.recording) line("recording", "on");
  for (int a = 0; a < static_cast<int>(m->nactuator); ++a) {
    if (m->actuator_trntype[a] != mjTRN_SITE || m->actuator_ctrlnum[a] != 1) continue;
    const char* name = mj_id2name(m, mjOBJ_ACTUATOR, a);
    line(name ? name : "actuator " + std::to_string(a),
         Format("cmd %+.2f  thrust %+.1f N", d->ctrl[m->actuator_ctrladr[a]], d->actuator_force[m->actuator_outadr[a]]));
  }
  titles->pop_back();
  values->pop_back();
}

Plots::Plots() : depth_(std::make_unique<mjvFigure>()), speed_(std::make_unique<mjvFigure>()) {
  InitFigure(depth_.get(), "depth (m)", "depth");
  InitFigure(speed_.get(), "speed (m/s)", "speed");
}

void Plots::Push(double time, double depth, double speed) {
  PushPoint(depth_.get(), static_cast<float>(time), static_cast<float>(depth), kPoints);
  PushPoint(speed_.get(), static_cast<float>(time), static_cast<float>(speed), kPoints);
}

void Plots::Clear() {
  depth_->linepnt[0] = 0;
  speed_->linepnt[0] = 0;
}

void PushPoint(mjvFigure* figure, float x, float y, int capacity) {
  capacity = std::clamp(capacity, 1, mjMAXLINEPNT);
  int& n = figure->linepnt[0];
  float* data = figure->linedata[0];
  if (n >= capacity) {
    std::memmove(data, data + 2, sizeof(float) * 2 * (capacity - 1));
    n = capacity - 1;
  }
  data[2 * n] = x;
  data[2 * n + 1] = y;
  ++n;
}

}  // namespace nereid::viewer
