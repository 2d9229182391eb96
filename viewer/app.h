// Copyright Nereid authors.
// nereid-view's application: loads a model or scenario into nereid::Simulation, steps it
// in real time (or a fixed number of frames, headless), and renders it with MuJoCo's
// mjv/mjr into a GLFW window (or an invisible window's offscreen buffer). The viewer
// only reads the simulation's state; its sole inputs are d->xfrc_applied on the vehicle
// (teleoperation and holds) and, for scenarios, the scenario's own controls and wrenches.
#ifndef NEREID_VIEWER_APP_H_
#define NEREID_VIEWER_APP_H_

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "control.h"
#include "hud.h"
#include "image.h"
#include "nereid/allocation.h"
#include "nereid/runner.h"
#include "nereid/scenario.h"
#include "nereid/simulation.h"
#include "options.h"
#include "overlays.h"
#include "scenery.h"
#include "teleop.h"

struct GLFWwindow;

namespace nereid::viewer {

class App final {
 public:
  // Loads the input (throws nereid::Error, as `nereid run` does) and opens the window
  // (throws nereid::Error when no display is available).
  explicit App(const ViewerOptions& options);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Exit status: 0, or 3 when the state diverged (headless).
  int RunInteractive();
  int RunHeadless();

 private:
  enum class CameraMode { kFollow, kFree, kFixed };

  // app.cc: loading and resetting
  void Load();
  void Reset();

  // app_window.cc: the window, MuJoCo's rendering context and the camera
  void OpenWindow();
  void SetCamera(CameraMode mode);

  // app_input.cc
  // teleoperation from held keys and the first gamepad
  void PollTeleoperation();
  // false when the scenario has ended (its path is complete): do not step
  bool ApplyInputs();
  void OnKey(int key);
  static void KeyCallback(GLFWwindow* window, int key, int scancode, int action, int mods);
  static void MouseButtonCallback(GLFWwindow* window, int button, int action, int mods);
  static void CursorCallback(GLFWwindow* window, double x, double y);
  static void ScrollCallback(GLFWwindow* window, double dx, double dy);

  // app_stepping.cc
  void Advance(double sim_seconds, double wall_budget);
  // headless: steps until `target` steps since the start (or a pause)
  void AdvanceSteps(long target);
  void PushPlots();
  bool StepOnce();

  // app_render.cc
  void Render(int width, int height);
  void DrawHud(const mjrRect& viewport);
  // the HUD's "controller" line: the scenario's path controller (its reference point and
  // the vehicle's distance to it), vms controller and holds, or empty
  std::string ControllerStatus() const;

  // app_capture.cc
  Image ReadPixels(int width, int height) const;
  void TakeScreenshot();  // the window's image into nereid-view-<date>-<time>.png
  // each returns "" or the error (also shown as message_); RecordFrame stops on an error
  std::string StartRecording();
  std::string StopRecording();  // encodes the video
  std::string RecordFrame(int width, int height);
  std::string WriteImage(const std::string& path, const Image& image, int level = 6);

  // app_headless.cc: --report (throws OutputError)
  void WriteReport(int width, int height) const;

  ViewerOptions options_;
  std::optional<Scenario> scenario_;
  std::unique_ptr<Simulation> sim_;
  // the scenario's controls, wrenches and controllers, as `nereid run` applies them
  std::unique_ptr<ScenarioControl> control_;
  int vehicle_ = -1;
  std::vector<int> group_;  // the vehicle and the bodies welded to it (follow camera framing)
  ThrusterSet thrusters_;  // the vehicle's thrusters (teleoperation allocates to them)

  // rendering
  GLFWwindow* window_ = nullptr;
  mjvScene scn_;
  mjrContext con_;
  mjvCamera cam_;
  mjvOption opt_;
  CameraMode camera_mode_ = CameraMode::kFollow;
  int fixed_camera_ = 0;
  OverlaySet overlays_;
  ArrowScales scales_;
  Scenery scenery_;  // the water surface, the scenario's wall, the seabed
  bool underwater_ = true, scenery_on_ = true, hud_ = true, plots_on_ = true, help_ = false;
  Plots plots_;
  std::string message_;  // shown until the next key press (errors, file names)

  // stepping
  bool paused_ = false;
  double speed_ = 1;
  double realtime_factor_ = 0;
  double sim_target_ = 0;  // simulated time the stepping loop is catching up to
  bool diverged_ = false;
  long steps_ = 0;  // headless: steps taken
  std::deque<Vec3> trail_;  // the vehicle's recent positions (path overlay), one per frame

  // teleoperation
  Axes axes_ = Axes::Zero();
  TeleopLimits limits_;
  Hold depth_hold_, heading_hold_;
  PdGains depth_gains_, heading_gains_;
  bool gamepad_buttons_[2] = {false, false};  // last A, B state, for edge detection

  // mouse
  bool button_left_ = false, button_right_ = false, button_middle_ = false;
  double cursor_x_ = 0, cursor_y_ = 0;

  // recording
  std::string record_dir_;
  int record_frames_ = 0;
  double record_start_ = 0;
};

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_APP_H_
