// Copyright Nereid authors.
// What Nereid's sensor plugins (nereid.pressure, imu, dvl, acoustic, altimeter, marker) share: the
// site they sit on, the one <sensor><plugin/> element that shows their reading, their
// sample-and-hold clock with latency (nereid/sensors.h), their random stream and the
// switch to exact readings. Rate, latency and noise are the plugin's own keys: MuJoCo's
// delay, interval and noise attributes are refused on a Nereid sensor (docs/sensors.md,
// "Rates, latency and MuJoCo's sensor attributes").
#ifndef NEREID_PLUGINS_COMMON_SENSOR_BASE_H_
#define NEREID_PLUGINS_COMMON_SENSOR_BASE_H_

#include <cstdint>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "common/config_reader.h"
#include "nereid/config_key.h"
#include "nereid/sensors.h"

namespace nereid {

// Keys every sensor has (each sensor's table lists them first, with its own default rate).
namespace sensor_keys {
inline constexpr ConfigKey kSite{"site", "—", nullptr, true};
inline constexpr ConfigKey kLatency{"latency", "s", "0"};
inline constexpr ConfigKey kSeed{"seed", "—", "0"};
inline constexpr double kMaxLatency = 60;  // s
}  // namespace sensor_keys

// A sensor samples at most once per step: a rate above the physics rate 1/timestep (beyond
// the rounding of 1e-9) is refused, at load and when the time step changes.
inline bool RateAbovePhysics(double rate, double timestep) { return rate * timestep > 1 + 1e-9; }

class SensorBase {
 public:
  // Reads the common keys (site, rate, latency, seed) and finds the sensor element.
  void ReadCommon(const mjModel* m, int instance, const ConfigReader& config, const ConfigKey& rate_key,
                  int dim);
  // One pipeline call: takes a sample when one is due (measure() returns it), and writes
  // the delivered reading (zeros before the first) into the sensor's sensordata. measure()
  // returns a sensors::Reading (its first dim entries); nothing is allocated per sample.
  // Between sample instants with nothing to deliver the call returns at once: sensordata
  // still holds the delivered reading (MuJoCo never writes a plugin's sensordata; a reset
  // zeroes it and restarts the clock, so the next call writes again).
  template <class Measure>
  void Step(mjData* d, Measure&& measure) {
    if (sensor_ < 0 || clock_.Idle(d->time)) return;
    if (clock_.Due(d->time)) clock_.Push(d->time, measure());
    mjtNum* out = d->sensordata + adr_;
    const sensors::Reading* reading = clock_.Deliver(d->time);
    for (int i = 0; i < dim_; ++i) out[i] = reading ? (*reading)[static_cast<size_t>(i)] : 0.0;
  }
  void ResetBase() {
    clock_.Reset();
    stream_.Restart();
  }
  // A new seed for the run (SeedSensors): the stream restarts.
  void Reseed(uint64_t run_seed);

  int site() const { return site_; }
  bool exact() const { return exact_; }
  // Exact (no noise, bias, quantisation or dropout) or as configured; takes effect at the
  // next Reset (SetSensorsExact resets).
  void set_exact(bool exact) { exact_ = exact; }
  double period() const { return clock_.period(); }
  double latency() const { return clock_.latency(); }
  const sensors::SampleClock& clock() const { return clock_; }
  const std::string& name() const { return name_; }

 protected:
  std::string name_;
  int site_ = -1, sensor_ = -1, adr_ = 0, dim_ = 0;
  bool exact_ = false;  // NEREID_EXACT_SENSORS set: no noise, bias, quantisation or dropout
  uint64_t key_seed_ = 0;
  sensors::SampleClock clock_;
  sensors::Stream stream_;
};

// True when the environment variable NEREID_EXACT_SENSORS is set to anything but "" or "0".
bool ExactSensorsRequested();

}  // namespace nereid

#endif  // NEREID_PLUGINS_COMMON_SENSOR_BASE_H_
