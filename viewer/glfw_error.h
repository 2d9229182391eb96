// Copyright Nereid authors.
// GLFW's failures as Nereid's messages: what failed, what the error code means for the
// user, then GLFW's own text as a detail. app_window.cc installs the error callback.
#ifndef NEREID_VIEWER_GLFW_ERROR_H_
#define NEREID_VIEWER_GLFW_ERROR_H_

#include <string>

namespace nereid::viewer {

// What a GLFW error code means, in the user's terms ("" for a code GLFW 3.3 does not define).
std::string GlfwErrorMeaning(int code);

// The message for a GLFW failure: "WHAT: MEANING (GLFW error 0xCODE: DESCRIPTION)"; without
// a recorded error (code 0), "WHAT: GLFW gave no reason".
std::string GlfwFailure(const std::string& what, int code, const std::string& description);

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_GLFW_ERROR_H_
