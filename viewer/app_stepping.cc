// Copyright Nereid authors.
// nereid-view's stepping: one step after the inputs (pausing on divergence or the end of
// the scenario's path), catching up with real time or a headless frame's step count, the
// plots and the trail, and the interactive main loop.
#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "app.h"
#include "nereid/error.h"
#include "nereid/kinematics.h"

namespace nereid::viewer {

bool App::StepOnce() {
  if (!ApplyInputs()) return false;
  std::string error;
  try {
    if (sim_->TryStep(&error)) return true;
    error = "diverged: " + error;
  } catch (const MuJoCoError& e) {  // e.g. the arena overflows: the data was reset
    error = e.what();
  }
  // MuJoCo has reset the state; pause and say why instead of stepping on
  paused_ = true;
  diverged_ = true;
  message_ = error + " (Backspace resets)";
  return false;
}

void App::Advance(double sim_seconds, double wall_budget) {
  const mjData* d = sim_->data();
  const double h = sim_->model()->opt.timestep;
  // an absolute target, so that time steps that do not divide the frame do not drift (the
  // last step overshoots the target by less than a step; a larger lag restarts it)
  sim_target_ = std::max(sim_target_, d->time - h) + sim_seconds;
  const auto start = std::chrono::steady_clock::now();
  while (d->time < sim_target_ - 0.5 * h && !paused_) {
    if (!StepOnce()) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > wall_budget) {
      sim_target_ = d->time;  // slower than real time: drop the backlog (the HUD shows it)
      break;
    }
  }
  PushPlots();
}

void App::AdvanceSteps(long target) {
  while (steps_ < target && !paused_) {
    if (!StepOnce()) break;
    ++steps_;
  }
  PushPlots();
}

void App::PushPlots() {
  const mjData* d = sim_->data();
  if (vehicle_ >= 0) {
    constexpr size_t kTrail = 3000;  // frames: 50 s at 60 frames per second
    trail_.emplace_back(d->xpos[3 * vehicle_], d->xpos[3 * vehicle_ + 1], d->xpos[3 * vehicle_ + 2]);
    if (trail_.size() > kTrail) trail_.pop_front();
    const Vec6 nu = BodyVelocity(sim_->model(), d, vehicle_);
    plots_.Push(d->time, -d->xpos[3 * vehicle_ + 2], nu.head<3>().norm());
  }
}

int App::RunInteractive() {
  double last = glfwGetTime();
  while (!glfwWindowShouldClose(window_)) {
    glfwPollEvents();
    const double now = glfwGetTime();
    const double wall = std::min(now - last, 0.1);  // no catching up after a stall
    last = now;

    PollTeleoperation();

    const double before = sim_->data()->time;
    if (!paused_) Advance(wall * speed_, 1.0 / 30);
    const double factor = wall > 0 ? (sim_->data()->time - before) / wall : 0;
    realtime_factor_ = paused_ ? 0 : 0.9 * realtime_factor_ + 0.1 * factor;

    int width, height;
    glfwGetFramebufferSize(window_, &width, &height);
    Render(width, height);
    if (!record_dir_.empty()) RecordFrame(width, height);
    glfwSwapBuffers(window_);
  }
  return 0;
}

}  // namespace nereid::viewer
