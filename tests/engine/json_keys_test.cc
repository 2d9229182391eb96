// Copyright Nereid authors.
// The scenario's key tables (src/json_keys.h): what the parser says of an unknown key.
#include <string>

#include <doctest/doctest.h>

#include "json_keys.h"
#include "nereid/error.h"
#include "nereid/scenario.h"

namespace nereid {
namespace {

using namespace detail;

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
}

}  // namespace
}  // namespace nereid
