// Copyright Nereid authors.
// `nereid crosscheck SCENARIO.json [--out DIR] [--no-plots]`: one multi-vehicle scenario
// run (a) with UK constraints, (b) with MuJoCo weld equality constraints and (c) as one
// merged rigid body (docs/crosscheck.md).
#ifndef NEREID_SRC_CLI_CROSSCHECK_H_
#define NEREID_SRC_CLI_CROSSCHECK_H_

#include <string>
#include <vector>

namespace nereid::cli {

// Returns the exit status (0 success). Throws nereid::Error for bad input and
// std::invalid_argument for bad usage.
int Crosscheck(const std::vector<std::string>& args);

}  // namespace nereid::cli

#endif  // NEREID_SRC_CLI_CROSSCHECK_H_
