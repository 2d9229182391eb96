// Copyright Nereid authors.
// The keys of every JSON object a scenario holds (docs/scenarios.md, the MPC's keys in
// docs/mpc.md, the VMS controller's in docs/vms.md), each object's keys declared once in
// one table, as the plugins declare theirs (include/nereid/config_key.h). A table gives
// the reader (json_reader.h) the keys an object accepts, the ones it requires and the
// values a closed set allows (an unknown key's message names the nearest one), gives the
// docs each key's type, default and units (tests/engine/json_keys_test.cc checks the key
// tables of docs/scenarios.md, docs/mpc.md and docs/vms.md against these), and gives
// users' editors a JSON Schema (nereid::ScenarioJsonSchema, docs/scenario.schema.json).
// The readers in scenario.cc (scenario_world.cc, scenario_control.cc) and vms/vms_config.cc check each value (ranges, sizes, rules
// between keys) with their own messages; ranges here are what the docs and the schema
// say. A new object or key (sensors, terrain) gets its table entry first. Internal
// to the engine library.
#ifndef NEREID_SRC_JSON_KEYS_H_
#define NEREID_SRC_JSON_KEYS_H_

#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nereid::detail {

struct JsonObject;

// What a key's value is. Object kinds name their objects' tables in JsonKey::objects.
enum class JsonType {
  kAny,        // any JSON value
  kNumber,     // a finite number in the key's range
  kInteger,    // an integer in the key's range
  kBool,       // true or false
  kString,     // a string
  kEnum,       // one of JsonKey::allowed
  kNumbers,    // an array of `count` numbers
  kRows,       // a non-empty array of rows of `count` numbers
  kStrings,    // an array of strings: `count` of them, or min_items..max_items
  kBools,      // an array of `count` true/false
  kEnums,      // a non-empty array of distinct JsonKey::allowed values
  kObject,     // an object of objects[0]'s keys, or of one of several objects' keys
               // (told apart by their "type" key)
  kObjects,    // an array of objects of objects[0]'s keys (at most max_items)
  kObjectMap,  // an object keyed by names (bodies, joints), each value of objects[0]'s keys
  kSignal,     // a number or an object of objects[0]'s keys ("SIGNAL" in docs/vms.md)
};

struct JsonKey {
  std::string_view name;
  JsonType type = JsonType::kAny;
  std::string_view units = "—";      // the docs' "Units" column ("—" for none)
  std::string_view fallback;         // the default as JSON text ("" for none)
  bool required = false;             // absent: "missing required key"
  std::string_view missing;          // said in parentheses after "missing required key"
  std::string_view default_doc;      // the docs' "Required / default" column when it is not
                                     // "**required**" or `fallback` in backticks
  std::string_view type_doc;         // the docs' "Type" column when not TypeText's own
  std::vector<std::string> allowed;  // kEnum, kEnums: the values, as JSON text
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool above = false;                // min is exclusive (> min)
  int count = 0;                     // kNumbers, kRows, kStrings, kBools: the length
  int min_items = 0;                 // kStrings: the shortest array (when count is 0)
  int max_items = 0;                 // kObjects, kStrings: the longest array (0: unbounded)
  std::vector<const JsonObject*> objects;
  std::string_view meaning;          // one line, the schema's description
  bool crosscheck = false;           // a key of nereid crosscheck's (marks a cross-check scenario)

  // builders, so that a table reads as one line per key
  JsonKey Units(std::string_view u) && { units = u; return std::move(*this); }
  JsonKey Default(std::string_view json) && { fallback = json; return std::move(*this); }
  JsonKey DefaultDoc(std::string_view text) && { default_doc = text; return std::move(*this); }
  JsonKey Required(std::string_view why = {}) && { required = true; missing = why; return std::move(*this); }
  JsonKey TypeDoc(std::string_view text) && { type_doc = text; return std::move(*this); }
  JsonKey Range(double lo, double hi) && { min = lo; max = hi; return std::move(*this); }
  JsonKey Above(double lo) && { min = lo; above = true; return std::move(*this); }
  JsonKey AtLeast(double lo) && { min = lo; return std::move(*this); }
  JsonKey AtMost(double hi) && { max = hi; return std::move(*this); }
  JsonKey Count(int n) && { count = n; return std::move(*this); }
  JsonKey MinItems(int n) && { min_items = n; return std::move(*this); }
  JsonKey MaxItems(int n) && { max_items = n; return std::move(*this); }
  JsonKey Means(std::string_view text) && { meaning = text; return std::move(*this); }
  JsonKey Crosscheck() && { crosscheck = true; return std::move(*this); }
};

// One JSON object's keys, in the order the docs list them.
struct JsonObject {
  std::string_view id;            // how the docs name the table (<!-- keys: id -->)
  std::vector<JsonKey> keys;
  bool exactly_one = false;       // the object gives exactly one of its keys
  std::string_view meaning;       // one line, the schema's description

  const JsonKey* Find(std::string_view name) const;  // nullptr if none
  const JsonKey& At(std::string_view name) const;    // the key the code reads (std::logic_error if none)
};

// A key of the given type; object kinds take their objects' tables.
JsonKey Key(std::string_view name, JsonType type);
JsonKey Key(std::string_view name, JsonType type, std::vector<const JsonObject*> objects);
// A kEnum (or kEnums) key and its allowed values, JSON text each.
JsonKey Enum(std::string_view name, std::vector<std::string> allowed, JsonType type = JsonType::kEnum);

// Strings as JSON texts, for `allowed` ("rk4" -> "\"rk4\"").
template <class Table>
std::vector<std::string> Quoted(const Table& names) {
  std::vector<std::string> out;
  for (const auto& n : names) out.push_back("\"" + std::string(n.name) + "\"");
  return out;
}

// Levenshtein distance: single-character insertions, deletions and substitutions.
size_t EditDistance(std::string_view a, std::string_view b);
// The key of `keys` nearest to a misspelt `name` (case ignored), or "" when none is near:
// within 1 edit for names up to 5 characters, 2 up to 9, 3 beyond, and fewer edits than
// the name has characters.
std::string_view NearestKey(const JsonObject& keys, std::string_view name);

// The docs' "Type" column: type_doc, else from the type ("number > 0", "\"a\" or \"b\"").
std::string TypeText(const JsonKey& key);
// The docs' "Required / default" column.
std::string DefaultText(const JsonKey& key);

// The tables: the scenario file and every object inside it.
extern const JsonObject kScenarioKeys;           // the document
extern const JsonObject kBodyStateKeys;          // initial_state.bodies.<body>
extern const JsonObject kJointStateKeys;         // initial_state.joints.<joint>
extern const JsonObject kInitialStateKeys;       // initial_state
extern const JsonObject kCurrentKeys;            // current
extern const JsonObject kWavesKeys;              // waves
extern const JsonObject kControlKeys;            // controls[i]
extern const JsonObject kWrenchKeys;             // wrenches[i]
extern const JsonObject kStabilizeGainsKeys;     // stabilize[i].gains
extern const JsonObject kStabilizeKeys;          // stabilize[i]
extern const JsonObject kNavigationKeys;         // navigation
extern const JsonObject kWallKeys;               // scene.wall
extern const JsonObject kSceneKeys;              // scene
extern const JsonObject kPillarKeys;             // scene.pillars[i]
extern const JsonObject kTerrainKeys;            // scene.terrain
extern const JsonObject kWeldKeys;               // weld (nereid crosscheck)
extern const JsonObject kUkKeys;                 // uk (nereid crosscheck)
extern const JsonObject kPeakKeys;               // peak (nereid crosscheck)
extern const JsonObject kZigZagKeys;             // controller.path.zigzag
extern const JsonObject kPillarPathKeys;         // controller.path.pillar
extern const JsonObject kPathKeys;               // controller.path
extern const JsonObject kReferenceKeys;          // controller.reference
extern const JsonObject kPidGainsKeys;           // controller.gains (cascaded_pid)
extern const JsonObject kPidControllerKeys;      // controller, "type": "cascaded_pid"
extern const JsonObject kMpcSolverKeys;          // controller.solver (mpc)
extern const JsonObject kMpcControllerKeys;      // controller, "type": "mpc"
extern const JsonObject kSineKeys;               // SIGNAL.sine (vms)
extern const JsonObject kRampKeys;               // SIGNAL.ramp
extern const JsonObject kLinearKeys;             // SIGNAL.linear
extern const JsonObject kSignalKeys;             // SIGNAL as an object
extern const JsonObject kVehicleReferenceKeys;   // controller.vehicle.reference (vms)
extern const JsonObject kVehiclePdKeys;          // controller.vehicle (vms)
extern const JsonObject kJointLoopKeys;          // controller.joints[i] (vms)
extern const JsonObject kIkTargetKeys;           // controller.ik[i].target (vms)
extern const JsonObject kIkKeys;                 // controller.ik[i] (vms)
extern const JsonObject kVmsControllerKeys;      // controller, "type": "vms"

// Every table above, the document first.
const std::vector<const JsonObject*>& AllJsonObjects();

}  // namespace nereid::detail

#endif  // NEREID_SRC_JSON_KEYS_H_
