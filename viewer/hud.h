// Copyright Nereid authors.
// The heads-up display: a two-column text block (mjr_overlay) and live plots (mjr_figure).
// Everything here is formatting and bookkeeping; drawing happens in app_render.cc.
#ifndef NEREID_VIEWER_HUD_H_
#define NEREID_VIEWER_HUD_H_

#include <memory>
#include <string>

#include <mujoco/mujoco.h>

namespace nereid::viewer {

// What the viewer knows beyond mjData.
struct HudStatus {
  double realtime_factor = 0;  // measured: simulated s per wall-clock s
  double speed = 1;            // requested: 1 real time, <1 slow motion, >1 fast forward
  bool paused = false;
  bool recording = false;
  bool depth_hold = false, heading_hold = false;
  const char* camera = "";
  std::string controller;  // the scenario's active controller and its error, or empty
};

// HUD lines for the vehicle body: time, real-time factor, depth (= -z), heading (deg,
// from world x towards y), speed (|v| of the body origin), holds, then per actuator
// whose transmission is a site: ctrl and actuator_force.
void HudText(const mjModel* m, const mjData* d, int vehicle, const HudStatus& status,
             std::string* titles, std::string* values);

// Rolling plots of depth and speed against time (one figure each).
class Plots final {
 public:
  static constexpr int kPoints = 500;
  Plots();
  void Push(double time, double depth, double speed);
  void Clear();
  mjvFigure* depth() { return depth_.get(); }
  mjvFigure* speed() { return speed_.get(); }

 private:
  std::unique_ptr<mjvFigure> depth_, speed_;  // large structs: on the heap
};

// Appends (x, y) to line 0 of a figure, dropping the oldest point beyond `capacity`.
void PushPoint(mjvFigure* figure, float x, float y, int capacity);

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_HUD_H_
