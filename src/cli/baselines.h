// Copyright Nereid authors.
// `nereid baselines`: the baseline policies of an RL task, scored on the same episodes.
#ifndef NEREID_SRC_CLI_BASELINES_H_
#define NEREID_SRC_CLI_BASELINES_H_

#include <string>
#include <vector>

namespace nereid::cli {

// Parses the command's arguments and runs it; throws Usage or nereid::Error.
int Baselines(const std::vector<std::string>& args, const std::string& model_dir);

}  // namespace nereid::cli

#endif  // NEREID_SRC_CLI_BASELINES_H_
