// Copyright Nereid authors.
// What the readers of a scenario's sections share (Scenario::FromString, src/scenario.cc;
// the water and the scene, src/scenario_world.cc; the controllers, src/scenario_control.cc):
// the JSON reader, the bound on positions and lengths, and the sections' readers.
// Internal to the engine library.
#ifndef NEREID_SRC_SCENARIO_READ_H_
#define NEREID_SRC_SCENARIO_READ_H_

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nereid/scenario.h"
#include "json_reader.h"

namespace nereid::scenario_read {

using nlohmann::json;
using Reader = detail::JsonReader;

// An integer in lo..hi.
inline int ReadInt(const Reader& r, const json& j, const std::string& path, int lo, int hi) {
  if (!j.is_number_integer() || j.get<long long>() < lo || j.get<long long>() > hi) {
    r.Fail(path, "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi), &j);
  }
  return j.get<int>();
}

// positions and lengths of a path, m: beyond this, doubles lose the millimetres a path
// follower works in (a wall offset of 9e15 m made the follower's search spin forever)
constexpr double kMaxCoordinate = 1e5;

// A coordinate within the bound.
inline double Coordinate(const Reader& r, const json& value, const std::string& path) {
  const double x = r.Number(value, path);
  if (!(std::abs(x) <= kMaxCoordinate)) r.Fail(path, "must be within +-1e5 m", &value);
  return x;
}

// A length within the bound, > 0.
inline double Length(const Reader& r, const json& value, const std::string& path) {
  const double x = Coordinate(r, value, path);
  if (!(x > 0)) r.Fail(path, "must be > 0", &value);
  return x;
}

// A position [x, y, z] within the bound.
inline Vec3 Position(const Reader& r, const json& value, const std::string& path) {
  const Vec3 p = r.Vector3(value, path);
  if (!(p.cwiseAbs().maxCoeff() <= kMaxCoordinate)) r.Fail(path, "coordinates must be within +-1e5 m", &value);
  return p;
}

// The water and the scene (src/scenario_world.cc).
CurrentField ReadCurrent(const Reader& r, const json& j, const std::string& path);
waves::WaveField ReadWaves(const Reader& r, const json& j, const std::string& path);
void CheckWaterDepth(const Reader& r, const Scenario& s, const json& root);
Scenario::Scene ReadScene(const Reader& r, const json& j, const std::string& path, const std::string& base_dir);

// The controllers (src/scenario_control.cc).
std::vector<StabilizeSpec> ReadStabilize(const Reader& r, const json& list, const std::string& path);
Scenario::Controller ReadController(const Reader& r, const json& j, const std::string& path);

}  // namespace nereid::scenario_read

#endif  // NEREID_SRC_SCENARIO_READ_H_
