// Copyright Nereid authors.
// `nereid coefficients MESH|MODEL.xml ...`: added mass (Capytaine boundary elements),
// volume, centre of buoyancy and a first drag guess from a vehicle's geometry, by
// tools/coefficients.py (docs/own_vehicle.md, part 1).
#ifndef NEREID_SRC_CLI_COEFFICIENTS_H_
#define NEREID_SRC_CLI_COEFFICIENTS_H_

#include <string>
#include <vector>

namespace nereid::cli {

// Returns the exit status: 0 success, 1 bad input (the script has printed the file and the
// problem on stderr). Throws Usage for bad usage and nereid::Error when the script cannot run.
int Coefficients(const std::vector<std::string>& args);

}  // namespace nereid::cli

#endif  // NEREID_SRC_CLI_COEFFICIENTS_H_
