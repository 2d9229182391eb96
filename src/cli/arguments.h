// Copyright Nereid authors.
// Command-line argument helpers shared by `nereid` and `nereid-view`.
#ifndef NEREID_SRC_CLI_ARGUMENTS_H_
#define NEREID_SRC_CLI_ARGUMENTS_H_

#include <cstdlib>
#include <string>

namespace nereid::cli {

// A command-line mistake: exit status 2, with the program's usage text.
struct Usage {
  std::string message;
};

inline double ParseDouble(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') throw Usage{flag + " expects a number, got '" + text + "'"};
  return x;
}

inline long ParseLong(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const long x = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') throw Usage{flag + " expects an integer, got '" + text + "'"};
  return x;
}

}  // namespace nereid::cli

#endif  // NEREID_SRC_CLI_ARGUMENTS_H_
