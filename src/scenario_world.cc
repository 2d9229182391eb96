// Copyright Nereid authors.
// A scenario's water and scene: "current", "waves" (and their water depth against the
// seabed) and "scene" (docs/scenarios.md).
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "nereid/error.h"
#include "nereid/plugins.h"
#include "scenario_read.h"

namespace nereid::scenario_read {
namespace {

// A horizontal point [x, y] (a pillar's or the terrain's "center"), each within +-1e5 m.
std::vector<double> HorizontalPoint(const Reader& r, const json& v, const std::string& path) {
  const std::vector<double> c = r.Numbers(v, path, 2);
  for (size_t k = 0; k < 2; ++k) {
    if (!(std::abs(c[k]) <= kMaxCoordinate)) r.Fail(path, "coordinates must be within +-1e5 m", &v);
  }
  return c;
}

// "scene"/"wall": the quay wall's face, extent along y, top, bottom and thickness.
Scenario::Scene::Wall ReadWall(const Reader& r, const json& w, const std::string& wp) {
  r.Keys(w, wp, detail::kWallKeys);
  Scenario::Scene::Wall wall;
  wall.face_x = Coordinate(r, w["face_x"], wp + "/face_x");
  if (w.contains("y")) {
    const std::vector<double> y = r.Numbers(w["y"], wp + "/y", 2);
    for (int k = 0; k < 2; ++k) Coordinate(r, w["y"][k], wp + "/y/" + std::to_string(k));
    if (!(y[0] < y[1])) r.Fail(wp + "/y", "expected [y_min, y_max] with y_min < y_max", &w["y"]);
    wall.y_min = y[0];
    wall.y_max = y[1];
  }
  if (w.contains("top")) wall.top = Coordinate(r, w["top"], wp + "/top");
  if (w.contains("bottom")) {
    wall.bottom = Coordinate(r, w["bottom"], wp + "/bottom");
    if (!(*wall.bottom < wall.top)) r.Fail(wp + "/bottom", "must be below the wall's top", &w["bottom"]);
  }
  if (w.contains("thickness")) wall.thickness = Length(r, w["thickness"], wp + "/thickness");
  return wall;
}

// "scene"/"pillars": at most 64 vertical cylinders, each a center, radius, top and bottom.
std::vector<Scenario::Scene::Pillar> ReadPillars(const Reader& r, const json& list, const std::string& lp) {
  constexpr size_t kMaxPillars = 64;
  if (!list.is_array()) r.Fail(lp, "expected an array of {\"center\": [x, y], \"radius\": r} objects", &list);
  if (list.size() > kMaxPillars) {
    r.Fail(lp, std::to_string(list.size()) + " pillars; at most " + std::to_string(kMaxPillars));
  }
  std::vector<Scenario::Scene::Pillar> pillars;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = lp + "/" + std::to_string(i);
    const json& e = list[i];
    r.Keys(e, p, detail::kPillarKeys);
    Scenario::Scene::Pillar pillar;
    const std::vector<double> c = HorizontalPoint(r, e["center"], p + "/center");
    pillar.x = c[0];
    pillar.y = c[1];
    pillar.radius = Length(r, e["radius"], p + "/radius");
    if (e.contains("top")) pillar.top = Coordinate(r, e["top"], p + "/top");
    if (e.contains("bottom")) {
      pillar.bottom = Coordinate(r, e["bottom"], p + "/bottom");
      if (!(*pillar.bottom < pillar.top)) r.Fail(p + "/bottom", "must be below the pillar's top", &e["bottom"]);
    }
    pillars.push_back(pillar);
  }
  return pillars;
}

// "scene"/"terrain": a heightmap image (relative to the scenario's folder), its center,
// half extents and depth range, which must stay above a flat seabed_depth when one is given.
Scenario::Scene::Terrain ReadTerrain(const Reader& r, const json& t, const std::string& tp,
                                     const std::string& base_dir, std::optional<double> seabed_depth) {
  r.Keys(t, tp, detail::kTerrainKeys);
  Scenario::Scene::Terrain terrain;
  terrain.path = tp;
  std::filesystem::path file(r.String(t["file"], tp + "/file"));
  CheckNoNul(file.string());
  if (file.is_relative() && !base_dir.empty()) file = std::filesystem::path(base_dir) / file;
  terrain.file = file.lexically_normal().string();
  if (t.contains("center")) {
    const std::vector<double> c = HorizontalPoint(r, t["center"], tp + "/center");
    terrain.x = c[0];
    terrain.y = c[1];
  }
  const std::vector<double> size = r.Numbers(t["size"], tp + "/size", 2);
  if (!(size[0] > 0 && size[1] > 0 && size[0] <= kMaxCoordinate && size[1] <= kMaxCoordinate)) {
    r.Fail(tp + "/size", "half extents must be > 0 and at most 1e5 m", &t["size"]);
  }
  terrain.half_x = size[0];
  terrain.half_y = size[1];
  const std::vector<double> depth = r.Numbers(t["depth"], tp + "/depth", 2);
  if (!(std::abs(depth[0]) <= kMaxCoordinate && std::abs(depth[1]) <= kMaxCoordinate)) {
    r.Fail(tp + "/depth", "depths must be within +-1e5 m", &t["depth"]);
  }
  if (!(depth[0] > depth[1])) {
    r.Fail(tp + "/depth", "[deepest, shallowest]: the first must be deeper than the second", &t["depth"]);
  }
  terrain.deepest = depth[0];
  terrain.shallowest = depth[1];
  if (seabed_depth && terrain.deepest > *seabed_depth) {
    r.Fail(tp + "/depth", "the terrain reaches below seabed_depth (" + std::to_string(*seabed_depth) +
                              " m), where the flat seabed would hide it",
           &t["depth"]);
  }
  return terrain;
}

}  // namespace

// the grammar of nereid/current.h (CurrentField::kKeys), as the nereid.current plugin reads it
CurrentField ReadCurrent(const Reader& r, const json& j, const std::string& path) {
  using Kind = CurrentField::Kind;
  r.Keys(j, path, detail::kCurrentKeys);
  r.ExactlyOne(j, path, detail::kCurrentKeys);
  const char* velocity = CurrentField::Key(Kind::kConstant);
  if (j.contains(velocity)) return CurrentField::Constant(r.Vector3(j[velocity], path + "/" + velocity));
  const bool time = j.contains(CurrentField::Key(Kind::kTime));
  const std::string key = CurrentField::Key(time ? Kind::kTime : Kind::kDepth);
  const std::string p = path + "/" + key;
  const json& rows = j[key];
  if (!rows.is_array() || rows.empty()) {
    r.Fail(p, "expected a non-empty array of [knot, vx, vy, vz] rows", &rows);
  }
  std::vector<double> knots;
  std::vector<Vec3> values;
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<double> row = r.Numbers(rows[i], p + "/" + std::to_string(i), 4);
    knots.push_back(row[0]);
    values.emplace_back(row[1], row[2], row[3]);
  }
  std::string rule;
  if (const long bad = CurrentField::BadKnot(time ? Kind::kTime : Kind::kDepth, knots, &rule); bad >= 0) {
    r.Fail(p + "/" + std::to_string(bad) + "/0", rule, &rows[static_cast<size_t>(bad)][0]);
  }
  return time ? CurrentField::TimeProfile(knots, values, p) : CurrentField::DepthProfile(knots, values, p);
}

// "waves": the nereid.current plugin's wave keys, read by the plugin's own code path
// (WavesFromKeys) with the JSON's values as text; the errors name the JSON path and value
waves::WaveField ReadWaves(const Reader& r, const json& j, const std::string& path) {
  r.Keys(j, path, detail::kWavesKeys);
  std::map<std::string, std::string> text;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string p = path + "/" + it.key();
    if (it.key() == "wave_type") {
      text[it.key()] = r.String(*it, p);
    } else {
      r.Number(*it, p);  // a finite number; the rules are the plugin's
      text[it.key()] = it->dump();
    }
  }
  const KeyText value = [&text](const char* key) -> std::optional<std::string> {
    const auto it = text.find(key);
    if (it == text.end()) return std::nullopt;
    return it->second;
  };
  const KeyFail fail = [&](const char* key, const std::string& rule, bool missing) {
    const std::string p = path + "/" + key;
    if (missing) r.Fail(p, "missing required key (" + rule + ")");
    r.Fail(p, rule, &j[key]);
  };
  return WavesFromKeys(r.source() + ": " + path, value, fail);
}

// The waves' water depth against the scene's seabed: the kinematics below the waves'
// seabed are those at it, so a seabed or terrain deeper than water_depth is refused.
void CheckWaterDepth(const Reader& r, const Scenario& s, const json& root) {
  if (!s.waves || s.waves->calm() || s.waves->depth() <= 0) return;
  const double depth = s.waves->depth();
  const json& given = root["waves"]["water_depth"];
  auto refuse = [&](const std::string& what, double seabed) {
    std::ostringstream rule;
    rule << "the waves' water depth " << depth << " m is shallower than " << what << " (" << seabed
         << " m): give water_depth >= " << seabed << " m, or 0 for deep water";
    r.Fail("/waves/water_depth", rule.str(), &given);
  };
  if (s.scene.seabed_depth && depth < *s.scene.seabed_depth) refuse("scene.seabed_depth", *s.scene.seabed_depth);
  if (s.scene.terrain && depth < s.scene.terrain->deepest) {
    refuse("scene.terrain's deepest sample", s.scene.terrain->deepest);
  }
}

// "scene": {"wall", "seabed_depth", "terrain", "pillars", "solid", "friction", "solref"}
// (docs/scenarios.md): collision geometry added at load (Scenario::AddSceneGeometry)
Scenario::Scene ReadScene(const Reader& r, const json& j, const std::string& path, const std::string& base_dir) {
  r.Keys(j, path, detail::kSceneKeys);
  Scenario::Scene scene;
  if (j.contains("seabed_depth")) scene.seabed_depth = Length(r, j["seabed_depth"], path + "/seabed_depth");
  if (j.contains("wall")) scene.wall = ReadWall(r, j["wall"], path + "/wall");
  if (j.contains("pillars")) scene.pillars = ReadPillars(r, j["pillars"], path + "/pillars");
  if (j.contains("terrain")) scene.terrain = ReadTerrain(r, j["terrain"], path + "/terrain", base_dir, scene.seabed_depth);
  if (j.contains("solid")) scene.solid = r.Bool(j["solid"], path + "/solid");
  if (j.contains("friction")) {
    scene.friction = r.Positive(j["friction"], path + "/friction");
    if (scene.friction > 10) r.Fail(path + "/friction", "must be at most 10", &j["friction"]);
  }
  if (j.contains("solref")) {
    const std::vector<double> v = r.Numbers(j["solref"], path + "/solref", 2);
    if (!(v[0] > 0 && v[1] > 0 && v[0] <= 1e3 && v[1] <= 1e3)) {
      r.Fail(path + "/solref", "[time constant, damping ratio]: each must be > 0 and at most 1000", &j["solref"]);
    }
    scene.solref = {v[0], v[1]};
  }
  return scene;
}

}  // namespace nereid::scenario_read
