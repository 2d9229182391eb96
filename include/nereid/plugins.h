// Copyright Nereid authors.
// Nereid's MuJoCo engine plugins: names, configuration, and what the engine needs from
// them. The plugin library (libnereid_plugins.so) registers, when it is loaded:
//   nereid.hydrodynamics  added mass, C_A(nu_r) nu_r and D(nu_r) nu_r on one body
//   nereid.buoyancy       buoyancy at the centre of buoyancy, free surface at z = 0
//   nereid.current        the world-frame water current (read by hydrodynamics, thrusters,
//                         tethers)
//   nereid.thruster       an actuator plugin: thrust maps, motor lag, inflow loss
//   nereid.tether         an umbilical: lumped segments with Morison drag, or seed 002's
//                         analytic force at the vehicle site (nereid/tether.h)
// Each instance names its body with the `body` key (or is attached to the body in MJCF),
// so one body can carry several instances (MuJoCo lets a body reference only one).
// Config keys are listed in plugins/<name>/README.md.
#ifndef NEREID_PLUGINS_H_
#define NEREID_PLUGINS_H_

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/current.h"
#include "nereid/frames.h"
#include "nereid/names.h"
#include "nereid/sensors.h"
#include "nereid/thruster_model.h"

namespace nereid {

inline constexpr char kHydrodynamicsPlugin[] = "nereid.hydrodynamics";
inline constexpr char kBuoyancyPlugin[] = "nereid.buoyancy";
inline constexpr char kCurrentPlugin[] = "nereid.current";
inline constexpr char kThrusterPlugin[] = "nereid.thruster";
inline constexpr char kPressurePlugin[] = "nereid.pressure";
inline constexpr char kImuPlugin[] = "nereid.imu";
inline constexpr char kDvlPlugin[] = "nereid.dvl";
inline constexpr char kAcousticPlugin[] = "nereid.acoustic";
inline constexpr char kAltimeterPlugin[] = "nereid.altimeter";
inline constexpr char kMarkerPlugin[] = "nereid.marker";

// The names of the values a Nereid sensor writes (its trajectory.csv columns are
// <sensor>.<field>): for sensor element `sensor` of a Nereid sensor plugin its fields
// ("pressure", "depth", ...); for any other sensor "0", "1", ... up to its dimension.
std::vector<std::string> SensorFieldNames(const mjModel* m, int sensor);
// A Nereid sensor instance as mounted in `d`, for drawing what it reads (the viewer's
// sensors overlay) without the plugin's own classes.
struct SensorMount {
  std::string plugin;       // its plugin's name: kDvlPlugin, kAcousticPlugin, ...
  int site = -1;            // the site it is mounted on
  int sensor = -1;          // its <sensor><plugin> element: its reading starts at
                            // d->sensordata + m->sensor_adr[sensor] (a sensor instance
                            // without one is refused when its data is made)
  double period = 0;        // s between samples (1 / rate)
  double latency = 0;       // s from a sample to its delivery
  std::vector<Vec3> beams;  // nereid.dvl: unit beam directions, site frame; else empty
  double max_altitude = 0;  // nereid.dvl: m; else 0
};
// The mount of plugin instance `instance`: nothing (std::nullopt) when it is not a Nereid
// sensor plugin or has no object in d.
std::optional<SensorMount> SensorMountOf(const mjModel* m, const mjData* d, int instance);
// The index of `field` among SensorFieldNames(m, sensor), -1 if it has none of that name.
int SensorFieldIndex(const mjModel* m, int sensor, std::string_view field);
// Makes every Nereid sensor instance of `d` exact (no white noise, bias, turn-on bias, scale
// factor, offset, quantisation, range noise or dropout; rates, latency and physical limits
// stay), or as configured again, and restarts it (its clock and noise stream, as a reset):
// what NEREID_EXACT_SENSORS=1 does for every data made while it is set (docs/sensors.md).
void SetSensorsExact(const mjModel* m, mjData* d, bool exact);
// Reseeds every Nereid sensor instance of `d` from a run's seed: their noise streams
// restart from streams derived from (the instance's `seed` key, run_seed, its name).
void SeedSensors(const mjModel* m, mjData* d, uint64_t run_seed);
// The first Nereid sensor instance of `d` whose rate is above the physics rate 1/timestep
// (a time step made longer after loading: it would sample once per step, below its rate),
// as "<plugin> instance '<name>': rate ... Hz is above ..."; "" when none.
std::string SensorFasterThanStep(const mjModel* m, const mjData* d);
// Throws ConfigError when a sensor element of a Nereid sensor plugin in `spec` sets MuJoCo's
// own delay, interval or noise (Nereid's sensors take latency, rate and noise from their
// plugin keys). MJCF refuses those attributes on <sensor><plugin>; an mjSpec edit can set
// them, and the plugin then refuses to start, which in MuJoCo 3.14's compiler frees a
// delayed sensor's history twice (a crash): Nereid's loading checks the spec first.
void CheckSensorSpecs(mjSpec* spec);
// True when the model's acceleration-stage sensors are Nereid's own (the IMU) and none
// reads MuJoCo's cacc or cfrc (no accelerometer, force, torque, framelinacc, frameangacc,
// user sensor or other plugin at that stage): mj_rnePostConstraint, which MuJoCo runs
// before any acceleration-stage sensor plugin, can then be left out (Nereid's engine does;
// docs/sensors.md "Cost").
bool SensorsSkipRnePost(const mjModel* m);
// One plugin instance and its compute function (mjpPlugin::compute), for an engine that
// calls it itself as MuJoCo's stage would (the passive ones: src/passive_stage.h).
struct PluginCall {
  int instance = -1;
  void (*compute)(const mjModel* m, mjData* d, int instance, int capability_bit) = nullptr;
};
// A sensor plugin's call; with the instance's object in an mjData, its sample clock: while
// the clock is idle (no sample due, nothing to deliver) the call would return at once, so
// the engine leaves it out.
struct SensorCall : PluginCall {
  const sensors::SampleClock* clock = nullptr;
};
// The sensor plugin instances of each stage (mjSTAGE_POS, VEL, ACC; a plugin of stage
// mjSTAGE_NONE at POS), in instance order, for an engine that computes them itself rather
// than through mj_sensorPos/Vel/Acc, which walk every plugin instance of the model
// (thrusters, hydrodynamics, ...) at each of the three stages to find them (docs/sensors.md
// "Cost"). Nothing (std::nullopt) unless every sensor of the model is a Nereid sensor
// plugin with no cutoff and every sensor plugin instance is Nereid's: MuJoCo's stages
// then compute exactly these calls, in this order, with nothing else to do (no built-in
// or user sensor, no clamping), except mj_rnePostConstraint before the acceleration
// stage, which no Nereid sensor reads (SensorsSkipRnePost).
using SensorCalls = std::array<std::vector<SensorCall>, 3>;
// With `d`, each call carries the clock of its instance's object in d (the objects live
// as long as d: a reset or mj_copyData into d keeps them).
std::optional<SensorCalls> NereidSensorCalls(const mjModel* m, const mjData* d = nullptr);
// The number of plugin instances before the model's trailing run of the instances in
// `calls` (m->nplugin when the last instance is not one of them). Those trailing sensor
// instances have nothing to do in MuJoCo's actuator, passive and advance loops (a Nereid
// sensor plugin has only the sensor capability and no advance), so an engine that
// computes them itself may leave them out of those loops (docs/sensors.md "Cost").
int PluginsBeforeTrailingSensors(const mjModel* m, const SensorCalls& calls);

// What a hydrodynamics instance does with its added mass when the mjData was not made by
// Nereid's engine (plain mj_step, Python `mujoco`), where nothing puts M_A into d->M.
enum class StockFallback {
  kDrop,    // drop M_A and its Coriolis terms, warn once; damping and current still act
  kRefuse,  // fail to load, saying why
};
inline constexpr std::array<Named<StockFallback>, 2> kStockFallbackNames{
    {{StockFallback::kDrop, "drop"}, {StockFallback::kRefuse, "refuse"}}};

// A validated nereid.hydrodynamics instance, converted to MuJoCo's body frame.
struct HydrodynamicsConfig {
  std::string name;              // instance name
  int body = -1;                 // body id
  BodyFrame frame = BodyFrame::kFRD;
  StockFallback stock_fallback = StockFallback::kDrop;
  Mat6 added_mass = Mat6::Zero();      // about the body origin, MuJoCo body frame [lin; ang]
  Mat6 linear_damping = Mat6::Zero();  // about reference_point, MuJoCo body frame
  Vec6 quadratic_damping = Vec6::Zero();
  Vec3 reference_point = Vec3::Zero(); // MuJoCo body frame, m

  bool has_added_mass() const { return !added_mass.isZero(0); }
  // Reads and validates the instance's <config>. Throws ConfigError.
  static HydrodynamicsConfig FromModel(const mjModel* m, int instance);
};

// A validated nereid.buoyancy instance.
struct BuoyancyConfig {
  std::string name;
  int body = -1;
  double volume = 0;                      // m^3
  double fluid_density = 1000;            // kg/m^3
  Vec3 center_of_buoyancy = Vec3::Zero(); // MuJoCo body frame, m
  Vec3 box_lo = Vec3::Zero();             // equivalent box for partial submersion, body frame
  Vec3 box_hi = Vec3::Zero();

  static BuoyancyConfig FromModel(const mjModel* m, int instance);
};

// Reads and validates a nereid.thruster instance's <config>. Throws ConfigError.
ThrusterModel ThrusterModelFromModel(const mjModel* m, int instance);

// Whether actuator i's group is disabled in the model's options (mjOption.disableactuator,
// groups 0-30 as MuJoCo's own internal check reads it): no force from the thruster plugin,
// no activation update in Nereid's RK4.
inline bool ActuatorGroupDisabled(const mjModel* m, int i) {
  const int group = m->actuator_group[i];
  return group >= 0 && group <= 30 && (m->opt.disableactuator & (1 << group));
}

// Reads a nereid.current instance's <config>. Throws ConfigError.
CurrentField CurrentFromModel(const mjModel* m, int instance);

// A source of plugin keys other than a model's <config>: `KeyText` gives a key's value as
// text, as a user would write it in <config> (nullopt: absent); `KeyFail` throws the
// source's ConfigError naming the key and its value (`missing`: the key is required and
// absent); it must not return.
using KeyText = std::function<std::optional<std::string>(const char* key)>;
using KeyFail = std::function<void(const char* key, const std::string& rule, bool missing)>;
// The waves a nereid.current instance's wave keys give (wave_type, wave_height, ...:
// plugins/current/README.md "Waves"), with the same rules, read from another source: a
// scenario's "waves" object (docs/scenarios.md) takes this one code path. Calm water for
// wave_type none. `where` starts a message when `fail` returns.
waves::WaveField WavesFromKeys(const std::string& where, const KeyText& text, const KeyFail& fail);

// Domain randomisation: multiplies the added mass and the damping of every
// nereid.hydrodynamics instance in `d` by the given factors, relative to the model's
// configuration. The instances own M_A and Nereid's engine reads it from them every step
// (HydrodynamicsInUse), so the mass matrix follows; Simulation::ScaleHydrodynamics checks
// the factors and calls this.
void ScaleHydrodynamics(const mjModel* m, mjData* d, double added_mass, double damping);
// The same for one nereid.hydrodynamics instance (no allocation).
void ScaleHydrodynamics(mjData* d, int instance, double added_mass, double damping);

// Plugin instance ids whose plugin is `plugin_name`, in order.
std::vector<int> FindPluginInstances(const mjModel* m, const char* plugin_name);
// The model's nereid.current instance (a model has at most one), or -1.
int FindCurrentInstance(const mjModel* m);
// The instance's name in the model ("#<id>" if unnamed).
std::string PluginInstanceName(const mjModel* m, int instance);

// The current field a nereid.current instance holds in `d`, or nullptr if `instance` is
// not one. Writing to it changes the current seen by every plugin of that mjData.
CurrentField* MutableCurrent(mjData* d, const mjModel* m, int instance);

// While an EngineScope is alive on this thread, mjData made (or models compiled) by
// MuJoCo are marked as owned by Nereid's engine: hydrodynamics instances then expect M_A
// in d->M and apply the velocity terms of added mass. Plugin configuration errors are
// kept (TakeLastPluginError) instead of being printed through mju_warning.
class EngineScope {
 public:
  EngineScope();
  ~EngineScope();
  EngineScope(const EngineScope&) = delete;
  EngineScope& operator=(const EngineScope&) = delete;
  static bool active();
};

// Whether the nereid.hydrodynamics instance `instance` of `d` leaves its added mass to
// Nereid's engine (its data was made inside an EngineScope). False for any other instance
// or before the instance has an object in `d`.
bool AddedMassInMassMatrix(const mjModel* m, const mjData* d, int instance);
// The configuration a nereid.hydrodynamics instance's object in `d` uses now (its added
// mass and damping as scaled by ScaleHydrodynamics), or nullptr for any other instance.
// The object owns M_A: Nereid's engine reads it from here every step.
const HydrodynamicsConfig* HydrodynamicsInUse(const mjModel* m, const mjData* d, int instance);

// The last configuration error a Nereid plugin reported on this thread, cleared on read.
std::string TakeLastPluginError();

// The wrench a Nereid passive plugin instance applied to its body in the last forward pass
// of `d`: force and torque in the world frame, the torque about `point` (world, m).
// nereid.hydrodynamics: damping and the added-mass velocity terms it applies as passive
// force, at the body origin (the M_A nudot part that Nereid's engine holds in the mass
// matrix is not included). nereid.buoyancy: buoyancy plus the Froude-Krylov force of an
// accelerating current, at the centre of buoyancy. False (and `out` untouched) for any
// other instance, or before the instance has an object in `d`. `part` selects a share of a
// hydrodynamics instance's wrench (kDamping: D(nu_r) nu_r; kAddedMass: its added-mass
// velocity terms); other instances have only kAll.
enum class WrenchPart { kAll, kDamping, kAddedMass };
struct PluginWrench {
  int body = -1;
  Vec3 force = Vec3::Zero();
  Vec3 torque = Vec3::Zero();
  Vec3 point = Vec3::Zero();
};
bool LastPluginWrench(const mjModel* m, const mjData* d, int instance, PluginWrench* out,
                      WrenchPart part = WrenchPart::kAll);

// Nereid plugin objects alive in this process (one per instance per mjData): for leak
// checks (a failed load must leave none behind).
long LivePluginObjects();

}  // namespace nereid

#endif  // NEREID_PLUGINS_H_
