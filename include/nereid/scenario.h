// Copyright Nereid authors.
// Scenarios: a JSON file that names a model and says how to run it: duration, time step,
// integrator, initial state, water current, and time-scheduled controls and body
// wrenches. Format: docs/scenarios.md. Every error names the file, the JSON path of the
// offending value, and the value.
#ifndef NEREID_SCENARIO_H_
#define NEREID_SCENARIO_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nereid/current.h"
#include "nereid/control.h"
#include "nereid/mpc.h"
#include "nereid/path.h"
#include "nereid/simulation.h"
#include "nereid/navigator.h"
#include "nereid/stabilize.h"
#include "nereid/uk.h"
#include "nereid/vms.h"

namespace nereid {

struct Scenario {
  struct BodyState {        // a body with a free joint
    std::string name, path; // path: JSON path, for errors
    std::optional<Vec3> position;                 // world, m
    std::optional<Eigen::Vector4d> quaternion;    // world-from-body, w x y z
    std::optional<Vec3> velocity;                 // world linear velocity, m/s
    std::optional<Vec3> angular_velocity;         // body frame, rad/s
  };
  struct JointState {       // a hinge or slide joint
    std::string name, path;
    std::optional<double> q, qd;
  };
  struct Control {          // the actuator's one control = value from `time` on
    std::string actuator, path;
    double time = 0, value = 0;
  };
  struct Wrench {           // force/torque on a body during [start, end)
    std::string body, path;
    double start = 0, end = 1e300;
    Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
    bool body_frame = false;  // "frame": "body" (MuJoCo body frame) or "world"
    bool at_com = false;      // "at": "com" (the body's centre of mass) or "origin"
  };

  // nereid crosscheck's extension of the format (docs/crosscheck.md), present when the
  // file has any of its keys. Such a file's wrenches default to the body frame and the
  // centre of mass. nereid run and nereid-view run it too, but refuse its solver
  // settings (ResolveInput): they use the model's own welds and Nereid's UK defaults.
  struct Crosscheck {
    enum class Method { kUK, kWeld, kMerged };
    std::vector<Method> methods = {Method::kUK, Method::kWeld, Method::kMerged};
    // solver settings ("weld", "uk"): the welds' solref/solimp (MuJoCo's defaults), UK's
    std::array<double, 2> solref = {0.02, 1};
    std::array<double, 5> solimp = {0.9, 0.95, 0.001, 0.5, 2};
    UKOptions uk;
    std::string solver_key;  // "/weld" or "/uk" when given, else ""
    std::string peak_body;   // report the first extremum of this body's angle about peak_axis
    int peak_axis = 0;       // 0, 1, 2: x, y, z
    std::string reference;   // "reference" as JSON text, copied into the report
    int record_every = 10;
    static constexpr std::array<Named<Method>, 3> kMethodNames{
        {{Method::kUK, "uk"}, {Method::kWeld, "weld"}, {Method::kMerged, "merged"}}};
    static std::string Name(Method method) { return std::string(NameOf(kMethodNames, method)); }
  };

  struct Controller {       // a vehicle following a path (docs/scenarios.md)
    enum class Type { kCascadedPid, kMpc };
    Type type = Type::kCascadedPid;
    std::string body, path_json;  // path_json: JSON path, for errors
    CascadedPidGains gains;       // kCascadedPid; default: seed 002 Table A.1
    MpcOptions mpc;               // kMpc; default: seed 002 eqs. 4.3-4.6, Table 6.2 run 2
    Path path;
    ReferenceRule reference;      // default: 0.1 m acceptance radius (PID), closest + 1 (MPC)
    double pose_rate = 0;         // Hz the pose is sampled at; 0: every step (PID default)
    double latency = 0;           // s from the computed thrust to the thrusters (CommandDelay)
    bool pid_at_pose_rate = false;  // kCascadedPid: both loops only at the pose samples
    bool stop_when_done = true;   // end the run when the last point is reached
  };
  // The scene around the vehicles (docs/scenarios.md "scene"): a quay wall, a flat seabed,
  // a height-field terrain and pillars, added to the model as collision geometry of the
  // world body when it is loaded (AddSceneGeometry), and drawn by nereid-view as MuJoCo
  // draws them; with solid = false they are drawn only, never simulated.
  struct Scene {
    struct Wall {           // a vertical wall whose face is the plane x = face_x; water in x < face_x
      double face_x = 0;    // m
      double y_min = -10, y_max = 10;  // m, its extent along the face
      std::optional<double> bottom;    // z of its foot, m; default: the seabed
      double top = 1;       // z of its crest, m (a quay wall stands above the water)
      double thickness = 1; // m, behind the face
    };
    struct Pillar {         // a vertical cylinder
      double x = 0, y = 0, radius = 1;  // m
      std::optional<double> bottom;     // z of its foot, m; default: the seabed
      double top = 1;                   // z of its top, m
    };
    struct Terrain {        // a height field: MuJoCo's hfield
      std::string file, path;           // file resolved against the scenario's folder; JSON path
      double x = 0, y = 0;              // m, its centre
      double half_x = 1, half_y = 1;    // m
      double deepest = 20, shallowest = 10;  // m below z = 0: its lowest and highest sample
    };
    std::optional<Wall> wall;
    std::optional<double> seabed_depth;  // m, > 0; default: the model's floor plane, if any
    std::optional<Terrain> terrain;
    std::vector<Pillar> pillars;
    bool solid = true;                   // false: drawn by nereid-view only
    double friction = 0.5;               // sliding friction against the scene's geoms
    std::array<double, 2> solref = {0.02, 1};  // MuJoCo solref of their contacts
    bool Empty() const { return !wall && !seabed_depth && !terrain && pillars.empty(); }
  };
  // Adds the scene's geoms (named "scene_wall", "scene_seabed", "scene_terrain",
  // "scene_pillar<i>") to a parsed model's world body, with contype = conaffinity = 1 and
  // priority 1 (their friction and solref decide a contact); a wall's or pillar's foot
  // defaults to the seabed (seabed_depth, else the highest world plane below the surface,
  // else 20 m). Throws ConfigError naming `source`, the key and the value (a terrain file
  // that is missing, not a PNG or CSV grid, or of the wrong size).
  static void AddSceneGeometry(const Scene& scene, const std::string& source, mjSpec* spec);

  // Builds "type": "mpc" controllers; set by EnableMpc() (libnereid_mpc, include/nereid/mpc.h).
  using MpcFactory = std::unique_ptr<PathController> (*)(const Simulation& sim, int body,
                                                         const Controller& controller);
  static void SetMpcFactory(MpcFactory factory);

  std::string source;   // the scenario file
  std::string model;    // the model file, resolved against the scenario's folder
  std::optional<double> duration, dt;
  std::optional<Integrator> integrator;
  std::optional<Engine> engine;
  std::optional<int> keyframe;
  std::optional<CurrentField> current;
  // "waves" (docs/scenarios.md): the waves of the model's nereid.current for the run (calm
  // water for wave_type none); read by the plugin's own rules (nereid::WavesFromKeys)
  std::optional<waves::WaveField> waves;
  std::vector<BodyState> bodies;
  std::vector<JointState> joints;
  std::vector<Control> controls;
  std::vector<Wrench> wrenches;
  std::optional<Controller> controller;
  std::optional<VmsControllerSpec> vms_controller;  // {"type": "vms"} (docs/vms.md)
  std::vector<StabilizeSpec> stabilize;  // depth and attitude hold per vehicle (at most 64)
  std::optional<ConstraintMethod> constraints;  // who enforces "uk:" welds (default MuJoCo)
  Scene scene;                                  // walls, seabed, terrain, pillars
  std::optional<Crosscheck> crosscheck;         // nereid crosscheck's keys
  // "feedback": "estimate": the controllers (PID, MPC, stabilize) read the navigation
  // filter's estimate of their body instead of the truth (docs/sensors.md, "Navigation")
  bool feedback_estimate = false;
  // "navigation": the filter's settings; present (or feedback_estimate) runs the filter
  struct Navigation {
    std::string body;  // empty: the controller's body, else the first stabilize hold's
    NavigationSettings settings;
  };
  std::optional<Navigation> navigation;
  // "seed": the run's seed for the sensors' noise streams (nereid::SeedSensors); none: the
  // model's own streams (as seed 0)
  std::optional<uint64_t> seed;

  // Parses a scenario file / text. Throws ConfigError "<file>: <json path>: <rule> (got ...)".
  // The file must be a regular file of at most kMaxScenarioBytes.
  static constexpr std::uintmax_t kMaxScenarioBytes = std::uintmax_t{64} << 20;
  static Scenario FromFile(const std::string& path);
  static Scenario FromString(const std::string& text, const std::string& source,
                             const std::string& base_dir);

  // Sets the initial state (keyframe, then bodies and joints), the current and the waves. Throws
  // ConfigError naming the JSON path of an unknown body, joint or actuator.
  void Apply(Simulation& sim);
  // The scenario's path-following controller (nullptr if none), and its body. Throws
  // ConfigError naming the JSON path of an unknown body or one without thrusters.
  std::unique_ptr<PathController> MakeController(const Simulation& sim, int* body) const;
  // The scenario's depth and attitude holds, in file order. Throws ConfigError as above.
  std::vector<Stabilize> MakeStabilizers(const Simulation& sim) const;
  // Sets ctrl and xfrc_applied for time t (call before each step).
  void ApplyInputs(Simulation& sim, double t) const;

 private:
  std::vector<int> control_ids_, wrench_ids_;  // resolved by Apply
};

// A JSON Schema (draft-07) of scenario files, generated from the parser's key tables, for
// users' editors to validate and complete scenarios with. docs/scenario.schema.json holds
// it (the test json_keys checks the committed file is this text).
std::string ScenarioJsonSchema();

}  // namespace nereid

#endif  // NEREID_SCENARIO_H_
