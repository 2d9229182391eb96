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

// `text` with each NUL character written as "\0". what() is a C string: a NUL quoted in a
// message (e.g. from a path read from JSON or given from Python) would end the message
// there, and one at its start left it empty.
inline std::string ShowNul(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  return out;
}

// What is wrong with a path holding a NUL character at offset `at`: the operating system
// reads a path only up to its first NUL.
inline std::string NulInPathRule(size_t at) {
  return "the path contains a NUL character (at offset " + std::to_string(at) + "), which no file name can hold";
}

// Base class of every error Nereid reports to its users (NUL characters shown as "\0").
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(ShowNul(message)) {}
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

// Throws ConfigError naming `path` when it holds a NUL character (NulInPathRule).
inline void CheckNoNul(std::string_view path) {
  const size_t at = path.find('\0');
  if (at != std::string_view::npos) throw ConfigError(Excerpt(ShowNul(path)) + ": " + NulInPathRule(at));
}

}  // namespace nereid

#endif  // NEREID_ERROR_H_
