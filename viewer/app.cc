// Copyright Nereid authors.
#include "app.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "glfw_error.h"
#include "keys.h"
#include "nereid/allocation.h"
#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/mujoco_log.h"
#include "nereid/output.h"
#include "nereid/runner.h"
#include "recording.h"

namespace nereid::viewer {
namespace {

constexpr double kHeadlessFrame = 1.0 / 60;  // simulated seconds per headless frame
constexpr int kMaxGeom = 4000;

std::string Timestamp() {
  const std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y%m%d-%H%M%S", std::localtime(&now));
  return buffer;
}

// The last GLFW error (GLFW reports errors to this callback only), for the message when a
// GLFW call fails. After the window is open, a new error is printed once as a warning.
struct GlfwError {
  int code = 0;
  std::string description;
};
GlfwError g_glfw_error;
bool g_glfw_warn = false;  // the window is open: errors are warnings on stderr

void OnGlfwError(int code, const char* description) {
  const GlfwError error{code, description ? description : ""};
  const bool repeated = error.code == g_glfw_error.code && error.description == g_glfw_error.description;
  g_glfw_error = error;
  if (g_glfw_warn && !repeated) {
    std::fprintf(stderr, "nereid-view: warning: %s\n",
                 GlfwFailure("the window system reported an error", code, g_glfw_error.description).c_str());
  }
}

// The Nereid error for a failed GLFW call: `what` failed, and why.
Error GlfwCallFailed(const std::string& what) {
  return Error(GlfwFailure(what, g_glfw_error.code, g_glfw_error.description));
}

int FirstFreeBody(const mjModel* m) {
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_type[j] == mjJNT_FREE) return m->jnt_bodyid[j];
  }
  return -1;
}

// The bodies joined to `vehicle` by weld equalities (active or not: a docking target
// belongs in the picture too), `vehicle` first; just `vehicle` when none. Connect
// equalities (a lumped tether's chain) do not count.
std::vector<int> WeldedGroup(const mjModel* m, int vehicle) {
  std::vector<int> group = {vehicle};
  for (size_t k = 0; k < group.size(); ++k) {
    for (int e = 0; e < m->neq; ++e) {
      if (m->eq_type[e] != mjEQ_WELD || m->eq_objtype[e] != mjOBJ_BODY) continue;
      const int a = m->eq_obj1id[e], b = m->eq_obj2id[e];
      const int other = a == group[k] ? b : b == group[k] ? a : -1;
      if (other > 0 && std::find(group.begin(), group.end(), other) == group.end()) group.push_back(other);
    }
  }
  return group;
}

App* Self(GLFWwindow* window) { return static_cast<App*>(glfwGetWindowUserPointer(window)); }

// The current OpenGL context's largest renderbuffer side in pixels, or 0 when unknown.
int LargestImage() {
  constexpr unsigned kMaxRenderbufferSize = 0x84E8;  // GL_MAX_RENDERBUFFER_SIZE (OpenGL 3.0)
  using GetIntegerv = void (*)(unsigned, int*);
  const auto get = reinterpret_cast<GetIntegerv>(glfwGetProcAddress("glGetIntegerv"));
  if (!get) return 0;
  int value = 0;
  get(kMaxRenderbufferSize, &value);
  return value;
}

}  // namespace

App::App(const ViewerOptions& options)
    : options_(options), overlays_(options.overlays), underwater_(options.underwater),
      scenery_on_(options.scenery), hud_(options.hud), plots_on_(options.hud), speed_(options.speed) {
  limits_ = {options.max_force, options.max_moment};
  // --record into a folder that cannot be made or written fails now, not after the run
  if (!options_.record.empty()) {
    const std::string error = PrepareRecording(RecordingFolder(options_.record), !FindFfmpeg().empty());
    if (!error.empty()) throw OutputError("--record " + error);
  }
  Load();
  OpenWindow();
}

App::~App() {
  if (!record_dir_.empty()) StopRecording();  // finish the video
  if (window_) {
    mjv_freeScene(&scn_);
    mjr_freeContext(&con_);
    glfwDestroyWindow(window_);
  }
  g_glfw_warn = false;
  glfwTerminate();
}

// ---- loading ------------------------------------------------------------------------------

void App::Load() {
  // the same inputs, precedence and messages as `nereid run`
  ResolvedInput input = ResolveInput(options_.input, std::nullopt, std::nullopt, std::nullopt, options_.constraints);
  scenario_ = std::move(input.scenario);
  sim_ = Simulation::LoadFile(input.model, input.options);
  const mjModel* m = sim_->model();

  vehicle_ = FirstFreeBody(m);
  if (!options_.body.empty()) {
    vehicle_ = mj_name2id(m, mjOBJ_BODY, options_.body.c_str());
    if (vehicle_ <= 0) throw ConfigError("--body: " + sim_->source() + " has no body '" + options_.body + "'");
  }
  if (vehicle_ >= 0) thrusters_ = FindThrusters(m, vehicle_);
  if (vehicle_ >= 0) group_ = WeldedGroup(m, vehicle_);
  if (vehicle_ >= 0) {
    // PD gains from the vehicle's inertia, added mass included: omega = 1 rad/s
    double heave = m->body_subtreemass[vehicle_], yaw = m->body_inertia[3 * vehicle_ + 2];
    for (const AddedMassBody& a : sim_->added_mass_bodies()) {
      if (a.body == vehicle_) {
        heave += a.added_mass(2, 2);
        yaw += a.added_mass(5, 5);
      }
    }
    depth_gains_ = PdGains::Critical(heave, 1.0, limits_.force);
    heading_gains_ = PdGains::Critical(yaw, 1.0, limits_.moment);
  }
  SetWaterFog(sim_->mutable_model());
  scales_ = ArrowScales::ForModel(m);
  scenery_ = Scenery::For(m, scenario_ ? &*scenario_ : nullptr);
  Reset();
}

void App::Reset() {
  control_.reset();
  if (scenario_) {
    scenario_->Apply(*sim_);
    control_ = std::make_unique<ScenarioControl>(*scenario_, *sim_);
  } else {
    sim_->Reset(sim_->model()->nkey > 0 ? 0 : -1);
  }
  depth_hold_.on = heading_hold_.on = false;
  diverged_ = false;
  sim_target_ = sim_->data()->time;
  plots_.Clear();
  trail_.clear();
}

// ---- window and camera -------------------------------------------------------------------

void App::OpenWindow() {
  glfwSetErrorCallback(&OnGlfwError);
  if (!glfwInit()) {
    // without a display this is a platform error, whose meaning says to use xvfb-run
    const std::string error = GlfwCallFailed("cannot initialise GLFW, the window library").what();
    throw Error(error + (g_glfw_error.code == GLFW_PLATFORM_ERROR
                             ? ""
                             : "; a display is needed: set DISPLAY, or run under xvfb-run -a"));
  }
  glfwWindowHint(GLFW_SAMPLES, 4);
  glfwWindowHint(GLFW_VISIBLE, options_.headless ? GLFW_FALSE : GLFW_TRUE);
  const std::string title = "nereid-view: " + sim_->source();
  const std::string size = std::to_string(options_.width) + " x " + std::to_string(options_.height);
  window_ = glfwCreateWindow(options_.width, options_.height, title.c_str(), nullptr, nullptr);
  if (!window_) {
    throw GlfwCallFailed("cannot open a " + size + " OpenGL window" + (options_.headless ? " (headless)" : ""));
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(1);

  mjModel* m = sim_->mutable_model();
  // the offscreen buffer (headless rendering, screenshots) must hold the whole image: within
  // the driver's largest renderbuffer (llvmpipe's is 16384, --width's and --height's limit)
  const int largest = LargestImage();
  if (largest > 0 && std::max(options_.width, options_.height) > largest) {
    throw Error("a " + size + " image is larger than the OpenGL driver's largest, " + std::to_string(largest) +
                " x " + std::to_string(largest) + " pixels: use smaller --width and --height");
  }
  m->vis.global.offwidth = std::max(m->vis.global.offwidth, options_.width);
  m->vis.global.offheight = std::max(m->vis.global.offheight, options_.height);
  mjv_defaultCamera(&cam_);
  mjv_defaultOption(&opt_);
  mjv_defaultScene(&scn_);
  mjr_defaultContext(&con_);
  mjv_makeScene(m, &scn_, kMaxGeom);
  // MuJoCo's fatal errors here (a framebuffer it cannot allocate) return as Nereid errors
  std::string mujoco_error;
  const int font = options_.headless ? mjFONTSCALE_100 : mjFONTSCALE_150;
  if (!CallMuJoCo([&] { mjr_makeContext(m, &con_, font); }, nullptr, &mujoco_error)) {
    const bool framebuffer = mujoco_error.find("ramebuffer") != std::string::npos;
    throw Error("cannot make MuJoCo's OpenGL rendering context for a " + size + " image: " + mujoco_error +
                (framebuffer ? " (the OpenGL driver cannot hold an offscreen image this large: use smaller "
                               "--width and --height)"
                             : ""));
  }
  if (options_.headless) {
    if (!CallMuJoCo([&] { mjr_setBuffer(mjFB_OFFSCREEN, &con_); }, nullptr, &mujoco_error)) {
      throw Error("cannot use MuJoCo's offscreen buffer for a " + size + " image: " + mujoco_error);
    }
  }
  g_glfw_warn = true;

  CameraMode mode = vehicle_ >= 0 ? CameraMode::kFollow : CameraMode::kFree;
  if (options_.camera == "free") mode = CameraMode::kFree;
  if (options_.camera == "fixed") mode = CameraMode::kFixed;
  SetCamera(mode);

  glfwSetWindowUserPointer(window_, this);
  glfwSetKeyCallback(window_, KeyCallback);
  glfwSetMouseButtonCallback(window_, MouseButtonCallback);
  glfwSetCursorPosCallback(window_, CursorCallback);
  glfwSetScrollCallback(window_, ScrollCallback);
}

void App::SetCamera(CameraMode mode) {
  const mjModel* m = sim_->model();
  if (mode == CameraMode::kFixed && m->ncam == 0) {
    message_ = "the model has no cameras: free camera";
    mode = CameraMode::kFree;
  }
  if (mode == CameraMode::kFollow && vehicle_ < 0) mode = CameraMode::kFree;
  camera_mode_ = mode;
  switch (mode) {
    case CameraMode::kFollow:
      // one vehicle: MuJoCo's tracking camera; an assembly: a free camera that Render
      // points at the assembly's centre of mass every frame, so all of it stays in view
      cam_.type = group_.size() > 1 ? mjCAMERA_FREE : mjCAMERA_TRACKING;
      cam_.trackbodyid = vehicle_;
      cam_.distance = 1.5 * m->stat.extent;
      cam_.azimuth = scenery_.CameraAzimuth(150);
      cam_.elevation = -15;
      break;
    case CameraMode::kFree:
      mjv_defaultFreeCamera(m, &cam_);
      break;
    case CameraMode::kFixed:
      cam_.type = mjCAMERA_FIXED;
      cam_.fixedcamid = static_cast<int>(fixed_camera_ % m->ncam);
      break;
  }
}

// ---- stepping -----------------------------------------------------------------------------

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

// ---- rendering ----------------------------------------------------------------------------

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
  if (scenery_on_) AddScenery(m, scenery_, cam_.lookat, &scn_);
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

Image App::ReadPixels(int width, int height) const {
  std::vector<uint8_t> rgb(3 * static_cast<size_t>(width) * height);
  mjr_readPixels(rgb.data(), nullptr, {0, 0, width, height}, &con_);
  return Image::FromBottomUp(width, height, rgb.data());
}

std::string App::WriteImage(const std::string& path, const Image& image, int level) {
  std::string error;
  return WritePng(path, image, &error, level) ? std::string() : error;
}

// ---- recording ----------------------------------------------------------------------------

std::string App::StartRecording() {
  const std::string dir = RecordingFolder(options_.record.empty() ? "nereid-view-" + Timestamp() : options_.record);
  const std::string error = PrepareRecording(dir, !FindFfmpeg().empty());
  if (!error.empty()) {
    message_ = error;
    return error;
  }
  record_dir_ = dir;
  record_frames_ = 0;
  record_start_ = glfwGetTime();
  message_ = "recording into " + record_dir_;
  return "";
}

std::string App::StopRecording() {
  // the video's frame rate is the rate frames were captured at (60 headless)
  const double seconds = glfwGetTime() - record_start_;
  const double fps = options_.headless || seconds <= 0 ? 60 : record_frames_ / seconds;
  const VideoResult video = EncodeVideo(record_dir_, fps);
  message_ = std::to_string(record_frames_) + " frames in " + record_dir_ + "; " + video.message;
  record_dir_.clear();
  return video.ok ? "" : video.message;
}

std::string App::RecordFrame(int width, int height) {
  char name[32];
  std::snprintf(name, sizeof(name), "frame_%06d.png", record_frames_++);
  const std::string error = WriteImage(record_dir_ + "/" + name, ReadPixels(width, height), 1);
  if (!error.empty()) {
    message_ = error + " (recording stopped)";
    record_dir_.clear();
  }
  return error;
}

// ---- input --------------------------------------------------------------------------------

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
    case Action::kScreenshot: {
      int width, height;
      glfwGetFramebufferSize(window_, &width, &height);
      const std::string path = "nereid-view-" + Timestamp() + ".png";
      const std::string error = WriteImage(path, ReadPixels(width, height));
      message_ = error.empty() ? "wrote " + path : error;
      break;
    }
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

// ---- main loops ---------------------------------------------------------------------------

int App::RunInteractive() {
  double last = glfwGetTime();
  while (!glfwWindowShouldClose(window_)) {
    glfwPollEvents();
    const double now = glfwGetTime();
    const double wall = std::min(now - last, 0.1);  // no catching up after a stall
    last = now;

    // teleoperation: held keys plus the first gamepad
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
  if (!options_.report.empty()) {
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
      report["vehicle"] = mj_id2name(sim_->model(), mjOBJ_BODY, vehicle_);
      const std::optional<Pixel> pixel = Project(scn_.camera[0], width, height, sim_->data()->xpos + 3 * vehicle_);
      if (pixel) report["vehicle_pixel"] = {pixel->x, pixel->y};
    }
    WriteOutputFile(options_.report, report.dump(2) + "\n");  // checked; throws OutputError
  }
  if (!message_.empty()) std::fprintf(stderr, "nereid-view: %s\n", message_.c_str());
  return diverged_ ? 3 : 0;
}

}  // namespace nereid::viewer
