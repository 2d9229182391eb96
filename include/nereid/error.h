// Copyright Nereid authors.
// Error types. Every user mistake (a malformed MJCF or scenario, a bad plugin key or value,
// a diverging state) becomes one of these with a message that names the file, element,
// key and value; nothing in Nereid calls mju_error for a user's mistake.
#ifndef NEREID_ERROR_H_
#define NEREID_ERROR_H_

#include <stdexcept>
#include <string>
#include <string_view>

namespace nereid {

// A user's value for an error message, cut to at most `max` (80) characters ("..." marks a cut),
// so that a huge value never becomes a huge message.
inline std::string Excerpt(std::string_view text, size_t max = 80) {
  if (text.size() <= max || max < 4) return std::string(text);
  return std::string(text.substr(0, max - 3)) + "...";
}

// Base class of every error Nereid reports to its users.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// A plugin instance's <config> or a scenario value is missing, malformed or out of range.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// An MJCF file could not be parsed or compiled (MuJoCo's own message is included).
class LoadError : public Error {
 public:
  using Error::Error;
};

// The simulated state stopped being finite (NaN/Inf in qpos, qvel or qacc).
class DivergenceError : public Error {
 public:
  using Error::Error;
};

// MuJoCo raised a fatal error (mju_error) in a call Nereid made, e.g. its stack arena
// overflowed (<size memory>); the message names the model and MuJoCo's reason, and the
// simulation's data was reset (include/nereid/mujoco_log.h).
class MuJoCoError : public Error {
 public:
  using Error::Error;
};

}  // namespace nereid

#endif  // NEREID_ERROR_H_
