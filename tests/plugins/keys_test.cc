// Copyright Nereid authors.
// Each plugin's key table (nereid/config_key.h) against its README: the README's key table
// lists the same keys in the same order, with the same "Required / default" and "Units"
// columns. The tether's defaults equal tether::Config's member initialisers.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "acoustic/acoustic.h"
#include "altimeter/altimeter.h"
#include "buoyancy/buoyancy.h"
#include "current/current_plugin.h"
#include "dvl/dvl.h"
#include "hydrodynamics/hydrodynamics.h"
#include "imu/imu.h"
#include "marker/marker.h"
#include "pressure/pressure.h"
#include "tether/tether_plugin.h"
#include "thruster/thruster.h"

namespace nereid {
namespace {

struct Row {
  std::string key, fallback, units;
};

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The rows of the README table whose header starts "| Key | Required / default | Units |".
std::vector<Row> ReadmeRows(const std::string& plugin) {
  std::ifstream in(std::string(NEREID_SOURCE_DIR) + "/plugins/" + plugin + "/README.md");
  REQUIRE(in.good());
  std::vector<Row> rows;
  std::string line;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.rfind("| Key | Required / default | Units |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table || line.rfind("|---", 0) == 0) continue;
    if (line.rfind("| `", 0) != 0) {
      if (!rows.empty()) break;  // the table ended
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream cellstream(line.substr(1));
    std::string cell;
    while (std::getline(cellstream, cell, '|')) cells.push_back(Trim(cell));
    REQUIRE(cells.size() >= 3);
    rows.push_back({cells[0].substr(1, cells[0].size() - 2), cells[1], cells[2]});
  }
  return rows;
}

template <size_t N>
void CheckTable(const std::string& plugin, const std::array<ConfigKey, N>& keys) {
  CAPTURE(plugin);
  const std::vector<Row> rows = ReadmeRows(plugin);
  REQUIRE(rows.size() == N);
  for (size_t i = 0; i < N; ++i) {
    const ConfigKey& k = keys[i];
    const std::string name = k.name;
    CAPTURE(name);
    CHECK(rows[i].key == k.name);
    const std::string expected = k.default_doc ? k.default_doc
                                 : k.required  ? "**required**"
                                               : std::string("`") + (k.fallback ? k.fallback : "") + "`";
    CHECK(rows[i].fallback == expected);
    CHECK(rows[i].units == k.units);
    // a key with a default documents it: the README shows the default a user would write
    if (k.fallback && k.default_doc) CHECK(std::string(k.default_doc).find(std::string("`") + k.fallback + "`") != std::string::npos);
  }
}

double Parse(const char* text) { return std::stod(text); }

}  // namespace

TEST_SUITE("plugin_keys") {
  TEST_CASE("every plugin's README key table is its key table") {
    CheckTable("hydrodynamics", hydrodynamics_keys::kAll);
    CheckTable("buoyancy", buoyancy_keys::kAll);
    CheckTable("current", current_keys::kAll);
    CheckTable("thruster", thruster_keys::kAll);
    CheckTable("tether", tether_keys::kAll);
    CheckTable("pressure", pressure_keys::kAll);
    CheckTable("imu", imu_keys::kAll);
    CheckTable("dvl", dvl_keys::kAll);
    CheckTable("acoustic", acoustic_keys::kAll);
    CheckTable("altimeter", altimeter_keys::kAll);
    CheckTable("marker", marker_keys::kAll);
  }

  TEST_CASE("registration takes the table's names; the current's are nereid/current.h's grammar") {
    CHECK(std::size(Hydrodynamics::kAttributes) == hydrodynamics_keys::kAll.size());
    CHECK(std::string(Tether::kAttributes[5]) == "length");
    for (size_t i = 0; i < 3; ++i) CHECK(std::string(CurrentPlugin::kAttributes[i]) == CurrentField::kKeys[i]);
  }

  TEST_CASE("the tether's defaults are tether::Config's") {
    const tether::Config c;
    namespace k = tether_keys;
    CHECK(Parse(k::kCdNormal.fallback) == c.cd_normal);
    CHECK(Parse(k::kCdTangential.fallback) == c.cd_tangential);
    CHECK(Parse(k::kAxialStiffness.fallback) == c.axial_stiffness);
    CHECK(Parse(k::kBendingDamping.fallback) == c.bending_damping);
    CHECK(Parse(k::kAddedMassCoefficient.fallback) == c.added_mass_coefficient);
    CHECK(Parse(k::kFluidDensity.fallback) == c.fluid_density);
    CHECK(Parse(k::kAnalyticWeightFactor.fallback) == c.analytic_weight_factor);
    CHECK(std::string(k::kModel.fallback) == "lumped");
    CHECK(c.model == tether::Model::kLumped);
    CHECK(std::string(k::kCoordinates.fallback) == NameOf(tether::kCoordinatesNames, c.coordinates));
  }
}

}  // namespace nereid
