// Copyright Nereid authors.
// The "sensors" observation of an RL task (docs/rl.md, "Observations"): a vehicle's
// sensor plugins read by name from MuJoCo's sensordata - depth (nereid.pressure), IMU
// (nereid.imu), DVL (nereid.dvl) and acoustic fix (nereid.acoustic), each at its own rate
// and latency (the plugins' sample-and-hold) - the age of the latest fix, and a simple
// sensor-derived state for controllers (attitude from gravity and heading, velocity from
// the DVL, depth from pressure, horizontal position from the fixes, dead-reckoned on the
// DVL between them) held in an mjData of its own, which the PID and the MPC read as they
// read the truth.
#ifndef NEREID_SRC_RL_VEHICLE_SENSORS_H_
#define NEREID_SRC_RL_VEHICLE_SENSORS_H_

#include <array>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/frames.h"
#include "nereid/simulation.h"

namespace nereid::rl {

// the sensor elements' names in the model
struct SensorNames {
  std::string pressure = "bar30", imu = "imu", dvl = "dvl", acoustic = "usbl";
};

// Finds sensor `name` (a `plugin` sensor with `fields`) and returns the sensordata index of
// each field; throws ConfigError naming task, model, sensor and what is missing.
std::vector<int> FindFields(const mjModel* m, const std::string& task, const std::string& model,
                            const std::string& name, const char* plugin, const std::vector<std::string>& fields,
                            int* sensor_id);
// The site a Nereid sensor plugin sits on (its `site` key), in the body frame of `body`:
// position and rotation (body from site). Throws if the site is not on `body`.
void SiteOnBody(const mjModel* m, int sensor, int body, const std::string& where, Vec3* r, Mat3* R);
// Site `site`'s pose in its body's frame: position and rotation (body from site).
void SiteInBody(const mjModel* m, int site, Vec3* r, Mat3* R);
// A Nereid sensor plugin's `latency` key (s; its default 0 when absent).
double SensorLatency(const mjModel* m, int sensor);

// Restarts the sensor plugins of `d` (as mj_resetData does: clocks and noise streams from
// their start) without touching the state: after a task has placed its vehicle, so that
// the first samples are of the episode's start, not of the keyframe Simulation::Reset set.
void RestartSensors(const mjModel* m, mjData* d);

// The attitude from an IMU's specific force, rate and heading (body frame): a
// complementary filter (vehicle_sensors.cc).
class AttitudeFilter {
 public:
  // world from body; `fresh` starts again from the gravity direction and the heading
  Eigen::Quaterniond Update(const Vec3& f, const Vec3& w, double heading, double dt, bool fresh);

 private:
  Eigen::Quaterniond attitude_ = Eigen::Quaterniond::Identity();
};

// Whether a sample-and-hold sensor's reading changed since the last call: a new sample
// arrived in the last step (a sample equal to the one held is taken as none).
class ArrivalTest {
 public:
  ArrivalTest() = default;
  ArrivalTest(const mjModel* m, int sensor);
  // true when the whole reading differs from the last call's, or `fresh`
  bool Changed(const mjtNum* sensordata, bool fresh);

 private:
  int adr_ = 0, dim_ = 0;
  std::array<double, 16> last_{};
};

// A sensor-derived state as an mjData of its own, which controllers read as they read the
// truth. Each update of the estimate records it (the time, the thrusters' forces, the free
// joints); it is written into the mjData, and its kinematics run, on the first read after
// that: a task and policy that never ask (station keeping's and the quay wall's
// observations; not docking's, whose pose error reads it) pay nothing for it, and the
// batch's step does not touch a second mjData per environment. (VehicleSensors updates its
// estimate only once it has been read: VehicleSensors::estimate.)
class EstimateData {
 public:
  EstimateData(const Simulation& sim, const std::string& model);
  ~EstimateData();
  EstimateData(const EstimateData&) = delete;
  EstimateData& operator=(const EstimateData&) = delete;

  // A new estimate at the truth's time: the thrusters' own state copied from the truth
  // (what the controller commanded, for the MPC's thrust lag); then set the free joints.
  void Begin(const mjModel* m, const mjData* truth);
  // a free joint's position, attitude (world from body), world linear and body angular
  // velocity (at most kMaxJoints per estimate)
  void SetFreeJoint(int qpos, int dof, const Vec3& p, const Eigen::Quaterniond& q, const Vec3& v, const Vec3& w);
  // the estimate, written and its kinematics done
  mjData* Get();

  static constexpr int kMaxJoints = 2;  // the docking task's chaser and target

 private:
  struct FreeJoint {
    int qpos = 0, dof = 0;
    Vec3 p, v, w;
    Eigen::Quaterniond q;
  };
  mjData* data_ = nullptr;
  const mjModel* model_ = nullptr;
  bool stale_ = false;  // recorded since the last write and mj_kinematics
  double time_ = 0;
  std::vector<mjtNum> forces_;  // actuator_force (nout), sized once
  std::array<FreeJoint, kMaxJoints> joints_{};
  int joint_count_ = 0;
};

class VehicleSensors {
 public:
  using Names = SensorNames;
  // readings: depth (1), IMU specific force (3), rates (3), heading (1), DVL velocity (3)
  // and status (1), acoustic fix (3), its valid flag (1) and age (1)
  static constexpr int kReadings = 17;
  // the readings, then the target: target - latest valid fix (3, world; 0 before one), target depth - depth
  // (1), target heading - heading (1, wrapped to (-pi, pi])
  static constexpr int kSize = kReadings + 5;

  // Finds the sensors of `names` on `sim`'s model. Throws ConfigError naming the task, the
  // model file, the missing sensor and the plugin it should be (or the missing field).
  VehicleSensors(const Simulation& sim, int body, const std::string& task, const std::string& model,
                 const Names& names = {});
  ~VehicleSensors();
  VehicleSensors(const VehicleSensors&) = delete;
  VehicleSensors& operator=(const VehicleSensors&) = delete;

  // The next Update starts a new episode (no fix yet, estimate from scratch).
  void Reset() {
    fresh_ = true;
    estimate_current_ = false;
  }
  // Reads the sensors (after a reset, then after every environment step, once each).
  void Update(const Simulation& sim);
  // The observation (kSize floats) for a target position (world, m) and heading (rad).
  void Observe(const Vec3& target, double target_heading, float* out) const;
  // The sensor-derived state: the vehicle's free joint set from it, kinematics done (on the
  // first call after an Update: a policy that never asks pays nothing for it). It is
  // tracked from the first call on: until then an Update keeps only the readings (an RL
  // policy on the observation never asks), so a first call after an episode's first step
  // starts it again from that moment's readings, as at a reset, with the latest fix (if
  // any) moved on by its age. Asked for from the start of an episode (the scripted
  // baseline, the MPC), it is the same as if it had always been tracked.
  mjData* estimate();

 private:
  // the latest fix's age at time t (s): the time since it arrived plus the sensor's
  // latency; -1 before the episode's first fix
  double FixAge(double t) const { return has_fix_ ? t - arrival_ + fix_latency_ : -1.0; }
  // the estimate's update from the sensordata of d (dt since the last; fresh: from scratch)
  void UpdateEstimate(const mjModel* m, const mjData* d, double dt, bool fresh, bool new_fix, double age);

  // the simulation of the latest Update (the environment's, which outlives the task that
  // holds this)
  const Simulation* sim_;
  int body_, qpos_, dof_;
  int depth_, acc_, gyro_, heading_, dvl_v_, dvl_status_, fix_, fix_valid_;
  ArrivalTest fix_arrival_;  // the acoustic sensor's whole reading
  double fix_latency_ = 0;
  // sensor sites in the body frame: position and rotation (body from site)
  Vec3 r_pressure_, r_dvl_, r_acoustic_;
  Mat3 R_imu_, R_dvl_;
  EstimateData estimate_;

  // state of the episode
  bool fresh_ = true;
  double last_time_ = 0, arrival_ = 0;
  bool has_fix_ = false;
  bool tracked_ = false;           // estimate() has been called: Update keeps the estimate
  bool estimate_current_ = false;  // the estimate is of the latest Update
  std::array<double, kReadings> readings_{};
  AttitudeFilter attitude_;
  Vec3 fix_position_ = Vec3::Zero();                         // the latest valid fix, world
  Vec3 position_ = Vec3::Zero(), velocity_ = Vec3::Zero();  // world; body frame
};

}  // namespace nereid::rl

#endif  // NEREID_SRC_RL_VEHICLE_SENSORS_H_
