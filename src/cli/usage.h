// Copyright Nereid authors.
// What the command-line parsers (cli/arguments.h) throw, in a header of its own: the
// viewer's sources catch these without parsing CLI11 (about 7 s of compile time a source).
#ifndef NEREID_SRC_CLI_USAGE_H_
#define NEREID_SRC_CLI_USAGE_H_

#include <string>

namespace nereid::cli {

// A command-line mistake: exit status 2, with the program's usage text.
struct Usage {
  std::string message;
};

// --help or -h: the program prints its usage text and exits 0.
struct Help {};

}  // namespace nereid::cli

#endif  // NEREID_SRC_CLI_USAGE_H_
