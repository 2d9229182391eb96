// Copyright Nereid authors.
// Where Nereid finds its shipped files.
#ifndef NEREID_PATHS_H_
#define NEREID_PATHS_H_

#include <string>

namespace nereid {

// The folder of the shipped models, by one rule for the CLI, the RL tasks and Python:
// $NEREID_MODEL_DIR; else this build's source tree models/ while it exists; else the copy
// installed beside libnereid: <libdir>/../share/nereid/models (cmake --install) or
// <libdir>/models (the Python package). The source tree's path when none exists.
std::string DefaultModelDir();

}  // namespace nereid

#endif  // NEREID_PATHS_H_
