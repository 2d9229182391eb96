// Copyright Nereid authors.
// The scenario's JSON objects, one table each (json_keys.h). The docs' key tables list
// the same keys in the same order (tests/engine/json_keys_test.cc).
#include "json_keys.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "nereid/current.h"
#include "nereid/mpc.h"
#include "nereid/scenario.h"
#include "nereid/simulation.h"
#include "nereid/uk.h"

#include <nlohmann/json.hpp>

namespace nereid::detail {

const JsonKey* JsonObject::Find(std::string_view name) const {
  for (const JsonKey& k : keys) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

const JsonKey& JsonObject::At(std::string_view name) const {
  if (const JsonKey* k = Find(name)) return *k;
  throw std::logic_error("json_keys: no key '" + std::string(name) + "' in " + std::string(id));
}

JsonKey Key(std::string_view name, JsonType type) {
  JsonKey k;
  k.name = name;
  k.type = type;
  return k;
}

JsonKey Enum(std::string_view name, std::vector<std::string> allowed, JsonType type) {
  JsonKey k = Key(name, type);
  k.allowed = std::move(allowed);
  return k;
}

JsonKey Key(std::string_view name, JsonType type, std::vector<const JsonObject*> objects) {
  JsonKey k = Key(name, type);
  k.objects = std::move(objects);
  return k;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];  // row[i - 1][j - 1]
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string_view NearestKey(const JsonObject& keys, std::string_view name) {
  auto lower = [](std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string typed = lower(name);
  std::string_view best;
  size_t best_distance = 0;
  for (const JsonKey& k : keys.keys) {
    const size_t limit = std::min<size_t>(k.name.size() - 1, k.name.size() <= 5 ? 1 : k.name.size() <= 9 ? 2 : 3);
    // the lengths alone differ by more than the limit (a 1000-character key costs nothing)
    if (typed.size() > k.name.size() + limit || typed.size() + limit < k.name.size()) continue;
    const size_t d = EditDistance(typed, lower(k.name));
    if (d <= limit && (best.empty() || d < best_distance)) {
      best = k.name;
      best_distance = d;
    }
  }
  return best;
}

namespace {

// a bound as people write it: 0.001, 60, 1e5, 1e9
std::string Number(double x) {
  if (x != 0 && std::abs(x) >= 1e4) {
    const double e = std::log10(std::abs(x));
    if (e == std::floor(e)) return std::string(x < 0 ? "-" : "") + "1e" + std::to_string(static_cast<int>(e));
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", x);
  return text;
}

std::string RangeText(const JsonKey& k) {
  const bool low = std::isfinite(k.min), high = std::isfinite(k.max);
  if (low && high && !k.above) return " in " + Number(k.min) + ".." + Number(k.max);
  std::string out;
  if (low) out += (k.above ? " > " : " ≥ ") + Number(k.min);
  if (high) out += std::string(low ? "," : "") + " ≤ " + Number(k.max);
  return out;
}

// "`a`, `b` or `c`"
std::string Choices(const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
    out += "`" + values[i] + "`";
  }
  return out;
}

}  // namespace

std::string TypeText(const JsonKey& k) {
  using T = JsonType;
  if (!k.type_doc.empty()) return std::string(k.type_doc);
  const std::string n = std::to_string(k.count);
  switch (k.type) {
    case T::kAny: return "any";
    case T::kNumber: return "number" + RangeText(k);
    case T::kInteger: return "integer" + RangeText(k);
    case T::kBool: return "boolean";
    case T::kString: return "string";
    case T::kEnum: return Choices(k.allowed);
    case T::kNumbers: return "array of " + n + " numbers" + RangeText(k);
    case T::kRows: return "non-empty array of rows of " + n + " numbers";
    case T::kStrings:
      if (k.count > 0) return "array of " + n + " strings";
      if (k.max_items == 0) return "array of strings";
      return (k.min_items > 0 ? "array of " + std::to_string(k.min_items) + " to " : "array of at most ") +
             std::to_string(k.max_items) + " strings";
    case T::kBools: return "array of " + n + " booleans";
    case T::kEnums: return "non-empty array of " + Choices(k.allowed);
    case T::kObject: return "object";
    case T::kObjects: return k.max_items > 0 ? "array (≤ " + std::to_string(k.max_items) + ")" : "array";
    case T::kObjectMap: return "object keyed by name";
    case T::kSignal: return "SIGNAL";
  }
  return "?";
}

std::string DefaultText(const JsonKey& k) {
  if (!k.default_doc.empty()) return std::string(k.default_doc);
  if (k.required) return "**required**";
  if (!k.fallback.empty()) return "`" + std::string(k.fallback) + "`";
  return "none";
}

namespace {

using T = JsonType;

constexpr double kCoordinate = 1e5;  // m: positions and lengths (kMaxCoordinate, scenario_read.h)
constexpr int kMaxEntries = 64;      // stabilize entries, thruster names, VMS loops

// ---- the scenario's own objects (docs/scenarios.md) ----

JsonKey VectorKey(std::string_view name, std::string_view doc) {
  return Key(name, T::kNumbers).Count(3).TypeDoc(doc);
}

}  // namespace

const JsonObject kBodyStateKeys{
    "initial_state.bodies",
    {
        VectorKey("position", "[x, y, z]").Range(-kCoordinate, kCoordinate).Units("m").DefaultDoc("the reset state's")
            .Means("world position of the body origin"),
        Key("quaternion", T::kNumbers).Count(4).TypeDoc("[w, x, y, z]").DefaultDoc("the reset state's")
            .Means("world-from-body orientation, normalised (not zero)"),
        VectorKey("velocity", "[vx, vy, vz]").Units("m/s").DefaultDoc("the reset state's")
            .Means("world-frame linear velocity (free-joint qvel[0:3])"),
        VectorKey("angular_velocity", "[wx, wy, wz]").Units("rad/s").DefaultDoc("the reset state's")
            .Means("body-frame angular velocity (free-joint qvel[3:6])"),
    },
    false,
    "a body with a free joint: its state after the reset"};

const JsonObject kJointStateKeys{
    "initial_state.joints",
    {
        Key("q", T::kNumber).Units("rad (hinge) or m (slide)").DefaultDoc("the reset state's").Means("position"),
        Key("qd", T::kNumber).Units("rad/s or m/s").DefaultDoc("the reset state's").Means("velocity"),
    },
    false,
    "a hinge or slide joint: its state after the reset"};

const JsonObject kInitialStateKeys{
    "initial_state",
    {
        Key("bodies", T::kObjectMap, {&kBodyStateKeys}).Means("free bodies' states, keyed by body name"),
        Key("joints", T::kObjectMap, {&kJointStateKeys}).Means("hinge and slide joints' states, keyed by joint name"),
    },
    false,
    "overrides of the reset state"};

const JsonObject kCurrentKeys{
    "current",
    {
        VectorKey(CurrentField::kKeys[0], "[vx, vy, vz]").Units("m/s").DefaultDoc("give exactly one")
            .Means("constant world-frame current"),
        Key(CurrentField::kKeys[1], T::kRows).Count(4).TypeDoc("non-empty array of [t, vx, vy, vz] rows")
            .Units("s, m/s").DefaultDoc("give exactly one")
            .Means("piecewise linear in time, knots strictly increasing"),
        Key(CurrentField::kKeys[2], T::kRows).Count(4).TypeDoc("non-empty array of [depth, vx, vy, vz] rows")
            .Units("m (positive down, ≥ 0), m/s").DefaultDoc("give exactly one")
            .Means("piecewise linear in depth = -z, knots strictly increasing"),
    },
    true,
    "the water current for the whole run (replaces the model's nereid.current field)"};

// the nereid.current plugin's wave keys, the same names, defaults and rules
// (plugins/current/README.md "Waves"; checked equal, ranges included, by tests/engine/json_keys_test.cc)
const JsonObject kWavesKeys{
    "waves",
    {
        Enum("wave_type", {"\"none\"", "\"regular\"", "\"jonswap\"", "\"pm\""}).Default("\"none\"")
            .Means("none (calm), a regular Airy wave, or a JONSWAP or Pierson-Moskowitz irregular sea"),
        Key("wave_height", T::kNumber).Above(0).Units("m").DefaultDoc("**required** with waves")
            .Means("H crest to trough (regular), H_s (jonswap, pm); H / L at most 1/7"),
        Key("wave_period", T::kNumber).Above(0).Units("s").DefaultDoc("**required** with waves")
            .Means("T (regular), the peak period T_p (jonswap, pm)"),
        Key("wave_direction", T::kNumber).Units("rad").Default("0")
            .Means("the direction the waves travel towards, (cos b, sin b, 0); a sea's mean direction"),
        Key("water_depth", T::kNumber).AtLeast(0).Units("m").Default("0")
            .Means("the waves' water depth; 0: deep water; not shallower than the scene's seabed"),
        Key("wave_gamma", T::kNumber).Range(1, 7).Default("3.3").Means("JONSWAP's peak enhancement (jonswap only)"),
        Key("wave_spreading", T::kNumber).Range(0, 100).Default("0")
            .Means("exponent s of the cos^2s directional spreading; 0: none (jonswap, pm)"),
        Key("wave_components", T::kInteger).Range(1, 1024).Default("64")
            .Means("the sea's number of components (jonswap, pm)"),
        Key("wave_seed", T::kInteger).Range(0, 9007199254740992.0).TypeDoc("integer in 0..2^53").Default("1")
            .Means("the seed of the phases and directions (jonswap, pm)"),
    },
    false,
    "surface waves added to the current (sets the model's nereid.current waves)"};

const JsonObject kControlKeys{
    "controls",
    {
        Key("time", T::kNumber).Units("s").Default("0").Means("from when it applies"),
        Key("actuator", T::kString).Required().Means("actuator name in the model"),
        Key("value", T::kNumber).Required().Units("actuator's").Means("the ctrl value"),
    },
    false,
    "the actuator's control (ctrl[actuator_ctrladr]) = value from `time` on"};

const JsonObject kWrenchKeys{
    "wrenches",
    {
        Key("body", T::kString).Required().Means("body name (not the world body)"),
        Key("start", T::kNumber).Units("s").Default("0").Means("window start (inclusive)"),
        Key("end", T::kNumber).TypeDoc("number > `start`").Units("s").Default("1e300").DefaultDoc("`1e300` (no end)")
            .Means("window end (exclusive)"),
        VectorKey("force", "[fx, fy, fz]").Units("N").Default("[0, 0, 0]").Means("force"),
        VectorKey("torque", "[tx, ty, tz]").Units("N m").Default("[0, 0, 0]").Means("torque"),
        Enum("frame", {"\"body\"", "\"world\""}).Default("\"world\"")
            .DefaultDoc("`\"world\"` (`\"body\"` in a cross-check scenario)")
            .Means("frame of force and torque: the MJCF body frame or the world"),
        Enum("at", {"\"origin\"", "\"com\""}).Default("\"origin\"")
            .DefaultDoc("`\"origin\"` (`\"com\"` in a cross-check scenario)")
            .Means("the point the wrench acts at: the body origin or its centre of mass"),
    },
    false,
    "a force and torque on a body while start <= t < end"};

const JsonObject kStabilizeGainsKeys{
    "stabilize.gains",
    {
        Key("depth_p", T::kNumber).Above(0).Units("1/s").Default("1.0").Means("depth error -> climb-rate command"),
        Key("climb_p", T::kNumber).Above(0).Units("1/s").Default("4.0").Means("climb-rate error -> heave acceleration"),
        Key("angle_p", T::kNumber).Above(0).Units("1/s").Default("6.0")
            .Means("attitude error -> body-rate command (ArduSub's default angle P for subs)"),
        Key("rate_p", T::kNumber).Above(0).Units("1/s").Default("30.0").Means("body-rate error -> angular acceleration"),
        Key("max_climb_rate", T::kNumber).Above(0).Units("m/s").Default("0.5").Means("limit of the climb-rate command"),
        Key("max_rate", T::kNumber).Above(0).Units("rad/s").Default("1.0").Means("limit of the body-rate commands"),
    },
    false,
    "the hold's proportional gains"};

const JsonObject kStabilizeKeys{
    "stabilize",
    {
        Key("body", T::kString).Required()
            .Means("a body with a free joint and nereid.thruster actuators; one hold per body"),
        Key("depth", T::kNumber).Range(-kCoordinate, kCoordinate).Units("m (below z = 0)")
            .DefaultDoc("the body's depth at the start").Means("depth to hold"),
        Key("thrusters", T::kStrings).MinItems(1).MaxItems(kMaxEntries)
            .DefaultDoc("those whose thrust axis is within 25° of the body's z axis")
            .Means("the vertical thrusters: actuator names on the body"),
        Key("gains", T::kObject, {&kStabilizeGainsKeys}).DefaultDoc("as below").Means("the loops' gains"),
    },
    false,
    "a depth, roll and pitch hold on one vehicle's vertical thrusters"};

const JsonObject kWallKeys{
    "scene.wall",
    {
        Key("face_x", T::kNumber).Range(-kCoordinate, kCoordinate).Required().Units("m")
            .Means("the wall's face is the plane x = face_x, the water on its -x side"),
        Key("y", T::kNumbers).Count(2).Range(-kCoordinate, kCoordinate).TypeDoc("[y_min, y_max]").Units("m")
            .Default("[-10, 10]").Means("its extent along the face, y_min < y_max"),
        Key("bottom", T::kNumber).Range(-kCoordinate, kCoordinate).Units("m").DefaultDoc("the seabed")
            .Means("z of its foot; below top"),
        Key("top", T::kNumber).Range(-kCoordinate, kCoordinate).Units("m").Default("1").Means("z of its crest"),
        Key("thickness", T::kNumber).Above(0).AtMost(kCoordinate).Units("m").Default("1")
            .Means("depth of the wall behind its face"),
    },
    false,
    "a vertical quay wall: a box in the physics"};

const JsonObject kPillarKeys{
    "scene.pillars",
    {
        Key("center", T::kNumbers).Count(2).Range(-kCoordinate, kCoordinate).TypeDoc("[x, y]").Required().Units("m")
            .Means("its axis, a vertical line"),
        Key("radius", T::kNumber).Above(0).AtMost(kCoordinate).Required().Units("m").Means("its radius"),
        Key("bottom", T::kNumber).Range(-kCoordinate, kCoordinate).Units("m").DefaultDoc("the seabed")
            .Means("z of its foot; below top"),
        Key("top", T::kNumber).Range(-kCoordinate, kCoordinate).Units("m").Default("1").Means("z of its top"),
    },
    false,
    "a vertical cylinder (a pier's pillar, a pile)"};

const JsonObject kTerrainKeys{
    "scene.terrain",
    {
        Key("file", T::kString).Required().Means("a grey-scale PNG or a CSV grid of heights, relative to the scenario"),
        Key("center", T::kNumbers).Count(2).Range(-kCoordinate, kCoordinate).TypeDoc("[x, y]").Default("[0, 0]")
            .Units("m").Means("the grid's centre"),
        Key("size", T::kNumbers).Count(2).Range(0, kCoordinate).TypeDoc("[half_x, half_y]").Required().Units("m")
            .Means("its half extents along x and y, each > 0"),
        Key("depth", T::kNumbers).Count(2).Range(-kCoordinate, kCoordinate).TypeDoc("[deepest, shallowest]")
            .Required().Units("m (below z = 0)").Means("the depths of the lowest and the highest sample"),
    },
    false,
    "a seabed height field from a file"};

const JsonObject kSceneKeys{
    "scene",
    {
        Key("wall", T::kObject, {&kWallKeys}).Means("a vertical wall: a box"),
        Key("seabed_depth", T::kNumber).Above(0).AtMost(kCoordinate).Units("m").DefaultDoc("the model's floor")
            .Means("a flat seabed: a horizontal plane at this depth"),
        Key("terrain", T::kObject, {&kTerrainKeys}).Means("a seabed height field"),
        Key("pillars", T::kObjects, {&kPillarKeys}).MaxItems(kMaxEntries).Means("vertical cylinders"),
        Key("solid", T::kBool).Default("true").Means("false: drawn by nereid-view only, never simulated"),
        Key("friction", T::kNumber).Above(0).AtMost(10).Default("0.5")
            .Means("sliding friction of a vehicle on the scene (aluminium or plastic on concrete)"),
        Key("solref", T::kNumbers).Count(2).Range(0, 1e3).Default("[0.02, 1]")
            .Means("contact softness, MuJoCo's solref [time constant s, damping ratio], each > 0"),
    },
    false,
    "the scene around the vehicles: collision geometry in the physics, drawn by nereid-view"};

// ---- nereid crosscheck's keys (docs/crosscheck.md) ----

const JsonObject kWeldKeys{
    "weld",
    {
        Key("solref", T::kNumbers).Count(2).Default("[0.02, 1]").Means("the welds' MuJoCo solref"),
        Key("solimp", T::kNumbers).Count(5).Default("[0.9, 0.95, 0.001, 0.5, 2]").Means("the welds' MuJoCo solimp"),
    },
    false,
    "nereid crosscheck: the MuJoCo welds' solver settings"};

const JsonObject kUkKeys{
    "uk",
    {
        Key("baumgarte_omega", T::kNumber).Units("rad/s").Default("10").Means("Baumgarte frequency (<= 0: off)"),
        Key("baumgarte_zeta", T::kNumber).Default("1").Means("Baumgarte damping ratio"),
        Key("project", T::kBool).Default("true").Means("project positions and velocities after each step"),
        Key("dense", T::kBool).Default("false").Means("dense SVD solve instead of the block-sparse one"),
    },
    false,
    "nereid crosscheck: Udwadia-Kalaba's settings"};

const JsonObject kPeakKeys{
    "peak",
    {
        Key("body", T::kString).Means("report the first extremum of this body's angle"),
        Enum("axis", {"\"x\"", "\"y\"", "\"z\""}).Default("\"x\"").Means("roll (x), pitch (y) or yaw (z)"),
    },
    false,
    "nereid crosscheck: the angle whose first peak is reported"};

// ---- the path controllers (docs/scenarios.md, docs/mpc.md) ----

const JsonObject kZigZagKeys{
    "controller.path.zigzag",
    {
        Key("wall_offset", T::kNumber).Range(-kCoordinate, kCoordinate).Units("m").Default("0").Means("x of the path"),
        Key("y0", T::kNumber).Range(-kCoordinate, kCoordinate).Units("m").Default("0").Means("y of the first stroke"),
        Key("z_top", T::kNumber).Range(-kCoordinate, kCoordinate).Units("m").Default("-1").Means("top of the strokes"),
        Key("stroke_height", T::kNumber).Above(0).AtMost(kCoordinate).Units("m").Default("3").Means("length of a stroke"),
        Key("stroke_spacing", T::kNumber).Above(0).AtMost(kCoordinate).Units("m").Default("0.5")
            .Means("distance between strokes along +y, the diameter of the turns"),
        Key("strokes", T::kInteger).Range(1, 1000).Default("6").Means("number of strokes"),
        Key("point_spacing", T::kNumber).AtLeast(0.001).Units("m").Default("0.1")
            .Means("distance between path points (not with num)"),
        Key("num", T::kInteger).Range(1, 1000).Units("1/m").DefaultDoc("none (`point_spacing`)")
            .Means("path points per metre, seed 002 Table 6.2 (not with point_spacing)"),
    },
    false,
    "seed 002's zig-zag: vertical strokes along a wall, down first, joined by half circles"};

const JsonObject kPillarPathKeys{
    "controller.path.pillar",
    {
        Key("center", T::kNumbers).Count(2).Range(-kCoordinate, kCoordinate).TypeDoc("[x, y]").Required().Units("m")
            .Means("the pillar's axis, a vertical line"),
        Key("radius", T::kNumber).Above(0).AtMost(kCoordinate).Required().Units("m").Means("the pillar's radius"),
        Key("standoff", T::kNumber).Above(0).AtMost(kCoordinate).Required().Units("m")
            .Means("distance from the pillar's surface to the path (helix radius: radius + standoff)"),
        Key("z_start", T::kNumber).Range(-kCoordinate, kCoordinate).Required().Units("m").Means("z of the first point"),
        Key("z_end", T::kNumber).Range(-kCoordinate, kCoordinate).Required().Units("m").Means("z of the last point"),
        Key("turns", T::kNumber).Above(0).AtMost(1000).Default("1")
            .Means("turns around the pillar (not with pitch)"),
        Key("pitch", T::kNumber).Above(0).AtMost(kCoordinate).Units("m").DefaultDoc("none (`turns`)")
            .Means("depth change per turn, turns = |z_end - z_start| / pitch (not with turns)"),
        Enum("direction", {"\"ccw\"", "\"cw\""}).Default("\"ccw\"")
            .Means("counter-clockwise or clockwise seen from above"),
        Key("start_angle", T::kNumber).Range(-360, 360).Units("deg").Default("180")
            .Means("bearing of the first point from the axis, from +x towards +y (180: on the -x side, facing +x)"),
        Key("point_spacing", T::kNumber).AtLeast(0.001).Units("m").Default("0.1")
            .Means("distance between path points along the helix (not with num)"),
        Key("num", T::kInteger).Range(1, 1000).Units("1/m").DefaultDoc("none (`point_spacing`)")
            .Means("path points per metre (not with point_spacing)"),
    },
    false,
    "a helix around a vertical pillar, the vehicle facing the pillar's axis"};

const JsonObject kPathKeys{
    "controller.path",
    {
        Key("zigzag", T::kObject, {&kZigZagKeys}).DefaultDoc("give exactly one").Means("a zig-zag along a wall"),
        Key("pillar", T::kObject, {&kPillarPathKeys}).DefaultDoc("give exactly one")
            .Means("a helix around a pillar, facing it"),
        Key("points", T::kRows).Count(3).Range(-kCoordinate, kCoordinate).TypeDoc("non-empty array of [x, y, z]")
            .Units("m").DefaultDoc("give exactly one").Means("world positions"),
    },
    true,
    "the path to follow"};

const JsonObject kReferenceKeys{
    "controller.reference",
    {
        Enum("rule", {"\"acceptance_radius\"", "\"closest_ahead\""}).Required()
            .Means("advance within acceptance_radius of the current point, or lookahead past the closest point"),
        Key("acceptance_radius", T::kNumber).Above(0).Units("m").Default("0.1")
            .Means("distance at which the next point becomes the reference; also the completion distance"),
        Key("lookahead", T::kInteger).Range(0, 100000).DefaultDoc("`2` (`1` for the MPC)")
            .Means("closest_ahead: points past the closest one"),
    },
    false,
    "how the reference point is chosen"};

const JsonObject kPidGainsKeys{
    "controller.gains",
    {
        Key("position", T::kNumbers).Count(3).AtLeast(0).TypeDoc("[P, I, D]").Default("[3, 0.3, 0.5]")
            .Means("pose loop, linear: position error -> commanded velocity"),
        Key("attitude", T::kNumbers).Count(3).AtLeast(0).TypeDoc("[P, I, D]").Default("[3, 0.3, 0.5]")
            .Means("pose loop, angular: attitude error -> commanded rate"),
        Key("velocity", T::kNumbers).Count(3).AtLeast(0).TypeDoc("[P, I, D]").Default("[8, 2, 0.2]")
            .Means("velocity loop, linear: velocity error -> commanded acceleration"),
        Key("rate", T::kNumbers).Count(3).AtLeast(0).TypeDoc("[P, I, D]").Default("[5, 2, 0.2]")
            .Means("velocity loop, angular: rate error -> commanded angular acceleration"),
        Key("velocity_limit", T::kNumbers).Count(6).Above(0).TypeDoc("[u, v, w, p, q, r]").Units("m/s, rad/s")
            .Default("[0.5, 0.5, 0.5, 0.5, 0.5, 0.5]").Means("limits of the velocity commands (seed 002 eq. 4.3)"),
    },
    false,
    "the cascaded PID's gains (seed 002 Table A.1)"};

namespace {

// the keys both path controllers take alike
JsonKey ControllerBody() {
  return Key("body", T::kString).Required("the vehicle body")
      .Means("the vehicle: a body with a free joint and nereid.thruster actuators");
}
JsonKey ControllerPath() {
  return Key("path", T::kObject, {&kPathKeys})
      .Required("{\"zigzag\": {...}}, {\"pillar\": {...}} or {\"points\": [...]}")
      .Means("{\"zigzag\": {...}}, {\"pillar\": {...}} or {\"points\": [[x, y, z], ...]} (world, m)");
}
JsonKey ControllerOrientation() {
  return Key("orientation", T::kNumbers).Count(4).TypeDoc("[w, x, y, z]").Default("[1, 0, 0, 0]")
      .Means("the attitude held along the path (a quaternion, not zero)");
}
JsonKey ControllerPoseRate(std::string_view fallback) {
  return Key("pose_rate", T::kNumber).Range(0, 1e6).Units("Hz").Default(fallback)
      .Means("how often the pose is sampled for the reference and the MSE; 0: every step");
}
JsonKey ControllerLatency() {
  return Key("latency", T::kNumber).Range(0, CommandDelay::kMaxLatency).Units("s").Default("0")
      .Means("the thrust computed from the pose at t acts from t + latency (message and solve delay; "
             "zero thrust until the first is due)");
}
JsonKey ControllerStopWhenDone() {
  return Key("stop_when_done", T::kBool).Default("true").Means("end the run when the last point is reached");
}

}  // namespace

const JsonObject kPidControllerKeys{
    "controller.cascaded_pid",
    {
        Enum("type", {"\"cascaded_pid\""}).Required().Means("seed 002's cascaded PID (appendix A)"),
        ControllerBody(),
        Key("gains", T::kObject, {&kPidGainsKeys}).DefaultDoc("seed 002 Table A.1").Means("the loops' gains"),
        ControllerPath(),
        ControllerOrientation(),
        Key("acceptance_radius", T::kNumber).Above(0).Units("m").Default("0.1")
            .Means("shorthand for reference with the acceptance_radius rule (not with reference)"),
        Key("reference", T::kObject, {&kReferenceKeys})
            .Default("{\"rule\": \"acceptance_radius\", \"acceptance_radius\": 0.1}")
            .Means("how the reference point is chosen (not with acceptance_radius)"),
        ControllerPoseRate("0"),
        ControllerLatency(),
        Key("at_pose_rate", T::kBool).Default("false")
            .Means("run both loops only at the pose samples and hold the thrust between them, as seed 002's "
                   "ROS nodes run on each odometry message (false: at every step)"),
        ControllerStopWhenDone(),
    },
    false,
    "a cascaded PID that follows a path with the vehicle's thrusters"};

const JsonObject kMpcSolverKeys{
    "controller.solver",
    {
        Enum("qp", {"\"qrqp\"", "\"osqp\"", "\"qpoases\""}).Default("\"qrqp\"").Means("CasADi's QP solver"),
        Key("max_sqp_iterations", T::kInteger).Range(1, MpcOptions::kMaxSqpIterations).Default("4")
            .Means("QP solves per plan"),
        Enum("hessian", {"\"gauss_newton\"", "\"exact\""}).Default("\"gauss_newton\"")
            .Means("the SQP's Hessian: the cost's own, or the Lagrangian's, regularised"),
        Key("max_line_search", T::kInteger).Range(1, MpcOptions::kMaxLineSearch).Default("10")
            .Means("backtracking steps per SQP iteration"),
    },
    false,
    "the MPC's solver settings"};

const JsonObject kMpcControllerKeys{
    "controller.mpc",
    {
        Enum("type", {"\"mpc\""}).Required().Means("seed 002's model predictive controller (docs/mpc.md)"),
        ControllerBody(),
        ControllerPath(),
        ControllerOrientation(),
        Key("reference", T::kObject, {&kReferenceKeys})
            .Default("{\"rule\": \"closest_ahead\", \"acceptance_radius\": 0.1, \"lookahead\": 1}")
            .Means("how the reference points are chosen"),
        ControllerPoseRate("50"),
        ControllerLatency(),
        ControllerStopWhenDone(),
        Key("horizon", T::kInteger).Range(1, MpcOptions::kMaxHorizon).Default("15").Means("N, stages per plan"),
        Key("control_period", T::kNumber).Above(0).AtMost(60).Units("s").Default("0.5")
            .Means("a plan every period: a whole number of time steps and of pose samples"),
        Key("cost_pos", T::kNumber).AtLeast(0).Default("1e4").Means("Q on x, y, z"),
        Key("cost_rot", T::kNumber).AtLeast(0).Default("1e3").Means("Q on phi, theta, psi"),
        Key("cost_thrust", T::kNumber).Above(0).Default("0.06")
            .Means("R = cost_thrust I, the QP's Hessian in the thrusts (zero makes it singular)"),
        Key("velocity_limit", T::kNumber).Above(0).Units("m/s, rad/s").Default("0.5")
            .Means("|u v w| and |p q r| on the planned states (seed 002 eq. 4.3)"),
        Enum("prediction", Quoted(kMpcPredictionNames)).Default("\"seed\"")
            .Means("the prediction model: seed 002's eq. 4.1, or Nereid's vehicle model"),
        Enum("integrator", {"\"irk4\"", "\"rk4\""}).Default("\"irk4\"")
            .Means("implicit RK4 (2-stage Gauss-Legendre) or explicit RK4 over one control period"),
        Key("solver", T::kObject, {&kMpcSolverKeys})
            .Default("{\"qp\": \"qrqp\", \"max_sqp_iterations\": 4, \"hessian\": \"gauss_newton\", "
                     "\"max_line_search\": 10}")
            .Means("the SQP's settings"),
    },
    false,
    "seed 002's model predictive controller along a path"};

// ---- the vms controller (docs/vms.md) ----

const JsonObject kSineKeys{
    "signal.sine",
    {
        Key("amplitude", T::kNumber).Required().Units("the signal's").Means("amplitude"),
        Key("period", T::kNumber).Above(0).Required().Units("s").Means("period"),
        Key("phase", T::kNumber).Units("rad").Default("0").Means("phase at t = 0"),
        Key("offset", T::kNumber).Units("the signal's").Default("0").Means("added to the sine"),
        Key("start", T::kNumber).Units("s").DefaultDoc("−inf").Means("the sine acts for start < t <= end"),
        Key("end", T::kNumber).Units("s").DefaultDoc("inf").Means("later than start"),
        Key("outside", T::kNumber).Units("the signal's").Default("0").Means("the value outside (start, end]"),
    },
    false,
    "offset + amplitude sin(2 pi t / period + phase) for start < t <= end, else outside"};

const JsonObject kRampKeys{
    "signal.ramp",
    {
        Key("start", T::kNumber).Required().Units("s").Means("the ramp's start"),
        Key("end", T::kNumber).Required().Units("s").Means("the ramp's end, later than start"),
        Key("from", T::kNumber).Units("the signal's").Default("0").Means("the value until start"),
        Key("to", T::kNumber).Required().Units("the signal's").Means("the value from end on"),
    },
    false,
    "from, then linear from start to end, then to"};

const JsonObject kLinearKeys{
    "signal.linear",
    {
        Key("offset", T::kNumber).Units("the signal's").Default("0").Means("the value at t = 0"),
        Key("rate", T::kNumber).Required().Units("the signal's per s").Means("slope"),
    },
    false,
    "offset + rate t"};

const JsonObject kSignalKeys{
    "signal",
    {
        Key("sine", T::kObject, {&kSineKeys}).DefaultDoc("give exactly one").Means("a sine within a window"),
        Key("ramp", T::kObject, {&kRampKeys}).DefaultDoc("give exactly one").Means("a linear ramp between two values"),
        Key("linear", T::kObject, {&kLinearKeys}).DefaultDoc("give exactly one").Means("a line"),
    },
    true,
    "a signal of time: a number (a constant), or one of these"};

namespace {

JsonKey SignalKey(std::string_view name, std::string_view units, std::string_view meaning) {
  return Key(name, T::kSignal, {&kSignalKeys}).Units(units).Means(meaning);
}

}  // namespace

const JsonObject kVehicleReferenceKeys{
    "vms.vehicle.reference",
    {
        SignalKey("x", "m", "north of origin").Default("0"),
        SignalKey("y", "m", "east of origin").Default("0"),
        SignalKey("z", "m", "down from origin").Default("0"),
        SignalKey("phi", "rad", "roll of the FRD body (ZYX Euler)").Default("0"),
        SignalKey("theta", "rad", "pitch").Default("0"),
        SignalKey("psi", "rad", "yaw").Default("0"),
    },
    false,
    "the vehicle's reference pose, NED relative to origin, ZYX Euler angles of the FRD body"};

const JsonObject kVehiclePdKeys{
    "vms.vehicle",
    {
        Key("body", T::kString).Required().Means("a body with a free joint and nereid.thruster actuators"),
        Key("kp", T::kNumbers).Count(6).AtLeast(0).TypeDoc("[x, y, z, phi, theta, psi]").Required()
            .Units("N/m, N m/rad").Means("proportional gains"),
        Key("kd", T::kNumbers).Count(6).AtLeast(0).TypeDoc("[x, y, z, phi, theta, psi]").Required()
            .Units("N s/m, N m s/rad").Means("derivative gains"),
        Key("active", T::kBools).Count(6).Default("[true, true, true, true, true, true]")
            .Means("axes under the PD; an axis off gets none"),
        VectorKey("origin", "[x, y, z]").Units("m").Default("[0, 0, 0]")
            .Means("Nereid world point (z up) of the reference's zero"),
        Key("reference", T::kObject, {&kVehicleReferenceKeys}).DefaultDoc("`0` on every axis")
            .Means("the reference pose's signals"),
    },
    false,
    "the vehicle's PD on its pose (seed 003 Table 4)"};

const JsonObject kJointLoopKeys{
    "vms.joints",
    {
        Key("joint", T::kString).Required().Means("a hinge or slide joint; one loop per joint"),
        Key("actuator", T::kString).Required().Means("a <motor> on the joint"),
        Enum("mode", {"\"pid\"", "\"computed_torque\""}).Default("\"pid\"")
            .Means("a PID on the joint error, or prescribed motion by computed torque"),
        Key("gains", T::kNumbers).AtLeast(0).TypeDoc("[kp, ki, kd] (pid) or [kp, kd] (computed_torque)").Required()
            .Units("per rad (or per degree), N m; 1/s², 1/s").Means("the loop's gains"),
        Enum("angle_units", {"\"rad\"", "\"deg\""}).Default("\"rad\"")
            .Means("\"deg\": the gains act on errors in degrees (seed 003 Table 5)"),
        Key("reference", T::kSignal, {&kSignalKeys}).Units("rad or m").Default("0").Means("the joint's reference"),
    },
    false,
    "a joint loop (seed 003 Table 5, seed 004)"};

const JsonObject kIkTargetKeys{
    "vms.ik.target",
    {
        SignalKey("x", "m", "end effector x in frame 1 at q1 = 0").Required(),
        SignalKey("y", "m", "end effector y").Required(),
        SignalKey("z", "m", "end effector z").Required(),
    },
    false,
    "the end effector's target, frame 1 at q1 = 0 (the vehicle's FRD axes at the mount)"};

const JsonObject kIkKeys{
    "vms.ik",
    {
        Key("joints", T::kStrings).Count(3).TypeDoc("[q1, q2, q3] joint names").Required()
            .Means("the arm's joints; each needs an entry in joints"),
        Key("link_lengths", T::kNumbers).Count(2).Above(0).TypeDoc("[l2, l3]").Required().Units("m")
            .Means("the two links' lengths"),
        Enum("elbow", {"1", "-1"}).Default("-1").Means("the sign of q3"),
        Key("target", T::kObject, {&kIkTargetKeys}).Required().Means("the end effector's target"),
    },
    false,
    "a task-space target for one three-joint arm (seed 003 sec. 6.6)"};

const JsonObject kVmsControllerKeys{
    "controller.vms",
    {
        Enum("type", {"\"vms\""}).Required().Means("seed 003/004's vehicle PD and joint loops (docs/vms.md)"),
        Key("vehicle", T::kObject, {&kVehiclePdKeys}).Means("the vehicle's PD"),
        Key("joints", T::kObjects, {&kJointLoopKeys}).MaxItems(kMaxEntries).Means("one loop per joint"),
        Key("ik", T::kObjects, {&kIkKeys}).MaxItems(kMaxEntries).Means("task-space targets, one per arm"),
        Key("monitor", T::kStrings).MaxItems(kMaxEntries)
            .Means("bodies whose angular velocity (own frame) is logged"),
        Key("description", T::kAny).DefaultDoc("ignored").Means("free text for people"),
    },
    false,
    "a vehicle PD and joint loops: give a vehicle, joints, or both"};

// ---- navigation (docs/sensors.md, "Navigation") ----

const JsonObject kNavigationKeys{
    "navigation",
    {
        Key("body", T::kString).DefaultDoc("the controller's body, else the first `stabilize` hold's")
            .Means("the vehicle the filter estimates (its nereid.imu, nereid.pressure, nereid.dvl and nereid.acoustic)"),
        Key("initial_position_sd", T::kNumber).Above(0).Units("m").Default("0.05")
            .Means("the filter's initial position standard deviation (it starts at the true state)"),
        Key("initial_velocity_sd", T::kNumber).Above(0).Units("m/s").Default("0.02")
            .Means("initial velocity standard deviation"),
        Key("initial_attitude_sd", T::kNumber).Above(0).Units("rad").Default("0.01")
            .Means("initial attitude standard deviation (each axis)"),
        Key("initial_current_sd", T::kNumber).Above(0).Units("m/s").Default("0.5")
            .Means("initial standard deviation of the current (each axis; its estimate starts at 0), which a "
                   "DVL's water track is relative to"),
        Key("current_walk", T::kNumber).Above(0).Units("m/s/√s").Default("0.001")
            .Means("the current's random walk density (how fast the filter lets it change)"),
        Key("acoustic", T::kBool).Default("true")
            .Means("false: ignore the acoustic fixes (dead reckoning on IMU, DVL, depth and heading)"),
    },
    false,
    "the navigation filter's settings"};

// ---- the document ----

const JsonObject kScenarioKeys{
    "scenario",
    {
        Key("model", T::kString).Required("path of an MJCF file")
            .Means("MJCF file, relative to the scenario file's folder"),
        Key("duration", T::kNumber).Above(0).Units("s").Default("10").DefaultDoc("`--duration`, else this, else `10`")
            .Means("simulated time"),
        Key("dt", T::kNumber).Above(0).Units("s").DefaultDoc("`--dt`, else this, else the model's `<option timestep>`")
            .Means("time step"),
        Enum("integrator", Quoted(kIntegratorNames)).DefaultDoc("`--integrator`, else this, else the model's")
            .Means("integrator"),
        Enum("engine", Quoted(kEngineNames)).Default("\"nereid\"")
            .DefaultDoc("`--engine`, else this, else `\"nereid\"`")
            .Means("nereid: added mass in the mass matrix; mujoco: plain mj_step"),
        Key("keyframe", T::kInteger).AtLeast(0).DefaultDoc("0 if the model has keyframes, else the model's defaults")
            .Means("keyframe to reset to before initial_state is applied"),
        Key("initial_state", T::kObject, {&kInitialStateKeys}).Means("overrides of the reset state"),
        Key("current", T::kObject, {&kCurrentKeys}).DefaultDoc("the model's `nereid.current`")
            .Means("water current for the whole run"),
        Key("waves", T::kObject, {&kWavesKeys}).DefaultDoc("the model's `nereid.current` waves")
            .Means("surface waves: a regular wave or an irregular sea"),
        Key("controls", T::kObjects, {&kControlKeys}).Means("time-scheduled ctrl values"),
        Key("wrenches", T::kObjects, {&kWrenchKeys}).Means("time-windowed forces and torques on bodies"),
        Key("controller", T::kObject, {&kPidControllerKeys, &kMpcControllerKeys, &kVmsControllerKeys})
            .Means("a path-following cascaded PID or MPC, or the vms controller"),
        Key("stabilize", T::kObjects, {&kStabilizeKeys}).MaxItems(kMaxEntries)
            .Means("depth and attitude holds on vehicles' vertical thrusters"),
        Enum("constraints", Quoted(kConstraintMethodNames)).Default("\"mujoco\"")
            .DefaultDoc("`--constraints`, else this, else `\"mujoco\"`").Means("who enforces the model's uk: welds"),
        Key("scene", T::kObject, {&kSceneKeys}).Means("walls, seabed, terrain and pillars: collision geometry"),
        Enum("feedback", {"\"truth\"", "\"estimate\""}).Default("\"truth\"")
            .Means("what the PID, MPC and stabilize read: the true state, or the navigation filter's estimate"),
        Key("seed", T::kInteger).Range(0, 2147483647).DefaultDoc("none: the sensors' own streams")
            .Means("the run's seed, mixed into every Nereid sensor's noise stream"),
        Key("navigation", T::kObject, {&kNavigationKeys}).DefaultDoc("none (with feedback estimate: the defaults)")
            .Means("run the navigation filter (est.* columns) with these settings"),
        Key("description", T::kAny).DefaultDoc("ignored").Means("free text for people"),
        Key("peak", T::kObject, {&kPeakKeys}).Crosscheck()
            .Means("nereid crosscheck: the angle whose first peak is reported"),
        Key("reference", T::kAny).Means("nereid crosscheck: copied into its report").Crosscheck(),
        Key("record_every", T::kInteger).Range(1, 1e9).Default("10").Crosscheck()
            .Means("nereid crosscheck: record every N steps"),
        Enum("methods", Quoted(Scenario::Crosscheck::kMethodNames), T::kEnums)
            .Default("[\"uk\", \"weld\", \"merged\"]").Means("nereid crosscheck: the methods to run").Crosscheck(),
        Key("weld", T::kObject, {&kWeldKeys}).Means("nereid crosscheck: the welds' solver settings").Crosscheck(),
        Key("uk", T::kObject, {&kUkKeys}).Means("nereid crosscheck: Udwadia-Kalaba's settings").Crosscheck(),
        Key("$schema", T::kString).DefaultDoc("ignored")
            .Means("the JSON Schema the file follows, for editors (docs/scenario.schema.json)"),
    },
    false,
    "a Nereid scenario: a model and how to run it (docs/scenarios.md)"};

const std::vector<const JsonObject*>& AllJsonObjects() {
  static const std::vector<const JsonObject*> all = {
      &kScenarioKeys, &kInitialStateKeys, &kBodyStateKeys, &kJointStateKeys, &kCurrentKeys, &kWavesKeys, &kControlKeys,
      &kWrenchKeys, &kPidControllerKeys, &kPidGainsKeys, &kPathKeys, &kZigZagKeys, &kPillarPathKeys, &kReferenceKeys,
      &kStabilizeKeys, &kStabilizeGainsKeys, &kNavigationKeys, &kSceneKeys, &kWallKeys, &kPillarKeys, &kTerrainKeys, &kWeldKeys, &kUkKeys, &kPeakKeys,
      &kMpcControllerKeys, &kMpcSolverKeys, &kVmsControllerKeys, &kVehiclePdKeys, &kVehicleReferenceKeys,
      &kJointLoopKeys, &kIkKeys, &kIkTargetKeys, &kSignalKeys, &kSineKeys, &kRampKeys, &kLinearKeys};
  return all;
}

}  // namespace nereid::detail

namespace nereid {
namespace {

using detail::JsonKey;
using detail::JsonObject;
using detail::JsonType;
using Schema = nlohmann::ordered_json;

std::string Reference(const JsonObject& object) { return "#/definitions/" + std::string(object.id); }

void AddRange(const JsonKey& k, Schema* s) {
  auto bound = [&](double x) { return k.type == JsonType::kInteger ? Schema(static_cast<long long>(x)) : Schema(x); };
  if (std::isfinite(k.min)) (*s)[k.above ? "exclusiveMinimum" : "minimum"] = bound(k.min);
  if (std::isfinite(k.max)) (*s)["maximum"] = bound(k.max);
}

Schema Numbers(const JsonKey& k, int count) {
  Schema item = {{"type", "number"}};
  AddRange(k, &item);
  Schema s = {{"type", "array"}, {"items", item}};
  if (count > 0) {
    s["minItems"] = count;
    s["maxItems"] = count;
  }
  return s;
}

Schema KeySchema(const JsonKey& k) {
  Schema s = Schema::object();
  if (!k.meaning.empty()) {
    s["description"] = std::string(k.meaning) + (k.units == "—" ? "" : " (" + std::string(k.units) + ")");
  }
  switch (k.type) {
    case JsonType::kAny: break;
    case JsonType::kNumber:
    case JsonType::kInteger:
      s["type"] = k.type == JsonType::kNumber ? "number" : "integer";
      AddRange(k, &s);
      break;
    case JsonType::kBool: s["type"] = "boolean"; break;
    case JsonType::kString: s["type"] = "string"; break;
    case JsonType::kEnum:
    case JsonType::kEnums: {
      Schema values = Schema::array();
      for (const std::string& a : k.allowed) values.push_back(Schema::parse(a));
      if (k.type == JsonType::kEnum) {
        s["enum"] = values;
      } else {
        s.update(Schema{{"type", "array"}, {"items", {{"enum", values}}}, {"minItems", 1}, {"uniqueItems", true}});
      }
      break;
    }
    case JsonType::kNumbers: s.update(Numbers(k, k.count)); break;
    case JsonType::kRows: s.update(Schema{{"type", "array"}, {"items", Numbers(k, k.count)}, {"minItems", 1}}); break;
    case JsonType::kStrings:
    case JsonType::kBools:
      s.update(Schema{{"type", "array"}, {"items", {{"type", k.type == JsonType::kStrings ? "string" : "boolean"}}}});
      if (k.count > 0) {
        s["minItems"] = k.count;
        s["maxItems"] = k.count;
      } else {
        if (k.min_items > 0) s["minItems"] = k.min_items;
        if (k.max_items > 0) s["maxItems"] = k.max_items;
      }
      break;
    case JsonType::kObject:
      if (k.objects.size() == 1) {
        s["$ref"] = Reference(*k.objects[0]);
      } else {
        Schema one = Schema::array();  // told apart by their "type"
        for (const JsonObject* o : k.objects) one.push_back({{"$ref", Reference(*o)}});
        s["oneOf"] = one;
      }
      break;
    case JsonType::kObjects:
      s.update(Schema{{"type", "array"}, {"items", {{"$ref", Reference(*k.objects[0])}}}});
      if (k.max_items > 0) s["maxItems"] = k.max_items;
      break;
    case JsonType::kObjectMap:
      s.update(Schema{{"type", "object"}, {"additionalProperties", {{"$ref", Reference(*k.objects[0])}}}});
      break;
    case JsonType::kSignal:
      s["anyOf"] = Schema::array({{{"type", "number"}}, {{"$ref", Reference(*k.objects[0])}}});
      break;
  }
  if (!k.fallback.empty()) s["default"] = Schema::parse(k.fallback);
  return s;
}

// an object's schema: its keys, no others, the required ones (or exactly one of them)
Schema ObjectSchema(const JsonObject& object) {
  Schema s = {{"type", "object"}};
  if (!object.meaning.empty()) s["description"] = std::string(object.meaning);
  Schema properties = Schema::object(), required = Schema::array();
  for (const JsonKey& k : object.keys) {
    properties[std::string(k.name)] = KeySchema(k);
    if (k.required) required.push_back(std::string(k.name));
  }
  s["properties"] = properties;
  s["additionalProperties"] = false;
  if (!required.empty()) s["required"] = required;
  if (object.exactly_one) {
    s["minProperties"] = 1;
    s["maxProperties"] = 1;
  }
  return s;
}

}  // namespace

std::string ScenarioJsonSchema() {
  Schema schema = {{"$schema", "http://json-schema.org/draft-07/schema#"},
                   {"title", "Nereid scenario"},
                   {"$comment", "Generated from src/json_keys.cc by nereid::ScenarioJsonSchema(); do not edit "
                                "(docs/scenarios.md)"}};
  schema.update(ObjectSchema(detail::kScenarioKeys));
  Schema definitions = Schema::object();
  for (const JsonObject* o : detail::AllJsonObjects()) {
    if (o != &detail::kScenarioKeys) definitions[std::string(o->id)] = ObjectSchema(*o);
  }
  schema["definitions"] = definitions;
  return schema.dump(2) + "\n";
}

}  // namespace nereid
