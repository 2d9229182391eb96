// Copyright Nereid authors.
// nereid-view's window: GLFW, its errors as Nereid errors, MuJoCo's OpenGL rendering
// context (offscreen when headless), the camera modes, and closing it all.
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "app.h"
#include "glfw_error.h"
#include "nereid/error.h"
#include "nereid/mujoco_log.h"

namespace nereid::viewer {
namespace {

constexpr int kMaxGeom = 12000;  // a sea's surface takes 4608 (scenery.h)

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

}  // namespace nereid::viewer
