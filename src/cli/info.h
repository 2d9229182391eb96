// Copyright Nereid authors.
#ifndef NEREID_SRC_CLI_INFO_H_
#define NEREID_SRC_CLI_INFO_H_

#include <string>

namespace nereid {
// Prints the model's vehicles, marine plugins, thrusters and allocation matrix. Throws
// nereid::Error for a bad model.
int InfoCommand(const std::string& path);
}  // namespace nereid

#endif  // NEREID_SRC_CLI_INFO_H_
