// Copyright Nereid authors.
// MuJoCo's fatal errors and warnings, routed through Nereid wherever Nereid drives MuJoCo.
//
// MuJoCo reports a fatal error (mju_error: e.g. its stack arena overflows because a model
// asks for <size memory="8K"/>) by calling the active log handler, and ends the process if
// the handler returns. Warnings go to stdout and MUJOCO_LOG.TXT in the working directory.
// Nereid installs one process-wide log handler (mju_setLogHandler, once) that, while a
// CallMuJoCo is running on the calling thread, turns an error into a return to that call
// (longjmp, as MuJoCo's own Python bindings do) and keeps warnings in a MuJoCoWarnings;
// outside such a call it forwards to the handler that was active before, so a process
// that uses MuJoCo without Nereid sees no change.
#ifndef NEREID_MUJOCO_LOG_H_
#define NEREID_MUJOCO_LOG_H_

#include <exception>
#include <string>
#include <type_traits>
#include <vector>

namespace nereid {

// Warnings MuJoCo raised during Nereid's calls for one simulation: counted and kept (the
// first kKept messages), never printed. Written to summary.json by `nereid run`.
class MuJoCoWarnings {
 public:
  static constexpr int kKept = 20;
  void Add(const char* message);
  // another collection's warnings after these: its count, and its messages while room is left
  void Add(const MuJoCoWarnings& other);
  long count() const { return count_; }
  const std::vector<std::string>& messages() const { return messages_; }
  // the first of MuJoCo's warnings that a state went bad (a NaN, Inf or huge qpos, qvel or
  // qacc: mjWARN_BADQPOS, _BADQVEL, _BADQACC), kept even past kKept; empty if none came
  const std::string& first_bad_state() const { return first_bad_state_; }
  void Clear() {
    count_ = 0;
    messages_.clear();
    first_bad_state_.clear();
  }

 private:
  long count_ = 0;
  std::vector<std::string> messages_;
  std::string first_bad_state_;
};

// Installs Nereid's MuJoCo log handler (idempotent; CallMuJoCo does it too).
void InstallMuJoCoLogHandler();

namespace detail {
// Runs fn(arg) with MuJoCo's errors and warnings routed to this call; false if MuJoCo
// raised a fatal error, whose message is then in *error. fn must not throw.
bool RunMuJoCo(void (*fn)(void*), void* arg, MuJoCoWarnings* warnings, std::string* error);
}  // namespace detail

// Runs `f` (code that calls MuJoCo) so that a MuJoCo fatal error inside it returns false,
// with MuJoCo's message in *error, instead of ending the process; warnings go to
// `warnings` (dropped if null). An error leaves `f` by longjmp: `f` must hold no automatic
// object with a non-trivial destructor across a MuJoCo call, and the mjData it worked on
// must be reset (mj_resetData) before it is used again. Exceptions from `f` pass through.
template <class F>
bool CallMuJoCo(F&& f, MuJoCoWarnings* warnings, std::string* error) {
  struct Box {
    std::remove_reference_t<F>* f;
    std::exception_ptr exception;
  } box{&f, nullptr};
  const bool ok = detail::RunMuJoCo(
      [](void* p) {
        Box* b = static_cast<Box*>(p);
        try {
          (*b->f)();
        } catch (...) {
          b->exception = std::current_exception();
        }
      },
      &box, warnings, error);
  if (box.exception) std::rethrow_exception(box.exception);
  return ok;
}

}  // namespace nereid

#endif  // NEREID_MUJOCO_LOG_H_
