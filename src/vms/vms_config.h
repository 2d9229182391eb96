// Copyright Nereid authors.
// Reads a scenario's {"type": "vms"} controller block (docs/vms.md) into a
// VmsControllerSpec. Internal to libnereid (scenario.cc calls it).
#ifndef NEREID_SRC_VMS_VMS_CONFIG_H_
#define NEREID_SRC_VMS_VMS_CONFIG_H_

#include <string>

#include <nlohmann/json.hpp>

#include "nereid/vms.h"

namespace nereid {

// True when the controller block asks for the "vms" type.
bool IsVmsController(const nlohmann::json& block);
// Throws ConfigError "<source>: <json path>: <rule> (got <value>)".
VmsControllerSpec ReadVmsController(const nlohmann::json& block, const std::string& source,
                                    const std::string& path);

}  // namespace nereid

#endif  // NEREID_SRC_VMS_VMS_CONFIG_H_
