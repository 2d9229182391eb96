// Copyright Nereid authors.
// A scenario's controllers: "controller" (the path follower's PID or the MPC, and its
// path) and "stabilize" (docs/scenarios.md).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "nereid/error.h"
#include "scenario_read.h"

namespace nereid::scenario_read {
namespace {

// The most points a scenario's path may have.
constexpr long kMaxPathPoints = 1000000;

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

}  // namespace

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

}  // namespace nereid::scenario_read
