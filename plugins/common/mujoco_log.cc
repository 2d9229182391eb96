// Copyright Nereid authors.
#include "nereid/mujoco_log.h"

#include <csetjmp>
#include <cstring>

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

}  // namespace

void MuJoCoWarnings::Add(const char* message) {
  ++count_;
  if (messages_.size() < static_cast<size_t>(kKept)) messages_.emplace_back(message);
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
