// Copyright Nereid authors.
#include "nereid/scenario.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/plugins.h"
#include "json_reader.h"
#include "vms/vms_config.h"

namespace nereid {
namespace {

using nlohmann::json;

using Reader = detail::JsonReader;

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

int ReadInt(const Reader& r, const json& j, const std::string& path, int lo, int hi) {
  if (!j.is_number_integer() || j.get<long long>() < lo || j.get<long long>() > hi) {
    r.Fail(path, "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi), &j);
  }
  return j.get<int>();
}

constexpr long kMaxPathPoints = 1000000;
// positions and lengths of a path, m: beyond this, doubles lose the millimetres a path
// follower works in (a wall offset of 9e15 m made the follower's search spin forever)
constexpr double kMaxCoordinate = 1e5;

double Coordinate(const Reader& r, const json& value, const std::string& path) {
  const double x = r.Number(value, path);
  if (!(std::abs(x) <= kMaxCoordinate)) r.Fail(path, "must be within +-1e5 m", &value);
  return x;
}

// A length within the bound, > 0.
double Length(const Reader& r, const json& value, const std::string& path) {
  const double x = Coordinate(r, value, path);
  if (!(x > 0)) r.Fail(path, "must be > 0", &value);
  return x;
}

// A position [x, y, z] within the bound.
Vec3 Position(const Reader& r, const json& value, const std::string& path) {
  const Vec3 p = r.Vector3(value, path);
  if (!(p.cwiseAbs().maxCoeff() <= kMaxCoordinate)) r.Fail(path, "coordinates must be within +-1e5 m", &value);
  return p;
}

// "stabilize": [{"body", "depth", "thrusters", "gains"}] (docs/scenarios.md)
std::vector<StabilizeSpec> ReadStabilize(const Reader& r, const json& list, const std::string& path) {
  constexpr size_t kMaxEntries = 64;
  if (!list.is_array()) r.Fail(path, "expected an array of {\"body\": ...} objects", &list);
  if (list.size() > kMaxEntries) {
    r.Fail(path, std::to_string(list.size()) + " entries; at most " + std::to_string(kMaxEntries));
  }
  std::vector<StabilizeSpec> specs;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = path + "/" + std::to_string(i);
    const json& e = list[i];
    r.Keys(e, p, detail::kStabilizeKeys);
    StabilizeSpec s;
    s.path = p;
    s.body = r.String(e["body"], p + "/body");
    for (const StabilizeSpec& other : specs) {
      if (other.body == s.body) r.Fail(p + "/body", "a second hold for the same body", &e["body"]);
    }
    if (e.contains("depth")) s.depth = Coordinate(r, e["depth"], p + "/depth");
    if (e.contains("thrusters")) {
      const json& names = e["thrusters"];
      if (!names.is_array() || names.empty() || names.size() > kMaxEntries) {
        r.Fail(p + "/thrusters", "expected 1 to 64 actuator names", &names);
      }
      for (size_t k = 0; k < names.size(); ++k) {
        s.thrusters.push_back(r.String(names[k], p + "/thrusters/" + std::to_string(k)));
      }
    }
    if (e.contains("gains")) {
      const json& g = e["gains"];
      const std::string gp = p + "/gains";
      r.Keys(g, gp, detail::kStabilizeGainsKeys);
      StabilizeGains& k = s.gains;
      for (auto [key, field] : {std::pair{"depth_p", &k.depth_p}, {"climb_p", &k.climb_p},
                                {"angle_p", &k.angle_p}, {"rate_p", &k.rate_p},
                                {"max_climb_rate", &k.max_climb_rate}, {"max_rate", &k.max_rate}}) {
        if (g.contains(key)) *field = r.Positive(g[key], gp + "/" + key);
      }
    }
    specs.push_back(std::move(s));
  }
  return specs;
}

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

// nereid crosscheck's keys of a scenario (docs/crosscheck.md)
Scenario::Crosscheck ReadCrosscheck(const Reader& r, const json& root) {
  using Method = Scenario::Crosscheck::Method;
  Scenario::Crosscheck c;
  if (root.contains("weld")) {
    const json& w = root["weld"];
    r.Keys(w, "/weld", detail::kWeldKeys);
    c.solver_key = "/weld";
    if (w.contains("solref")) {
      const std::vector<double> x = r.Numbers(w["solref"], "/weld/solref", 2);
      std::copy(x.begin(), x.end(), c.solref.begin());
    }
    if (w.contains("solimp")) {
      const std::vector<double> x = r.Numbers(w["solimp"], "/weld/solimp", 5);
      std::copy(x.begin(), x.end(), c.solimp.begin());
    }
  }
  if (root.contains("uk")) {
    const json& u = root["uk"];
    r.Keys(u, "/uk", detail::kUkKeys);
    if (c.solver_key.empty()) c.solver_key = "/uk";
    c.uk.baumgarte_omega = r.Number(u, "/uk", "baumgarte_omega", c.uk.baumgarte_omega);
    c.uk.baumgarte_zeta = r.Number(u, "/uk", "baumgarte_zeta", c.uk.baumgarte_zeta);
    if (u.contains("project")) c.uk.project = r.Bool(u["project"], "/uk/project");
    if (u.contains("dense")) c.uk.dense = r.Bool(u["dense"], "/uk/dense");
  }
  if (root.contains("peak")) {
    const json& pk = root["peak"];
    r.Keys(pk, "/peak", detail::kPeakKeys);
    if (pk.contains("body")) c.peak_body = r.String(pk["body"], "/peak/body");
    const std::string axis = pk.contains("axis") ? r.Choice(pk["axis"], "/peak/axis", detail::kPeakKeys.At("axis")) : "x";
    c.peak_axis = axis[0] - 'x';
  }
  if (root.contains("reference")) c.reference = root["reference"].dump();
  if (root.contains("record_every")) c.record_every = ReadInt(r, root["record_every"], "/record_every", 1, 1000000000);
  if (root.contains("methods")) {
    const json& list = root["methods"];
    if (!list.is_array() || list.empty()) {
      r.Fail("/methods", "expected a non-empty array of " + NameChoices(Scenario::Crosscheck::kMethodNames), &list);
    }
    c.methods.clear();
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = "/methods/" + std::to_string(i);
      Method method = Method::kUK;
      if (!ParseName(Scenario::Crosscheck::kMethodNames, r.String(list[i], p), &method)) {
        r.Fail(p, "expected " + NameChoices(Scenario::Crosscheck::kMethodNames), &list[i]);
      }
      if (std::find(c.methods.begin(), c.methods.end(), method) != c.methods.end()) r.Fail(p, "given twice", &list[i]);
      c.methods.push_back(method);
    }
  }
  return c;
}

// The number of points a path of this length would have, refused past kMaxPathPoints
// before any is made.
void CheckPathPoints(const Reader& r, const std::string& path, double length, double spacing, const char* hint) {
  if (length / spacing > kMaxPathPoints) {
    r.Fail(path, "the path would have " + std::to_string(length / spacing) + " points; at most " +
                     std::to_string(kMaxPathPoints) + " (" + hint + ")");
  }
}

// point_spacing or num (points per metre), not both
double ReadPointSpacing(const Reader& r, const json& z, const std::string& zp, double fallback) {
  if (z.contains("point_spacing") && z.contains("num")) r.Fail(zp, "give point_spacing or num, not both", &z);
  if (z.contains("point_spacing")) {
    const double spacing = r.Number(z["point_spacing"], zp + "/point_spacing");
    if (!(spacing >= 1e-3)) r.Fail(zp + "/point_spacing", "must be >= 0.001 m (num <= 1000)", &z["point_spacing"]);
    return spacing;
  }
  // seed 002 Table 6.2: num path points per metre (num = 100 is 0.01 m)
  if (z.contains("num")) return 1.0 / ReadInt(r, z["num"], zp + "/num", 1, 1000);
  return fallback;
}

// "pillar": a helix around a vertical cylinder (docs/scenarios.md)
PillarSpec ReadPillarPath(const Reader& r, const json& z, const std::string& zp) {
  r.Keys(z, zp, detail::kPillarPathKeys);
  PillarSpec spec;
  const std::vector<double> center = r.Numbers(z["center"], zp + "/center", 2);
  for (size_t i = 0; i < 2; ++i) {
    if (!(std::abs(center[i]) <= kMaxCoordinate)) r.Fail(zp + "/center", "must be within +-1e5 m", &z["center"]);
  }
  spec.center_x = center[0], spec.center_y = center[1];
  spec.radius = Length(r, z["radius"], zp + "/radius");
  spec.standoff = Length(r, z["standoff"], zp + "/standoff");
  spec.z_start = Coordinate(r, z["z_start"], zp + "/z_start");
  spec.z_end = Coordinate(r, z["z_end"], zp + "/z_end");
  if (z.contains("turns") && z.contains("pitch")) r.Fail(zp, "give turns or pitch, not both", &z);
  if (z.contains("turns")) {
    spec.turns = r.Number(z["turns"], zp + "/turns");
    if (!(spec.turns > 0 && spec.turns <= 1000)) r.Fail(zp + "/turns", "must be > 0 and <= 1000", &z["turns"]);
  }
  if (z.contains("pitch")) {
    const double pitch = Length(r, z["pitch"], zp + "/pitch");
    spec.turns = std::abs(spec.z_end - spec.z_start) / pitch;
    if (!(spec.turns > 0)) r.Fail(zp + "/pitch", "needs z_start != z_end (a level circle: give turns)", &z["pitch"]);
    if (!(spec.turns <= 1000)) {
      r.Fail(zp + "/pitch", "gives " + std::to_string(spec.turns) + " turns; at most 1000", &z["pitch"]);
    }
  }
  if (z.contains("direction")) {
    spec.ccw = r.Choice(z["direction"], zp + "/direction", detail::kPillarPathKeys.At("direction")) == "ccw";
  }
  if (z.contains("start_angle")) {
    const double deg = r.Number(z["start_angle"], zp + "/start_angle");
    if (!(std::abs(deg) <= 360)) r.Fail(zp + "/start_angle", "must be in -360..360 degrees", &z["start_angle"]);
    spec.start_angle = deg * M_PI / 180;
  }
  spec.point_spacing = ReadPointSpacing(r, z, zp, spec.point_spacing);
  CheckPathPoints(r, zp, spec.Length(), spec.point_spacing, "raise point_spacing or lower turns");
  return spec;
}

Path ReadPath(const Reader& r, const json& pj, const std::string& pp) {
  Path path;
  r.Keys(pj, pp, detail::kPathKeys);
  r.ExactlyOne(pj, pp, detail::kPathKeys);
  if (pj.contains("zigzag")) {
    const json& z = pj["zigzag"];
    const std::string zp = pp + "/zigzag";
    r.Keys(z, zp, detail::kZigZagKeys);
    ZigZagSpec spec;
    if (z.contains("wall_offset")) spec.wall_offset = Coordinate(r, z["wall_offset"], zp + "/wall_offset");
    if (z.contains("y0")) spec.y0 = Coordinate(r, z["y0"], zp + "/y0");
    if (z.contains("z_top")) spec.z_top = Coordinate(r, z["z_top"], zp + "/z_top");
    if (z.contains("stroke_height")) spec.stroke_height = Length(r, z["stroke_height"], zp + "/stroke_height");
    if (z.contains("stroke_spacing")) spec.stroke_spacing = Length(r, z["stroke_spacing"], zp + "/stroke_spacing");
    spec.point_spacing = ReadPointSpacing(r, z, zp, spec.point_spacing);
    if (z.contains("strokes")) spec.strokes = ReadInt(r, z["strokes"], zp + "/strokes", 1, 1000);
    const double length = spec.strokes * spec.stroke_height + (spec.strokes - 1) * M_PI * spec.stroke_spacing / 2;
    CheckPathPoints(r, zp, length, spec.point_spacing, "raise point_spacing or lower strokes or stroke_height");
    path = ZigZagPath(spec);
  } else if (pj.contains("pillar")) {
    path = PillarPath(ReadPillarPath(r, pj["pillar"], pp + "/pillar"));
  } else {
    const json& points = pj["points"];
    if (!points.is_array() || points.empty()) r.Fail(pp + "/points", "expected a non-empty array of [x, y, z]", &points);
    for (size_t i = 0; i < points.size(); ++i) {
      path.points.push_back(Position(r, points[i], pp + "/points/" + std::to_string(i)));
    }
  }
  return path;
}

void ReadMpcOptions(const Reader& r, const json& j, const std::string& path, MpcOptions* o) {
  if (j.contains("horizon")) o->horizon = ReadInt(r, j["horizon"], path + "/horizon", 1, MpcOptions::kMaxHorizon);
  if (j.contains("control_period")) {
    o->control_period = r.Positive(j["control_period"], path + "/control_period");
    if (o->control_period > 60) r.Fail(path + "/control_period", "must be <= 60 s", &j["control_period"]);
  }
  auto cost = [&](const char* key, double* value) {
    if (!j.contains(key)) return;
    *value = r.Number(j[key], path + "/" + key);
    if (*value < 0) r.Fail(path + "/" + key, "must be >= 0", &j[key]);
  };
  cost("cost_pos", &o->cost_pos);
  cost("cost_rot", &o->cost_rot);
  if (j.contains("cost_thrust")) {
    o->cost_thrust = r.Number(j["cost_thrust"], path + "/cost_thrust");
    const detail::JsonKey& key = detail::kMpcControllerKeys.At("cost_thrust");  // above 0
    if (!(o->cost_thrust > key.min)) {
      r.Fail(path + "/cost_thrust", std::string("must be > 0 (") + kCostThrustReason + ")", &j["cost_thrust"]);
    }
  }
  if (j.contains("velocity_limit")) o->velocity_limit = r.Positive(j["velocity_limit"], path + "/velocity_limit");
  if (j.contains("prediction") &&
      !ParseMpcPrediction(r.String(j["prediction"], path + "/prediction"), &o->prediction)) {
    r.Fail(path + "/prediction", "expected " + NameChoices(kMpcPredictionNames), &j["prediction"]);
  }
  if (j.contains("integrator")) {
    o->implicit_rk4 = r.Choice(j["integrator"], path + "/integrator", detail::kMpcControllerKeys.At("integrator")) == "irk4";
  }
  if (j.contains("solver")) {
    const json& s = j["solver"];
    const std::string sp = path + "/solver";
    r.Keys(s, sp, detail::kMpcSolverKeys);
    if (s.contains("qp")) o->qp_solver = r.Choice(s["qp"], sp + "/qp", detail::kMpcSolverKeys.At("qp"));
    if (s.contains("max_sqp_iterations")) {
      o->max_sqp_iterations = ReadInt(r, s["max_sqp_iterations"], sp + "/max_sqp_iterations", 1,
                                      MpcOptions::kMaxSqpIterations);
    }
    if (s.contains("hessian")) {
      const std::string hessian = r.Choice(s["hessian"], sp + "/hessian", detail::kMpcSolverKeys.At("hessian"));
      o->gauss_newton = hessian == "gauss_newton";
    }
    if (s.contains("max_line_search")) {
      o->max_line_search = ReadInt(r, s["max_line_search"], sp + "/max_line_search", 1, MpcOptions::kMaxLineSearch);
    }
  }
}

Scenario::Controller ReadController(const Reader& r, const json& j, const std::string& path) {
  Scenario::Controller c;
  c.path_json = path;
  const std::string type = j.is_object() && j.contains("type") ? r.String(j["type"], path + "/type") : "";
  if (type == "cascaded_pid") {
    r.Keys(j, path, detail::kPidControllerKeys);
  } else if (type == "mpc") {
    c.type = Scenario::Controller::Type::kMpc;
    r.Keys(j, path, detail::kMpcControllerKeys);
    c.reference = {ReferenceRule::Kind::kClosestAhead, 0.1, 1};
    c.pose_rate = 50;  // seed 002 section 4.2
    ReadMpcOptions(r, j, path, &c.mpc);
  } else {
    r.Fail(path + "/type", "expected \"cascaded_pid\" or \"mpc\"", j.is_object() && j.contains("type") ? &j["type"] : nullptr);
  }
  c.body = r.String(j["body"], path + "/body");
  if (j.contains("gains")) {
    const json& g = j["gains"];
    const std::string p = path + "/gains";
    r.Keys(g, p, detail::kPidGainsKeys);
    auto pid = [&](const char* key, double* kp, double* ki, double* kd) {
      if (!g.contains(key)) return;
      std::vector<double> v = r.Numbers(g[key], p + "/" + key, 3);
      for (size_t i = 0; i < 3; ++i) {
        if (v[i] < 0) r.Fail(p + "/" + key + "/" + std::to_string(i), "gains must be >= 0", &g[key][i]);
      }
      *kp = v[0], *ki = v[1], *kd = v[2];
    };
    pid("position", &c.gains.position_p, &c.gains.position_i, &c.gains.position_d);
    pid("attitude", &c.gains.attitude_p, &c.gains.attitude_i, &c.gains.attitude_d);
    pid("velocity", &c.gains.velocity_p, &c.gains.velocity_i, &c.gains.velocity_d);
    pid("rate", &c.gains.rate_p, &c.gains.rate_i, &c.gains.rate_d);
    if (g.contains("velocity_limit")) {
      std::vector<double> v = r.Numbers(g["velocity_limit"], p + "/velocity_limit", 6);
      for (size_t i = 0; i < 6; ++i) {
        if (!(v[i] > 0)) r.Fail(p + "/velocity_limit/" + std::to_string(i), "must be > 0", &g["velocity_limit"][i]);
        c.gains.velocity_limit[static_cast<Eigen::Index>(i)] = v[i];
      }
    }
  }
  c.path = ReadPath(r, j["path"], path + "/path");
  if (j.contains("orientation") && !c.path.orientations.empty()) {
    r.Fail(path + "/orientation", "the pillar path faces the pillar: its attitude turns along it, give no orientation",
           &j["orientation"]);
  }
  if (j.contains("orientation")) {
    std::vector<double> q = r.Numbers(j["orientation"], path + "/orientation", 4);
    Eigen::Quaterniond o(q[0], q[1], q[2], q[3]);
    if (o.norm() < 1e-9) r.Fail(path + "/orientation", "must not be zero", &j["orientation"]);
    c.path.orientation = o.normalized();
  }
  if (j.contains("acceptance_radius") && j.contains("reference")) {
    r.Fail(path + "/acceptance_radius", "give acceptance_radius or reference, not both", &j["acceptance_radius"]);
  }
  if (j.contains("acceptance_radius")) {
    c.reference.acceptance_radius = r.Positive(j["acceptance_radius"], path + "/acceptance_radius");
  }
  if (j.contains("reference")) {
    const json& ref = j["reference"];
    const std::string rp = path + "/reference";
    r.Keys(ref, rp, detail::kReferenceKeys);
    const std::string rule = r.Choice(ref["rule"], rp + "/rule", detail::kReferenceKeys.At("rule"));
    c.reference.kind = rule == "closest_ahead" ? ReferenceRule::Kind::kClosestAhead : ReferenceRule::Kind::kAcceptanceRadius;
    if (ref.contains("acceptance_radius")) {
      c.reference.acceptance_radius = r.Positive(ref["acceptance_radius"], rp + "/acceptance_radius");
    }
    if (ref.contains("lookahead")) c.reference.lookahead = ReadInt(r, ref["lookahead"], rp + "/lookahead", 0, 100000);
  }
  if (j.contains("pose_rate")) {
    c.pose_rate = r.Number(j["pose_rate"], path + "/pose_rate");
    if (c.pose_rate < 0 || c.pose_rate > 1e6) r.Fail(path + "/pose_rate", "must be in 0..1e6 Hz (0: every step)", &j["pose_rate"]);
  }
  if (j.contains("latency")) {
    c.latency = r.Number(j["latency"], path + "/latency");
    if (!(c.latency >= 0 && c.latency <= CommandDelay::kMaxLatency)) {
      r.Fail(path + "/latency", "must be in 0..10 s (the latency's bound)", &j["latency"]);
    }
  }
  if (j.contains("at_pose_rate")) {
    if (!j["at_pose_rate"].is_boolean()) r.Fail(path + "/at_pose_rate", "expected true or false", &j["at_pose_rate"]);
    c.pid_at_pose_rate = j["at_pose_rate"].get<bool>();
  }
  if (j.contains("stop_when_done")) {
    if (!j["stop_when_done"].is_boolean()) r.Fail(path + "/stop_when_done", "expected true or false", &j["stop_when_done"]);
    c.stop_when_done = j["stop_when_done"].get<bool>();
  }
  return c;
}

Scenario::MpcFactory& MpcFactorySlot() {
  static Scenario::MpcFactory factory = nullptr;
  return factory;
}

// The model's path: at most 1024 characters, no NUL, relative to the scenario's folder.
std::string ReadModelPath(const Reader& r, const json& root, const std::string& base_dir) {
  const std::string model_text = r.String(root["model"], "/model");
  if (model_text.size() > 1024) {
    r.Fail("/model", "a path of " + std::to_string(model_text.size()) + " characters; at most 1024");
  }
  if (const size_t nul = model_text.find('\0'); nul != std::string::npos) {
    r.Fail("/model", NulInPathRule(nul), &root["model"]);
  }
  std::filesystem::path model = model_text;
  if (model.is_relative() && !base_dir.empty()) model = std::filesystem::path(base_dir) / model;
  return model.lexically_normal().string();
}

// Top-level key `key`, when given: one of an enum's names (`parse` reads them), "expected
// a, b or c" otherwise.
template <class T, class Names>
void ReadNamed(const Reader& r, const json& root, const char* key, bool (*parse)(std::string_view, T*),
               const Names& names, std::optional<T>* out) {
  if (!root.contains(key)) return;
  const std::string path = std::string("/") + key;
  T value;
  if (!parse(r.String(root[key], path), &value)) r.Fail(path, "expected " + NameChoices(names), &root[key]);
  *out = value;
}

// How the run steps: duration, dt, integrator, engine, constraints, keyframe.
void ReadStepping(const Reader& r, const json& root, Scenario* s) {
  if (root.contains("duration")) s->duration = r.Positive(root["duration"], "/duration");
  if (root.contains("dt")) s->dt = r.Positive(root["dt"], "/dt");
  ReadNamed(r, root, "integrator", &ParseIntegrator, kIntegratorNames, &s->integrator);
  ReadNamed(r, root, "engine", &ParseEngine, kEngineNames, &s->engine);
  ReadNamed(r, root, "constraints", &ParseConstraintMethod, kConstraintMethodNames, &s->constraints);
  if (root.contains("keyframe")) {
    // bounded before the conversion (4294967296 wrapped to 0); the model's count is checked in Apply
    s->keyframe = ReadInt(r, root["keyframe"], "/keyframe", 0, std::numeric_limits<int>::max());
  }
}

// initial_state: the free bodies' poses and velocities, the joints' q and qd.
void ReadInitialState(const Reader& r, const json& init, Scenario* s) {
  r.Keys(init, "/initial_state", detail::kInitialStateKeys);
  if (init.contains("bodies")) {
    const json& bodies = init["bodies"];
    if (!bodies.is_object()) r.Fail("/initial_state/bodies", "expected an object keyed by body name", &bodies);
    for (auto it = bodies.begin(); it != bodies.end(); ++it) {
      const std::string p = "/initial_state/bodies/" + it.key();
      r.Keys(*it, p, detail::kBodyStateKeys);
      Scenario::BodyState b{it.key(), p, {}, {}, {}, {}};
      if (it->contains("position")) b.position = Position(r, (*it)["position"], p + "/position");
      if (it->contains("quaternion")) {
        std::vector<double> q = r.Numbers((*it)["quaternion"], p + "/quaternion", 4);
        Eigen::Vector4d v(q[0], q[1], q[2], q[3]);
        if (v.norm() < 1e-9) r.Fail(p + "/quaternion", "must not be zero", &(*it)["quaternion"]);
        b.quaternion = v.normalized();
      }
      if (it->contains("velocity")) b.velocity = r.Vector3((*it)["velocity"], p + "/velocity");
      if (it->contains("angular_velocity")) {
        b.angular_velocity = r.Vector3((*it)["angular_velocity"], p + "/angular_velocity");
      }
      s->bodies.push_back(b);
    }
  }
  if (init.contains("joints")) {
    const json& joints = init["joints"];
    if (!joints.is_object()) r.Fail("/initial_state/joints", "expected an object keyed by joint name", &joints);
    for (auto it = joints.begin(); it != joints.end(); ++it) {
      const std::string p = "/initial_state/joints/" + it.key();
      r.Keys(*it, p, detail::kJointStateKeys);
      Scenario::JointState js{it.key(), p, {}, {}};
      if (it->contains("q")) js.q = r.Number((*it)["q"], p + "/q");
      if (it->contains("qd")) js.qd = r.Number((*it)["qd"], p + "/qd");
      s->joints.push_back(js);
    }
  }
}

// controls: each actuator's control from its time on, in time order.
std::vector<Scenario::Control> ReadControls(const Reader& r, const json& list) {
  if (!list.is_array()) r.Fail("/controls", "expected an array", &list);
  std::vector<Scenario::Control> controls;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = "/controls/" + std::to_string(i);
    r.Keys(list[i], p, detail::kControlKeys);
    Scenario::Control c;
    c.path = p;
    c.actuator = r.String(list[i]["actuator"], p + "/actuator");
    c.value = r.Number(list[i]["value"], p + "/value");
    if (list[i].contains("time")) c.time = r.Number(list[i]["time"], p + "/time");
    controls.push_back(c);
  }
  std::stable_sort(controls.begin(), controls.end(),
                   [](const Scenario::Control& a, const Scenario::Control& b) { return a.time < b.time; });
  return controls;
}

// feedback and navigation: the filter runs with a navigation object or on the estimate.
void ReadNavigation(const Reader& r, const json& root, Scenario* s) {
  if (root.contains("feedback")) {
    s->feedback_estimate = r.Choice(root["feedback"], "/feedback", detail::kScenarioKeys.At("feedback")) == "estimate";
  }
  if (!root.contains("navigation") && !s->feedback_estimate) return;
  Scenario::Navigation nav;
  if (root.contains("navigation")) {
    const json& n = root["navigation"];
    r.Keys(n, "/navigation", detail::kNavigationKeys);
    if (n.contains("body")) nav.body = r.String(n["body"], "/navigation/body");
    NavigationSettings& g = nav.settings;
    for (auto [key, value] : {std::pair{"initial_position_sd", &g.initial_position_sd},
                              std::pair{"initial_velocity_sd", &g.initial_velocity_sd},
                              std::pair{"initial_attitude_sd", &g.initial_attitude_sd},
                              std::pair{"initial_current_sd", &g.initial_current_sd},
                              std::pair{"current_walk", &g.current_walk}}) {
      if (n.contains(key)) *value = r.Positive(n[key], std::string("/navigation/") + key);
    }
    if (n.contains("acoustic")) g.use_acoustic = r.Bool(n["acoustic"], "/navigation/acoustic");
  }
  s->navigation = nav;
}

// wrenches: scheduled forces and torques (a cross-check scenario's default to the body
// frame and the centre of mass).
std::vector<Scenario::Wrench> ReadWrenches(const Reader& r, const json& list, bool crosscheck) {
  if (!list.is_array()) r.Fail("/wrenches", "expected an array", &list);
  std::vector<Scenario::Wrench> wrenches;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = "/wrenches/" + std::to_string(i);
    r.Keys(list[i], p, detail::kWrenchKeys);
    Scenario::Wrench w;
    w.path = p;
    w.body_frame = crosscheck;
    w.at_com = crosscheck;
    if (list[i].contains("at")) {
      w.at_com = r.Choice(list[i]["at"], p + "/at", detail::kWrenchKeys.At("at")) == "com";
    }
    w.body = r.String(list[i]["body"], p + "/body");
    if (list[i].contains("start")) w.start = r.Number(list[i]["start"], p + "/start");
    if (list[i].contains("end")) w.end = r.Number(list[i]["end"], p + "/end");
    if (!(w.end > w.start)) r.Fail(p + "/end", "must be later than start", &list[i]["end"]);
    if (list[i].contains("force")) w.force = r.Vector3(list[i]["force"], p + "/force");
    if (list[i].contains("torque")) w.torque = r.Vector3(list[i]["torque"], p + "/torque");
    if (list[i].contains("frame")) {
      w.body_frame = r.Choice(list[i]["frame"], p + "/frame", detail::kWrenchKeys.At("frame")) == "body";
    }
    wrenches.push_back(w);
  }
  return wrenches;
}

}  // namespace


Scenario Scenario::FromFile(const std::string& path) {
  CheckNoNul(path);
  // a regular file of bounded size: a device (/dev/zero, or a link to it) never ends, and
  // reading it whole ended in std::bad_alloc, or took all the memory there was
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    throw ConfigError(Excerpt(path) + ": not a regular file (a scenario JSON file is expected)");
  }
  if (const std::uintmax_t size = std::filesystem::file_size(path, ec); !ec && size > kMaxScenarioBytes) {
    throw ConfigError(Excerpt(path) + ": the scenario file has " + std::to_string(size) + " bytes; at most " +
                      std::to_string(kMaxScenarioBytes >> 20) + " MiB");
  }
  std::ifstream in(path);
  if (!in) throw ConfigError(Excerpt(path) + ": cannot open the scenario file");
  std::stringstream text;
  text << in.rdbuf();
  const std::string base = std::filesystem::path(path).parent_path().string();
  return FromString(text.str(), path, base);
}

Scenario Scenario::FromString(const std::string& text, const std::string& source,
                              const std::string& base_dir) {
  Reader r(source);
  const json root = detail::ParseJson(text, source);
  r.Keys(root, "", detail::kScenarioKeys);
  if (root.contains("$schema")) r.String(root["$schema"], "/$schema");  // for editors; nothing else
  Scenario s;
  s.source = source;
  // a cross-check scenario (nereid crosscheck's keys): its wrenches default to the body
  // frame and the centre of mass
  bool crosscheck = false;
  for (const detail::JsonKey& k : detail::kScenarioKeys.keys) {
    crosscheck |= k.crosscheck && root.contains(std::string(k.name));
  }
  if (crosscheck) s.crosscheck = ReadCrosscheck(r, root);
  s.model = ReadModelPath(r, root, base_dir);
  ReadStepping(r, root, &s);
  if (root.contains("current")) s.current = ReadCurrent(r, root["current"], "/current");
  if (root.contains("waves")) s.waves = ReadWaves(r, root["waves"], "/waves");
  if (root.contains("initial_state")) ReadInitialState(r, root["initial_state"], &s);
  if (root.contains("controls")) s.controls = ReadControls(r, root["controls"]);

  if (root.contains("controller") && IsVmsController(root["controller"])) {
    s.vms_controller = ReadVmsController(root["controller"], source, "/controller");
  } else if (root.contains("controller")) {
    s.controller = ReadController(r, root["controller"], "/controller");
  }

  if (root.contains("scene")) s.scene = ReadScene(r, root["scene"], "/scene", base_dir);
  if (root.contains("stabilize")) s.stabilize = ReadStabilize(r, root["stabilize"], "/stabilize");
  CheckWaterDepth(r, s, root);
  if (root.contains("seed")) {
    s.seed = static_cast<uint64_t>(ReadInt(r, root["seed"], "/seed", 0, std::numeric_limits<int>::max()));
  }
  ReadNavigation(r, root, &s);
  if (root.contains("wrenches")) s.wrenches = ReadWrenches(r, root["wrenches"], crosscheck);
  return s;
}

void Scenario::Apply(Simulation& sim) {
  const mjModel* m = sim.model();
  mjData* d = sim.data();
  Reader r(source);
  if (keyframe && *keyframe >= m->nkey) {
    r.Fail("/keyframe", "the model has " + std::to_string(m->nkey) + " keyframes", nullptr);
  }
  sim.Reset(keyframe.value_or(m->nkey > 0 ? 0 : -1));
  if (current) {
    try {
      sim.SetCurrent(*current);
    } catch (const ConfigError& e) {
      r.Fail("/current", e.what());
    }
  }
  if (waves) {
    CurrentField* field = sim.current();
    if (field) {
      field->SetWaves(*waves);
    } else if (!waves->calm()) {
      r.Fail("/waves", "the model " + sim.source() + " has no nereid.current instance to carry the waves; add "
                       "<extension><plugin plugin=\"nereid.current\"><instance name=\"current\"/></plugin></extension>");
    }
  }
  for (const BodyState& b : bodies) {
    const int id = mj_name2id(m, mjOBJ_BODY, b.name.c_str());
    if (id < 0) r.Fail(b.path, "no body named '" + Excerpt(b.name) + "' in " + sim.source());
    const int jnt = m->body_jntadr[id];
    if (jnt < 0 || m->jnt_type[jnt] != mjJNT_FREE) {
      r.Fail(b.path, "body '" + Excerpt(b.name) + "' has no free joint");
    }
    mjtNum* qpos = d->qpos + m->jnt_qposadr[jnt];
    mjtNum* qvel = d->qvel + m->jnt_dofadr[jnt];
    if (b.position) for (int i = 0; i < 3; ++i) qpos[i] = (*b.position)[i];
    if (b.quaternion) for (int i = 0; i < 4; ++i) qpos[3 + i] = (*b.quaternion)[i];
    if (b.velocity) for (int i = 0; i < 3; ++i) qvel[i] = (*b.velocity)[i];
    if (b.angular_velocity) for (int i = 0; i < 3; ++i) qvel[3 + i] = (*b.angular_velocity)[i];
  }
  for (const JointState& js : joints) {
    const int id = mj_name2id(m, mjOBJ_JOINT, js.name.c_str());
    if (id < 0) r.Fail(js.path, "no joint named '" + Excerpt(js.name) + "' in " + sim.source());
    if (m->jnt_type[id] != mjJNT_HINGE && m->jnt_type[id] != mjJNT_SLIDE) {
      r.Fail(js.path, "joint '" + Excerpt(js.name) + "' is not a hinge or slide joint");
    }
    if (js.q) d->qpos[m->jnt_qposadr[id]] = *js.q;
    if (js.qd) d->qvel[m->jnt_dofadr[id]] = *js.qd;
  }
  control_ids_.clear();
  for (const Control& c : controls) {
    const int id = mj_name2id(m, mjOBJ_ACTUATOR, c.actuator.c_str());
    if (id < 0) r.Fail(c.path + "/actuator", "no actuator named '" + Excerpt(c.actuator) + "' in " + sim.source());
    if (m->actuator_ctrlnum[id] != 1) {
      r.Fail(c.path + "/actuator", "actuator '" + Excerpt(c.actuator) + "' takes " +
                                       std::to_string(m->actuator_ctrlnum[id]) +
                                       " controls; a scenario control sets an actuator with exactly one");
    }
    control_ids_.push_back(id);
  }
  wrench_ids_.clear();
  for (const Wrench& w : wrenches) {
    const int id = mj_name2id(m, mjOBJ_BODY, w.body.c_str());
    if (id <= 0) r.Fail(w.path + "/body", "no body named '" + Excerpt(w.body) + "' in " + sim.source());
    wrench_ids_.push_back(id);
  }
  ApplyInputs(sim, d->time);
  sim.Forward();
}

void Scenario::SetMpcFactory(MpcFactory factory) { MpcFactorySlot() = factory; }

std::unique_ptr<PathController> Scenario::MakeController(const Simulation& sim, int* body) const {
  if (!controller) return nullptr;
  Reader r(source);
  const mjModel* m = sim.model();
  const std::string& p = controller->path_json;
  *body = mj_name2id(m, mjOBJ_BODY, controller->body.c_str());
  if (*body <= 0) r.Fail(p + "/body", "no body named '" + Excerpt(controller->body) + "' in " + sim.source());
  if (FreeJointDof(m, *body) < 0) r.Fail(p + "/body", "body '" + Excerpt(controller->body) + "' has no free joint");
  if (FindThrusters(m, *body).actuators.empty()) {
    r.Fail(p + "/body", "body '" + Excerpt(controller->body) + "' has no nereid.thruster actuators to allocate to");
  }
  if (controller->type == Controller::Type::kMpc) {
    if (!MpcFactorySlot()) {
      r.Fail(p + "/type", "this program was built without the MPC (libnereid_mpc; CMake NEREID_BUILD_MPC)");
    }
    try {
      return MpcFactorySlot()(sim, *body, *controller);
    } catch (const ConfigError& e) {
      r.Fail(p, e.what());
    }
  }
  const double period = controller->pose_rate > 0 ? 1.0 / controller->pose_rate : 0.0;
  return std::make_unique<PathFollower>(controller->path, CascadedPid(sim, *body, controller->gains),
                                        controller->reference, period, controller->latency,
                                        controller->pid_at_pose_rate);
}

std::vector<Stabilize> Scenario::MakeStabilizers(const Simulation& sim) const {
  std::vector<Stabilize> out;
  for (const StabilizeSpec& spec : stabilize) out.emplace_back(sim, spec, source);
  return out;
}

void Scenario::ApplyInputs(Simulation& sim, double t) const {
  const mjModel* m = sim.model();
  mjData* d = sim.data();
  for (size_t i = 0; i < controls.size() && i < control_ids_.size(); ++i) {
    if (controls[i].time <= t) d->ctrl[m->actuator_ctrladr[control_ids_[i]]] = controls[i].value;
  }
  if (wrenches.empty()) return;
  for (int id : wrench_ids_) mju_zero(d->xfrc_applied + 6 * id, 6);
  for (size_t i = 0; i < wrenches.size() && i < wrench_ids_.size(); ++i) {
    const Wrench& w = wrenches[i];
    if (t < w.start || t >= w.end) continue;
    const int id = wrench_ids_[i];
    Vec3 f = w.force, tau = w.torque;
    if (w.body_frame) {
      const Mat3 R = BodyRotation(d, id);
      f = R * f;
      tau = R * tau;
    }
    // xfrc_applied acts at the centre of mass; a body-origin force is the same force plus
    // the moment of the offset
    if (!w.at_com) {
      const Vec3 offset(d->xipos[3 * id] - d->xpos[3 * id], d->xipos[3 * id + 1] - d->xpos[3 * id + 1],
                        d->xipos[3 * id + 2] - d->xpos[3 * id + 2]);
      tau -= offset.cross(f);
    }
    for (int k = 0; k < 3; ++k) {
      d->xfrc_applied[6 * id + k] += f[k];
      d->xfrc_applied[6 * id + 3 + k] += tau[k];
    }
  }
}

}  // namespace nereid
