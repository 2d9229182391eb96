// Copyright Nereid authors.
// The docking task's "sensors" observation (docs/rl.md, "Observations"): what the chaser
// knows from its camera's pose of the marker on the target's stern (nereid.marker, at its
// rate and latency, lost outside the camera's view), its IMU with heading and its pressure
// sensor; and a sensor-derived state for the scripted PID (DockingSensors::estimate):
//   - attitude from the IMU (AttitudeFilter), rates from the gyro, depth from the pressure;
//   - the docking pose from the first detection, held in a frame that moves with the
//     target (the chaser's own horizontal position is unobservable without a DVL or a fix,
//     and docking needs only the relative pose): each later detection measures the chaser's
//     position in that frame, moved on over the detection's latency, and an alpha-beta
//     filter (the steady-state Kalman filter of a constant-velocity model, Benedict-Bordner
//     gains beta = alpha^2 / (2 - alpha)) gives position and velocity relative to the target,
//     predicted between detections;
//   - the target's depth and attitude refreshed at each detection.
#ifndef NEREID_SRC_RL_DOCKING_SENSORS_H_
#define NEREID_SRC_RL_DOCKING_SENSORS_H_

#include <array>
#include <string>

#include <Eigen/Geometry>
#include <mujoco/mujoco.h>

#include "nereid/frames.h"
#include "nereid/simulation.h"
#include "rl/vehicle_sensors.h"

namespace nereid::rl {

// the sensor elements' names in the model
struct DockingSensorNames {
  std::string camera = "camera", imu = "imu", pressure = "bar30";
};

class DockingSensors {
 public:
  using Names = DockingSensorNames;
  // readings: depth (1), IMU specific force (3), rates (3), heading (1), the marker's pose
  // in the camera frame (3 m, 3 rad rotation vector), its valid flag (1), the age of the
  // latest detection (1, s; -1 before the first)
  static constexpr int kReadings = 16;
  // then the chaser's error to the docking pose from the estimate, chaser frame: position
  // (3, m) and rotation vector (3, rad); zeros before the first detection
  static constexpr int kSize = kReadings + 6;
  static constexpr double kAlpha = 0.8;       // the alpha-beta filter's gain on a detection
  static constexpr double kLostAfter = 1.0;   // s without a detection: the marker is lost
  static constexpr double kSmooth = 0.2;      // the share of a detection in the target's attitude
  static constexpr double kDepthAlpha = 0.3;  // and on the depth, every step

  // `offset`: the docking pose is `offset` m behind the target's origin along its x axis.
  // Throws ConfigError naming the task, the model file and a missing sensor or field, or a
  // marker that is not on the target.
  DockingSensors(const Simulation& sim, int chaser, int target, double offset, const std::string& task,
                 const std::string& model, const Names& names = {});
  ~DockingSensors();
  DockingSensors(const DockingSensors&) = delete;
  DockingSensors& operator=(const DockingSensors&) = delete;

  // The next Update starts a new episode (nothing seen yet).
  void Reset() { fresh_ = true; }
  // Reads the sensors (after a reset, then after every environment step, once each).
  void Update(const Simulation& sim);
  void Observe(float* out);
  // The sensor-derived state: both free joints set from it (the target at the estimated
  // docking pose's), kinematics done.
  mjData* estimate();

  // whether the marker was seen this episode, and the docking pose in the estimate's frame
  bool has_dock() const { return has_dock_; }
  // the time since the latest detection (s; 0 before the first)
  double since_detection(double time) const { return has_dock_ ? time - last_detection_ : 0.0; }
  const Vec3& dock_position() const { return dock_p_; }
  const Eigen::Quaterniond& dock_attitude() const { return dock_q_; }
  // the heading sensor's latest reading (rad)
  double heading() const { return readings_[7]; }

 private:
  int chaser_, chaser_qpos_, chaser_dof_, target_qpos_, target_dof_;
  double offset_;
  int depth_, acc_, gyro_, heading_, marker_, valid_;
  double latency_ = 0;
  Vec3 r_camera_, r_marker_, r_pressure_;
  Mat3 R_camera_, R_marker_, R_imu_;
  ArrivalTest arrival_;
  AttitudeFilter attitude_filter_;
  EstimateData estimate_;

  // the estimates of the last steps (the delayed detections' instants): time, chaser
  // position and attitude; the newest at past_head_ - 1
  struct Past {
    double time = 0;
    Vec3 position = Vec3::Zero();
    Eigen::Quaterniond attitude = Eigen::Quaterniond::Identity();
  };
  const Past& At(double time) const;  // the newest estimate at or before `time`
  std::array<Past, 64> past_{};
  size_t past_head_ = 0, past_count_ = 0;
  Past present_;  // before any

  // the episode
  bool fresh_ = true, has_dock_ = false;
  double last_time_ = 0, arrival_time_ = 0, last_detection_ = 0;
  std::array<double, kReadings> readings_{};
  Eigen::Quaterniond attitude_q_ = Eigen::Quaterniond::Identity(), dock_q_ = Eigen::Quaterniond::Identity();
  Vec3 position_ = Vec3::Zero(), velocity_ = Vec3::Zero(), rate_ = Vec3::Zero(), dock_p_ = Vec3::Zero();
};

}  // namespace nereid::rl

#endif  // NEREID_SRC_RL_DOCKING_SENSORS_H_
