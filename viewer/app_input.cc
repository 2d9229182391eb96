// Copyright Nereid authors.
// nereid-view's input: keys (the actions of keys.h), the mouse moving the camera, held keys
// and the gamepad as teleoperation, and the pilot's wrench and holds applied to the
// vehicle before each step (through its thrusters when it has them).
#include <GLFW/glfw3.h>

#include <algorithm>

#include "app.h"
#include "keys.h"
#include "nereid/allocation.h"
#include "nereid/kinematics.h"

namespace nereid::viewer {
namespace {

App* Self(GLFWwindow* window) { return static_cast<App*>(glfwGetWindowUserPointer(window)); }

}  // namespace

bool App::ApplyInputs() {
  mjData* d = sim_->data();
  if (vehicle_ >= 0) mju_zero(d->xfrc_applied + 6 * vehicle_, 6);
  if (control_ && !control_->BeforeStep()) {
    // `nereid run` ends here: the path controller reached its last point
    paused_ = true;
    message_ = "the path is complete (Backspace restarts)";
    return false;
  }
  if (vehicle_ < 0) return true;

  // a hold turns its axis into a setpoint rate: 0.5 m/s and 0.5 rad/s at full deflection
  const double dt = sim_->model()->opt.timestep;
  Axes axes = axes_;
  if (depth_hold_.on) {
    depth_hold_.Nudge(axes[kHeave], 0.5, dt);
    axes[kHeave] = 0;
  }
  if (heading_hold_.on) {
    heading_hold_.Nudge(axes[kYaw], 0.5, dt);
    axes[kYaw] = 0;
  }
  const Vec6 body = BodyWrench(axes, limits_);
  const Mat3 R = BodyRotation(d, vehicle_);
  const Vec6 nu = BodyVelocity(sim_->model(), d, vehicle_);
  const HoldOutput hold =
      HoldWrench(depth_hold_, depth_gains_, heading_hold_, heading_gains_, d->xpos[3 * vehicle_ + 2],
                 (R * nu.head<3>()).z(), Heading(d->xmat + 9 * vehicle_), (R * nu.tail<3>()).z());
  const Vec3 force = R * body.head<3>() + Vec3(0, 0, hold.heave_force);
  const Vec3 moment = R * body.tail<3>() + Vec3(0, 0, hold.yaw_moment);
  const bool piloted = !body.isZero(0) || depth_hold_.on || heading_hold_.on;
  if (piloted && !thrusters_.actuators.empty()) {
    // a vehicle with thrusters is flown through them: the wrench (body frame, about the
    // body origin) is allocated within the thrusters' reachable thrust
    Vec6 tau;
    tau << R.transpose() * force, R.transpose() * moment;
    thrusters_.SetCommands(sim_->model(), d,
                           Allocate(thrusters_.B, tau, thrusters_.thrust_min, thrusters_.thrust_max));
    return true;
  }
  if (!piloted) return true;  // leave the scenario's commands alone
  for (int k = 0; k < 3; ++k) {
    d->xfrc_applied[6 * vehicle_ + k] += force[k];
    d->xfrc_applied[6 * vehicle_ + 3 + k] += moment[k];
  }
  return true;
}

void App::OnKey(int key) {
  const Action action = ActionForKey(key);
  if (action != Action::kNone) message_.clear();
  const mjData* d = sim_->data();
  switch (action) {
    case Action::kNone: break;
    case Action::kQuit: glfwSetWindowShouldClose(window_, GLFW_TRUE); break;
    case Action::kHelp: help_ = !help_; break;
    case Action::kPause: paused_ = !paused_ || diverged_; break;
    case Action::kStep:
      if (paused_ && !diverged_) StepOnce();
      break;
    case Action::kReset: Reset(); paused_ = false; break;
    case Action::kSlower: speed_ = std::max(speed_ / 2, 1.0 / 64); break;
    case Action::kFaster: speed_ = std::min(speed_ * 2, 64.0); break;
    case Action::kCamera: {
      const int next = (static_cast<int>(camera_mode_) + 1) % 3;
      if (camera_mode_ == CameraMode::kFixed && ++fixed_camera_ < sim_->model()->ncam) {
        SetCamera(CameraMode::kFixed);  // next fixed camera first
      } else {
        if (camera_mode_ == CameraMode::kFixed) fixed_camera_ = 0;
        SetCamera(static_cast<CameraMode>(next));
      }
      break;
    }
    case Action::kScreenshot: TakeScreenshot(); break;
    case Action::kRecord:
      if (record_dir_.empty()) {
        StartRecording();  // an error is shown on screen
      } else {
        StopRecording();
      }
      break;
    case Action::kHud: hud_ = !hud_; break;
    case Action::kPlots: plots_on_ = !plots_on_; break;
    case Action::kUnderwater: underwater_ = !underwater_; break;
    case Action::kScenery: scenery_on_ = !scenery_on_; break;
    case Action::kArrowsShorter: scales_ = scales_.Times(0.5); break;
    case Action::kArrowsLonger: scales_ = scales_.Times(2); break;
    case Action::kDepthHold:
      if (depth_hold_.on) depth_hold_.on = false;
      else if (vehicle_ >= 0) depth_hold_.Engage(d->xpos[3 * vehicle_ + 2]);
      break;
    case Action::kHeadingHold:
      if (heading_hold_.on) heading_hold_.on = false;
      else if (vehicle_ >= 0) heading_hold_.Engage(Heading(d->xmat + 9 * vehicle_));
      break;
    case Action::kToggleOverlay:
      for (const OverlayInfo& o : Overlays()) {
        if (o.key == key) overlays_.flip(static_cast<size_t>(o.overlay));
      }
      break;
  }
}

// teleoperation: held keys plus the first gamepad
void App::PollTeleoperation() {
  axes_ = AxesFromKeys([this](int key) { return glfwGetKey(window_, key) == GLFW_PRESS; });
  GLFWgamepadstate pad;
  if (glfwJoystickIsGamepad(GLFW_JOYSTICK_1) && glfwGetGamepadState(GLFW_JOYSTICK_1, &pad)) {
    axes_ += AxesFromGamepad(pad.axes);
    const bool a = pad.buttons[GLFW_GAMEPAD_BUTTON_A], b = pad.buttons[GLFW_GAMEPAD_BUTTON_B];
    if (a && !gamepad_buttons_[0]) OnKey(GLFW_KEY_Z);  // A: depth hold
    if (b && !gamepad_buttons_[1]) OnKey(GLFW_KEY_X);  // B: heading hold
    gamepad_buttons_[0] = a;
    gamepad_buttons_[1] = b;
  }
}

void App::KeyCallback(GLFWwindow* window, int key, int, int action, int) {
  if (action == GLFW_PRESS || (action == GLFW_REPEAT && key == GLFW_KEY_PERIOD)) Self(window)->OnKey(key);
}

void App::MouseButtonCallback(GLFWwindow* window, int, int, int) {
  App* app = Self(window);
  app->button_left_ = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
  app->button_right_ = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS;
  app->button_middle_ = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS;
  glfwGetCursorPos(window, &app->cursor_x_, &app->cursor_y_);
}

void App::CursorCallback(GLFWwindow* window, double x, double y) {
  App* app = Self(window);
  const double dx = x - app->cursor_x_, dy = y - app->cursor_y_;
  app->cursor_x_ = x;
  app->cursor_y_ = y;
  if (app->camera_mode_ == CameraMode::kFixed) return;
  int width, height;
  glfwGetWindowSize(window, &width, &height);
  if (height <= 0) return;
  // left: rotate, right: move, middle: zoom (shift: horizontal variants), as in simulate
  const bool shift = glfwGetKey(window, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS;
  int action;
  if (app->button_right_) action = shift ? mjMOUSE_MOVE_H : mjMOUSE_MOVE_V;
  else if (app->button_left_) action = shift ? mjMOUSE_ROTATE_H : mjMOUSE_ROTATE_V;
  else if (app->button_middle_) action = mjMOUSE_ZOOM;
  else return;
  mjv_moveCamera(app->sim_->model(), action, dx / height, dy / height, &app->cam_);
}

void App::ScrollCallback(GLFWwindow* window, double, double dy) {
  App* app = Self(window);
  if (app->camera_mode_ == CameraMode::kFixed) return;
  mjv_moveCamera(app->sim_->model(), mjMOUSE_ZOOM, 0, -0.05 * dy, &app->cam_);
}

}  // namespace nereid::viewer
