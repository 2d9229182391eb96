// Copyright Nereid authors.
#include "nereid/mujoco_log.h"

#include <csetjmp>
#include <cstring>
#include <string>

#include <mujoco/mujoco.h>

namespace nereid {
namespace {

// One CallMuJoCo in progress on this thread (they nest: innermost first).
struct Call {
  std::jmp_buf jump;
  char error[1024];
  MuJoCoWarnings* warnings;
  Call* outer;
};

thread_local Call* t_call = nullptr;
mjfLogHandler g_previous = nullptr;  // the handler active before Nereid's (never null)

void LogHandler(const mjLogMessage* message) {
  Call* call = t_call;
  if (!call) {  // not inside a Nereid call: as before Nereid was loaded
    g_previous(message);
    return;
  }
  if (message->level == mjLOG_ERROR) {
    std::strncpy(call->error, message->subject, sizeof(call->error) - 1);
    call->error[sizeof(call->error) - 1] = '\0';
    std::longjmp(call->jump, 1);
  }
  if (message->level == mjLOG_WARNING && call->warnings) call->warnings->Add(message->subject);
  // info and debug messages (opt-in topics) are dropped inside Nereid's calls
}

// MuJoCo's warning that a state went bad: its text (mju_warningText) up to the dof index
bool IsBadStateWarning(const char* message) {
  for (const int kind : {mjWARN_BADQACC, mjWARN_BADQVEL, mjWARN_BADQPOS}) {
    const std::string text = mju_warningText(kind, 0);
    const size_t index = text.rfind('0');
    if (index != std::string::npos && std::strncmp(message, text.c_str(), index) == 0) return true;
  }
  return false;
}

}  // namespace

void MuJoCoWarnings::Add(const char* message) {
  ++count_;
  if (messages_.size() < static_cast<size_t>(kKept)) messages_.emplace_back(message);
  if (first_bad_state_.empty() && IsBadStateWarning(message)) first_bad_state_ = message;
}

void MuJoCoWarnings::Add(const MuJoCoWarnings& other) {
  for (const std::string& message : other.messages_) {
    if (messages_.size() < static_cast<size_t>(kKept)) messages_.push_back(message);
  }
  count_ += other.count_;
  if (first_bad_state_.empty()) first_bad_state_ = other.first_bad_state_;
}

void InstallMuJoCoLogHandler() {
  // a function-local static: once per process, and afterwards one load per call (every
  // Nereid step comes here; std::call_once would also touch two thread-locals)
  static const bool installed = [] {
    g_previous = mju_setLogHandler(&LogHandler);
    return true;
  }();
  (void)installed;
}

namespace detail {

bool RunMuJoCo(void (*fn)(void*), void* arg, MuJoCoWarnings* warnings, std::string* error) {
  InstallMuJoCoLogHandler();
  // no object with a destructor lives in this frame: the error path returns here by longjmp
  // (the thread-local's address taken once: it is not recomputed after setjmp)
  Call** const current = &t_call;
  Call call;
  call.error[0] = '\0';
  call.warnings = warnings;
  call.outer = *current;
  *current = &call;
  if (setjmp(call.jump) == 0) {
    fn(arg);
    *current = call.outer;
    return true;
  }
  *current = call.outer;
  if (error) *error = call.error;
  return false;
}

}  // namespace detail
}  // namespace nereid
