// Copyright Nereid authors.
// A vehicle's navigation in a running simulation: the error-state filter of
// nereid/navigation.h fed, once per step, with the readings of the model's Nereid sensors on
// the vehicle (nereid/navigation_model.h), and its estimate of the vehicle's body pose and
// velocity. A scenario's "feedback": "estimate" makes its controllers fly on it
// (ScenarioControl, nereid/runner.h); nereid run writes it as trajectory.csv's est.*
// columns (docs/outputs.md).
//
// Reading it per step (a viewer's ghost, a script): ScenarioControl::navigator() is null
// without an estimator; after each BeforeStep() its estimate() is the vehicle's body pose
// at d->time (position, world-from-body quaternion, world velocity, body rates), and
// EstColumns()/EstRow() give the same values as named numbers.
#ifndef NEREID_NAVIGATOR_H_
#define NEREID_NAVIGATOR_H_

#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/navigation.h"
#include "nereid/navigation_model.h"
#include "nereid/sensors.h"

namespace nereid {

// A scenario's "navigation" object (docs/scenarios.md): the filter's initial uncertainty
// (standard deviations); the biases' default to the IMU's turn-on bias.
struct NavigationSettings {
  double initial_position_sd = 0.05;   // m
  double initial_velocity_sd = 0.02;   // m/s
  double initial_attitude_sd = 0.01;   // rad
  double initial_current_sd = 0.5;     // m/s, the current's (its estimate starts at 0)
  double current_walk = 1e-3;          // m/s/√s, the current's random walk
  bool use_acoustic = true;            // false: dead reckoning (IMU, DVL, depth, heading)
};

// A body's estimated pose and velocity (the free joint's convention: world position,
// world-from-body quaternion, world linear velocity of the body origin, body-frame rates).
struct BodyEstimate {
  Vec3 position = Vec3::Zero();
  Eigen::Quaterniond quaternion = Eigen::Quaterniond::Identity();
  Vec3 velocity = Vec3::Zero();
  Vec3 angular_velocity = Vec3::Zero();
};

class Navigator {
 public:
  // Starts the filter at the body's present state in d. Throws ConfigError, naming `where`
  // (the scenario), the model and the missing sensor, when the body lacks a nereid.imu,
  // a nereid.pressure, or both of nereid.dvl and nereid.acoustic.
  Navigator(const mjModel* m, const mjData* d, int body, const NavigationSettings& settings,
            const std::string& where, const std::string& model);

  // Once per step, before the controllers and mj_step: takes the readings the last step
  // computed (their sample instants), updates the filter with them and propagates it to d->time.
  void Update(const mjModel* m, const mjData* d);

  int body() const { return body_; }
  const BodyEstimate& estimate() const { return estimate_; }
  const nav::ErrorStateKf& filter() const { return kf_; }
  const NavigationSensors& sensors() const { return sensors_; }
  // The NEES of the present estimate against d's truth (9 dof: IMU position, velocity, attitude).
  double Nees(const mjData* d) const;

  // trajectory.csv's est.* columns and their values for d, the estimate carried from the
  // filter's time to d->time with the IMU's held reading (a row is written after the step:
  // one step after the last Update), the truth read from d for the errors
  static std::vector<std::string> EstColumns();
  void EstRow(const mjData* d, std::vector<double>* row) const;

 private:
  struct Clock {  // replicates a sensor's sample-and-hold clock to know when it reads anew
    sensors::SampleClock clock;
    double last = -1e300;
    // true when a reading taken at *sample_time is delivered at t; *sampled (if given):
    // whether the sensor takes a sample at t
    bool New(double t, double* sample_time, bool* sampled = nullptr);
  };
  nav::NavState TruthAtImu(const mjData* d) const;
  BodyEstimate BodyFromImu(const nav::NavState& x) const;
  void MakeEstimate() { estimate_ = BodyFromImu(kf_.state()); }

  int body_ = -1, free_dof_ = -1;
  NavigationSensors sensors_;
  NavigationSettings settings_;
  nav::ErrorStateKf kf_;
  Mat3 C_bi_ = Mat3::Identity();  // the IMU's rotation in the body
  Vec3 r_bi_ = Vec3::Zero();      // the IMU's position in the body
  Vec3 r_dvl_, r_pressure_, r_acoustic_;  // lever arms, IMU frame
  Mat3 C_dvl_ = Mat3::Identity();         // the DVL frame in the IMU frame
  Clock imu_clock_, dvl_clock_, pressure_clock_, acoustic_clock_;
  Vec3 f_ = Vec3::Zero(), w_ = Vec3::Zero();  // the IMU's held reading
  Vec3 gravity_ = Vec3::Zero();
  bool have_imu_ = false;
  double last_time_ = 0;
  BodyEstimate estimate_;
};

}  // namespace nereid

#endif  // NEREID_NAVIGATOR_H_
