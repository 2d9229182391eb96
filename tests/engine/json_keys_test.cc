// Copyright Nereid authors.
// The scenario's key tables (src/json_keys.h): what the parser says of an unknown key;
// every key table in docs/scenarios.md, docs/mpc.md and docs/vms.md against its table
// (the same keys in the same order, with the same type, default and units, as
// tests/plugins/keys_test.cc checks the plugins' READMEs); the tables' defaults against
// the parsed structs' own.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "current/current_plugin.h"
#include "json_keys.h"
#include "nereid/error.h"
#include "nereid/plugins.h"
#include "nereid/scenario.h"

namespace nereid {
namespace {

using namespace detail;
using nlohmann::json;

struct DocRow {
  std::string key, type, fallback, units;
};
struct DocTable {
  std::string file, id;
  std::vector<DocRow> rows;
};

std::string Trim(const std::string& text) {
  const size_t a = text.find_first_not_of(' '), b = text.find_last_not_of(' ');
  return a == std::string::npos ? "" : text.substr(a, b - a + 1);
}

// The tables marked "<!-- keys: ID -->" in a doc, each with the header
// "| Key | Type | Required / default | Units | Meaning |".
std::vector<DocTable> DocTables(const std::string& file) {
  std::ifstream in(std::string(NEREID_SOURCE_DIR) + "/" + file);
  REQUIRE(in.good());
  std::vector<DocTable> tables;
  std::string line;
  const std::string mark = "<!-- keys: ";
  DocTable* table = nullptr;
  while (std::getline(in, line)) {
    if (line.rfind(mark, 0) == 0) {
      tables.push_back({file, line.substr(mark.size(), line.find(" -->") - mark.size()), {}});
      table = &tables.back();
      REQUIRE(std::getline(in, line));
      CAPTURE(file);
      CAPTURE(table->id);
      CHECK(line == "| Key | Type | Required / default | Units | Meaning |");
      continue;
    }
    if (!table || line.rfind("|---", 0) == 0) continue;
    if (line.rfind("| `", 0) != 0) {
      table = nullptr;  // the table ended
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream cellstream(line.substr(1));
    std::string cell;
    while (std::getline(cellstream, cell, '|')) cells.push_back(Trim(cell));
    REQUIRE(cells.size() >= 4);
    table->rows.push_back({cells[0].substr(1, cells[0].size() - 2), cells[1], cells[2], cells[3]});
  }
  return tables;
}

// The rows a doc table of `object` must have, in order: each key by name, or an object
// key by its own keys' rows ("gains.depth_p") when the doc lists them so.
void ExpectedRows(const JsonObject& object, const std::string& prefix, const std::set<std::string>& names,
                  std::vector<std::pair<std::string, const JsonKey*>>* rows, std::set<const JsonObject*>* documented) {
  documented->insert(&object);
  for (const JsonKey& k : object.keys) {
    const std::string name = prefix + std::string(k.name);
    const auto after = names.lower_bound(name + ".");
    const bool dotted = after != names.end() && after->rfind(name + ".", 0) == 0;
    if (!names.count(name) && dotted && k.type == JsonType::kObject && k.objects.size() == 1) {
      ExpectedRows(*k.objects[0], name + ".", names, rows, documented);
    } else {
      rows->push_back({name, &k});
    }
  }
}

// every object reachable from `object`
void Reachable(const JsonObject& object, std::set<const JsonObject*>* seen) {
  if (!seen->insert(&object).second) return;
  for (const JsonKey& k : object.keys) {
    for (const JsonObject* o : k.objects) Reachable(*o, seen);
  }
}

json Fallback(const JsonObject& object, std::string_view key) {
  const JsonKey& k = object.At(key);
  REQUIRE(!k.fallback.empty());
  return json::parse(k.fallback);
}

std::string ParseError(const std::string& text) {
  try {
    Scenario::FromString(text, "case.json", "");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST_SUITE("json_keys") {
  TEST_CASE("edit distance") {
    CHECK(EditDistance("", "") == 0);
    CHECK(EditDistance("abc", "") == 3);
    CHECK(EditDistance("", "abc") == 3);
    CHECK(EditDistance("kitten", "sitting") == 3);
    CHECK(EditDistance("duratoin", "duration") == 2);
    CHECK(EditDistance("gain", "gains") == 1);
  }

  TEST_CASE("an unknown key names the nearest valid one, or lists them all when none is near") {
    CHECK(ParseError(R"({"model": "m.xml", "duratoin": 3})") == "case.json: /duratoin: unknown key; did you mean 'duration'?");
    CHECK(ParseError(R"({"Model": "m.xml"})") == "case.json: /Model: unknown key; did you mean 'model'?");
    CHECK(ParseError(R"({"model": "m.xml", "wrenches": [{"body": "b", "forces": [1, 0, 0]}]})") ==
          "case.json: /wrenches/0/forces: unknown key; did you mean 'force'?");
    CHECK(ParseError(R"({"model": "m.xml", "initial_state": {"bodies": {"b": {"colour": 1}}}})") ==
          "case.json: /initial_state/bodies/b/colour: unknown key; allowed: position, quaternion, velocity, "
          "angular_velocity");
    CHECK(ParseError(R"({"model": "m.xml", "controller": {"type": "vms", "vehicle": {"body": "b", "kp": [1, 1, 1, 1, 1, 1], )"
                     R"("kd": [1, 1, 1, 1, 1, 1], "reference": {"X": 1}}}})") ==
          "case.json: /controller/vehicle/reference/X: unknown key; did you mean 'x'?");
    CHECK(ParseError(R"({"model": "m.xml", "controller": {"type": "mpc", "body": "b", "path": {"points": [[0, 0, 0]]}, )"
                     R"("solver": {"max_sqp_iteration": 3}}})") ==
          "case.json: /controller/solver/max_sqp_iteration: unknown key; did you mean 'max_sqp_iterations'?");
    // a single-letter key is not a misspelling of another single letter
    CHECK(ParseError(R"({"model": "m.xml", "peak": {"w": 1}})") == "case.json: /peak/w: unknown key; allowed: body, axis");
    // a long key costs no time and suggests nothing
    CHECK(ParseError(R"({"model": "m.xml", ")" + std::string(100000, 'x') + R"(": 1})").find("unknown key; allowed: model,") !=
          std::string::npos);
  }

  TEST_CASE("the tables: distinct ids and names, every object reachable from the document, defaults are JSON") {
    std::set<std::string> ids;
    for (const JsonObject* o : AllJsonObjects()) {
      CAPTURE(o->id);
      CHECK(ids.insert(std::string(o->id)).second);
      std::set<std::string_view> names;
      for (const JsonKey& k : o->keys) {
        CAPTURE(k.name);
        CHECK(names.insert(k.name).second);
        CHECK_FALSE(k.meaning.empty());
        CHECK(k.objects.empty() == (k.type != JsonType::kObject && k.type != JsonType::kObjects &&
                                    k.type != JsonType::kObjectMap && k.type != JsonType::kSignal));
        CHECK(k.allowed.empty() == (k.type != JsonType::kEnum && k.type != JsonType::kEnums));
        if (!k.fallback.empty()) {
          CHECK_FALSE(k.required);
          CHECK(json::accept(k.fallback));
          // a default the docs word themselves still shows the value a user would write
          if (!k.default_doc.empty()) CHECK(std::string(k.default_doc).find("`" + std::string(k.fallback) + "`") != std::string::npos);
        }
      }
    }
    std::set<const JsonObject*> reachable;
    Reachable(kScenarioKeys, &reachable);
    CHECK(reachable == std::set<const JsonObject*>(AllJsonObjects().begin(), AllJsonObjects().end()));
  }

  TEST_CASE("every key table in the docs is its table: keys, order, type, default, units") {
    std::map<std::string, const JsonObject*> by_id;
    for (const JsonObject* o : AllJsonObjects()) by_id[std::string(o->id)] = o;
    std::set<const JsonObject*> documented;
    std::set<std::string> seen;
    for (const char* file : {"docs/scenarios.md", "docs/mpc.md", "docs/vms.md"}) {
      for (const DocTable& table : DocTables(file)) {
        CAPTURE(table.file);
        CAPTURE(table.id);
        REQUIRE(by_id.count(table.id));
        CHECK(seen.insert(table.id).second);  // one table per object
        std::set<std::string> names;
        for (const DocRow& row : table.rows) names.insert(row.key);
        std::vector<std::pair<std::string, const JsonKey*>> expected;
        ExpectedRows(*by_id[table.id], "", names, &expected, &documented);
        for (size_t i = 0; i < std::max(expected.size(), table.rows.size()); ++i) {
          const std::string want = i < expected.size() ? expected[i].first : "(none)";
          const std::string got = i < table.rows.size() ? table.rows[i].key : "(none)";
          CAPTURE(want);
          CHECK(got == want);
          if (got != want) break;
          const JsonKey& k = *expected[i].second;
          CHECK(table.rows[i].type == TypeText(k));
          CHECK(table.rows[i].fallback == DefaultText(k));
          CHECK(table.rows[i].units == k.units);
        }
      }
    }
    for (const JsonObject* o : AllJsonObjects()) {
      CAPTURE(o->id);
      CHECK(documented.count(o));
    }
  }

  TEST_CASE("docs/scenario.schema.json is the schema the tables give") {
    const std::string schema = ScenarioJsonSchema();
    std::ifstream in(std::string(NEREID_SOURCE_DIR) + "/docs/scenario.schema.json");
    std::stringstream committed;
    committed << in.rdbuf();
    if (committed.str() != schema) {
      std::ofstream("scenario.schema.json") << schema;
      FAIL_CHECK("docs/scenario.schema.json is not the generated schema; the generated one is in the test's "
                 "working folder (build/tests/scenario.schema.json): copy it to docs/");
    }
    const json parsed = json::parse(schema);
    CHECK(parsed["properties"].size() == kScenarioKeys.keys.size());
    CHECK(parsed["definitions"].size() == AllJsonObjects().size() - 1);
    CHECK(parsed["required"] == json{"model"});
    // a scenario may name its schema; the parser ignores the key (a string)
    CHECK(ParseError(R"({"$schema": "../docs/scenario.schema.json", "model": "m.xml"})").empty());
    CHECK(ParseError(R"({"$schema": 1, "model": "m.xml"})") == "case.json: /$schema: expected a string (got 1)");
  }

  TEST_CASE("the scenario's wave keys are the nereid.current plugin's: names, order, units, defaults and ranges") {
    const auto& plugin = current_keys::kWaves;
    REQUIRE(kWavesKeys.keys.size() == plugin.size());
    for (size_t i = 0; i < plugin.size(); ++i) {
      const JsonKey& j = kWavesKeys.keys[i];
      const ConfigKey& c = plugin[i];
      CAPTURE(c.name);
      CHECK(j.name == c.name);
      CHECK(j.units == c.units);
      if (!c.fallback) {  // required with waves: neither has a default
        CHECK(j.fallback.empty());
        CHECK(j.default_doc == std::string_view(c.default_doc ? c.default_doc : ""));
        continue;
      }
      // the plugin's default as a user writes it in MJCF: a number, or a bare word (a string)
      const json written = json::accept(c.fallback) ? json::parse(c.fallback) : json(c.fallback);
      CHECK(json::parse(j.fallback) == written);
    }
    // the JSON table's ranges are what the plugin's own rules accept (the scenario's waves
    // go through them: WavesFromKeys), on a JONSWAP sea of 1 m and 8 s
    auto accepted = [](const std::string& key, const std::string& value) {
      std::map<std::string, std::string> text{{"wave_type", "jonswap"}, {"wave_height", "1"}, {"wave_period", "8"}};
      text[key] = value;
      try {
        WavesFromKeys(
            "waves", [&](const char* k) -> std::optional<std::string> {
              const auto it = text.find(k);
              return it == text.end() ? std::nullopt : std::optional<std::string>(it->second);
            },
            [](const char* k, const std::string& rule, bool) { throw ConfigError(std::string(k) + ": " + rule); });
        return true;
      } catch (const ConfigError&) {
        return false;
      }
    };
    auto text = [](double x) {
      std::ostringstream out;
      out.precision(17);
      out << x;
      return out.str();
    };
    int bounds = 0;
    for (const JsonKey& k : kWavesKeys.keys) {
      CAPTURE(k.name);
      const std::string name(k.name);
      if (std::isfinite(k.min)) {
        const double below = k.min - std::max(1.0, std::abs(k.min)) * 1e-3;
        CHECK_FALSE(accepted(name, text(k.type == JsonType::kInteger ? k.min - 1 : below)));
        if (!k.above) CHECK(accepted(name, text(k.min)));
        ++bounds;
      }
      if (std::isfinite(k.max)) {
        CHECK(accepted(name, text(k.max)));
        CHECK_FALSE(accepted(name, text(k.type == JsonType::kInteger ? k.max + 2 : k.max * (1 + 1e-3))));
        ++bounds;
      }
    }
    CHECK(bounds >= 8);  // height, period, depth, gamma (2), spreading (2), components (2), seed (2)
  }

  TEST_CASE("the tables' defaults are the parsed scenario's") {
    const std::string points = R"("path": {"points": [[0, 0, 0]]})";
    auto controller = [&](const std::string& type, const std::string& more = "") {
      return *Scenario::FromString(R"({"model": "m.xml", "controller": {"type": ")" + type + R"(", "body": "b", )" +
                                       points + more + "}}",
                                   "case.json", "")
                  .controller;
    };
    // the cascaded PID
    const Scenario::Controller pid = controller("cascaded_pid");
    CHECK(Fallback(kPidControllerKeys, "pose_rate") == pid.pose_rate);
    CHECK(Fallback(kPidControllerKeys, "stop_when_done") == pid.stop_when_done);
    CHECK(Fallback(kPidControllerKeys, "acceptance_radius") == pid.reference.acceptance_radius);
    CHECK(Fallback(kPidControllerKeys, "reference") ==
          json{{"rule", "acceptance_radius"}, {"acceptance_radius", pid.reference.acceptance_radius}});
    CHECK(pid.reference.kind == ReferenceRule::Kind::kAcceptanceRadius);
    CHECK(pid.reference.lookahead == 2);  // kReferenceKeys' "lookahead" default_doc
    CHECK(Fallback(kReferenceKeys, "acceptance_radius") == pid.reference.acceptance_radius);
    CHECK(Fallback(kPidControllerKeys, "orientation") == json{1, 0, 0, 0});
    CHECK(pid.path.orientation.w() == 1);
    const CascadedPidGains& g = pid.gains;
    CHECK(Fallback(kPidGainsKeys, "position") == json{g.position_p, g.position_i, g.position_d});
    CHECK(Fallback(kPidGainsKeys, "attitude") == json{g.attitude_p, g.attitude_i, g.attitude_d});
    CHECK(Fallback(kPidGainsKeys, "velocity") == json{g.velocity_p, g.velocity_i, g.velocity_d});
    CHECK(Fallback(kPidGainsKeys, "rate") == json{g.rate_p, g.rate_i, g.rate_d});
    for (int i = 0; i < 6; ++i) CHECK(Fallback(kPidGainsKeys, "velocity_limit")[static_cast<size_t>(i)] == g.velocity_limit[i]);
    // the MPC
    const Scenario::Controller mpc = controller("mpc");
    const MpcOptions& o = mpc.mpc;
    CHECK(Fallback(kMpcControllerKeys, "pose_rate") == mpc.pose_rate);
    CHECK(Fallback(kMpcControllerKeys, "stop_when_done") == mpc.stop_when_done);
    CHECK(mpc.reference.kind == ReferenceRule::Kind::kClosestAhead);
    CHECK(Fallback(kMpcControllerKeys, "reference") ==
          json{{"rule", "closest_ahead"}, {"acceptance_radius", mpc.reference.acceptance_radius},
               {"lookahead", mpc.reference.lookahead}});
    CHECK(Fallback(kMpcControllerKeys, "horizon") == o.horizon);
    CHECK(Fallback(kMpcControllerKeys, "control_period") == o.control_period);
    CHECK(Fallback(kMpcControllerKeys, "cost_pos") == o.cost_pos);
    CHECK(Fallback(kMpcControllerKeys, "cost_rot") == o.cost_rot);
    CHECK(Fallback(kMpcControllerKeys, "cost_thrust") == o.cost_thrust);
    CHECK(Fallback(kMpcControllerKeys, "velocity_limit") == o.velocity_limit);
    CHECK(Fallback(kMpcControllerKeys, "prediction") == ToString(o.prediction));
    CHECK(Fallback(kMpcControllerKeys, "integrator") == (o.implicit_rk4 ? "irk4" : "rk4"));
    CHECK(Fallback(kMpcControllerKeys, "solver") ==
          json{{"qp", o.qp_solver}, {"max_sqp_iterations", o.max_sqp_iterations},
               {"hessian", o.gauss_newton ? "gauss_newton" : "exact"}, {"max_line_search", o.max_line_search}});
    CHECK(Fallback(kMpcSolverKeys, "qp") == o.qp_solver);
    CHECK(Fallback(kMpcSolverKeys, "max_sqp_iterations") == o.max_sqp_iterations);
    CHECK(Fallback(kMpcSolverKeys, "hessian") == (o.gauss_newton ? "gauss_newton" : "exact"));
    CHECK(Fallback(kMpcSolverKeys, "max_line_search") == o.max_line_search);
    // the zig-zag, the holds, the scene, the wrenches, the cross-check keys
    const ZigZagSpec z;
    CHECK(Fallback(kZigZagKeys, "wall_offset") == z.wall_offset);
    CHECK(Fallback(kZigZagKeys, "y0") == z.y0);
    CHECK(Fallback(kZigZagKeys, "z_top") == z.z_top);
    CHECK(Fallback(kZigZagKeys, "stroke_height") == z.stroke_height);
    CHECK(Fallback(kZigZagKeys, "stroke_spacing") == z.stroke_spacing);
    CHECK(Fallback(kZigZagKeys, "strokes") == z.strokes);
    CHECK(Fallback(kZigZagKeys, "point_spacing") == z.point_spacing);
    const StabilizeGains sg;
    CHECK(Fallback(kStabilizeGainsKeys, "depth_p") == sg.depth_p);
    CHECK(Fallback(kStabilizeGainsKeys, "climb_p") == sg.climb_p);
    CHECK(Fallback(kStabilizeGainsKeys, "angle_p") == sg.angle_p);
    CHECK(Fallback(kStabilizeGainsKeys, "rate_p") == sg.rate_p);
    CHECK(Fallback(kStabilizeGainsKeys, "max_climb_rate") == sg.max_climb_rate);
    CHECK(Fallback(kStabilizeGainsKeys, "max_rate") == sg.max_rate);
    const Scenario::Scene::Wall wall;
    CHECK(Fallback(kWallKeys, "y") == json{wall.y_min, wall.y_max});
    CHECK(Fallback(kWallKeys, "top") == wall.top);
    CHECK(Fallback(kWallKeys, "thickness") == wall.thickness);
    const Scenario::Wrench w;
    CHECK(Fallback(kWrenchKeys, "start") == w.start);
    CHECK(Fallback(kWrenchKeys, "end") == w.end);
    CHECK(Fallback(kWrenchKeys, "force") == json{0, 0, 0});
    CHECK(Fallback(kWrenchKeys, "frame") == (w.body_frame ? "body" : "world"));
    CHECK(Fallback(kWrenchKeys, "at") == (w.at_com ? "com" : "origin"));
    CHECK(Fallback(kControlKeys, "time") == Scenario::Control{}.time);
    const Scenario::Crosscheck c;
    CHECK(Fallback(kWeldKeys, "solref") == json(c.solref));
    CHECK(Fallback(kWeldKeys, "solimp") == json(c.solimp));
    CHECK(Fallback(kUkKeys, "baumgarte_omega") == c.uk.baumgarte_omega);
    CHECK(Fallback(kUkKeys, "baumgarte_zeta") == c.uk.baumgarte_zeta);
    CHECK(Fallback(kUkKeys, "project") == c.uk.project);
    CHECK(Fallback(kUkKeys, "dense") == c.uk.dense);
    CHECK(Fallback(kPeakKeys, "axis") == std::string(1, static_cast<char>('x' + c.peak_axis)));
    CHECK(Fallback(kScenarioKeys, "record_every") == c.record_every);
    json methods = json::array();
    for (Scenario::Crosscheck::Method m : c.methods) methods.push_back(Scenario::Crosscheck::Name(m));
    CHECK(Fallback(kScenarioKeys, "methods") == methods);
    // the vms blocks
    const VehiclePdSpec v;
    CHECK(Fallback(kVehiclePdKeys, "active") == json(v.active));
    CHECK(Fallback(kVehiclePdKeys, "origin") == json{v.origin[0], v.origin[1], v.origin[2]});
    CHECK(Fallback(kJointLoopKeys, "mode") == (JointLoopSpec{}.mode == JointLoopSpec::Mode::kPid ? "pid" : "?"));
    CHECK(Fallback(kIkKeys, "elbow") == ArmIkSpec{}.elbow);
    const Signal sig;
    CHECK(Fallback(kSineKeys, "phase") == sig.phase);
    CHECK(Fallback(kSineKeys, "offset") == sig.offset);
    CHECK(Fallback(kSineKeys, "outside") == sig.value);
    CHECK(Fallback(kRampKeys, "from") == sig.from);
    CHECK(Fallback(kLinearKeys, "offset") == sig.offset);
  }
}

}  // namespace
}  // namespace nereid
