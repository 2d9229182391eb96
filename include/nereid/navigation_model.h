// Copyright Nereid authors.
// What a navigation filter (nereid/navigation.h) needs to know of a model's sensors: the
// nereid.imu, nereid.dvl, nereid.pressure and nereid.acoustic instances on one body, their
// sites' placements relative to the IMU, their rates and latencies, and their configured
// noise (read with the plugins' own key tables and defaults, plugins/<sensor>/README.md).
// Defined in the plugin library (plugins/navigation_model.cc).
#ifndef NEREID_NAVIGATION_MODEL_H_
#define NEREID_NAVIGATION_MODEL_H_

#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/frames.h"
#include "nereid/navigation.h"

namespace nereid {

struct NavigationSensors {
  // one sensor: its element (-1: the model has none on the body), its sensordata address,
  // its site, rate (Hz) and latency (s)
  struct Base {
    int sensor = -1, adr = 0, site = -1;
    double rate = 0, latency = 0;
    std::string name;
    bool present() const { return sensor >= 0; }
  };
  struct Imu : Base {
    nav::ImuNoise noise;
    double heading_noise = 0;  // rad
  } imu;
  struct Dvl : Base {
    std::vector<Vec3> beams;  // unit vectors, DVL frame
    double beam_angle = 0;    // rad
    double velocity_noise = 0, per_speed = 0, per_range = 0;
  } dvl;
  struct Pressure : Base {
    double rho_g = 0;  // ρ |g|, Pa/m
    double noise = 0, resolution = 0;  // Pa
  } pressure;
  struct Acoustic : Base {
    double range_noise = 0, angle_noise = 0;
    Vec3 transceiver = Vec3::Zero();
  } acoustic;
  bool exact = false;  // NEREID_EXACT_SENSORS was set
};

// The Nereid sensors whose sites are on `body` (the first of each kind; the acoustic
// transponder may be on it too). Throws ConfigError only for a malformed key (the
// plugins refuse those at load).
NavigationSensors FindNavigationSensors(const mjModel* m, int body);

}  // namespace nereid

#endif  // NEREID_NAVIGATION_MODEL_H_
