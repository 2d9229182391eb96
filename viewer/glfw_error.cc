// Copyright Nereid authors.
#include "glfw_error.h"

#include <GLFW/glfw3.h>

#include <cstdio>

namespace nereid::viewer {

std::string GlfwErrorMeaning(int code) {
  switch (code) {
    case GLFW_NOT_INITIALIZED: return "GLFW was used before it was initialised (a bug in nereid-view)";
    case GLFW_NO_CURRENT_CONTEXT: return "no OpenGL context was current (a bug in nereid-view)";
    case GLFW_INVALID_ENUM: return "nereid-view asked GLFW for something it does not know (a bug in nereid-view)";
    case GLFW_INVALID_VALUE: return "GLFW refused a value nereid-view passed (a bug in nereid-view)";
    case GLFW_OUT_OF_MEMORY: return "out of memory";
    case GLFW_API_UNAVAILABLE: return "no OpenGL driver is available (on Debian: libgl1-mesa-dri)";
    case GLFW_VERSION_UNAVAILABLE: return "the OpenGL driver does not offer the OpenGL version needed";
    case GLFW_PLATFORM_ERROR:
      return "the window system failed (is a display there? set DISPLAY, or run under xvfb-run -a)";
    case GLFW_FORMAT_UNAVAILABLE: return "the display offers no pixel format with the samples and depth asked for";
    case GLFW_NO_WINDOW_CONTEXT: return "the window has no OpenGL context";
    default: return "";
  }
}

std::string GlfwFailure(const std::string& what, int code, const std::string& description) {
  if (code == 0) return what + ": GLFW gave no reason";
  std::string meaning = GlfwErrorMeaning(code);
  if (meaning.empty()) meaning = "GLFW failed";
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%08X", static_cast<unsigned>(code));
  return what + ": " + meaning + " (GLFW error " + hex + (description.empty() ? "" : ": " + description) + ")";
}

}  // namespace nereid::viewer
