// Copyright Nereid authors.
// nereid.imu: an inertial measurement unit on a site: the accelerometer's specific force
// (the site's acceleration minus gravity, in the site frame, as MuJoCo's accelerometer),
// the gyroscope's angular rate (site frame) and a magnetic heading, each axis with white
// noise, a bias random walk, a turn-on bias, a scale factor and quantisation
// (nereid/sensors.h AxisNoise), sampled at a rate with a latency. Keys: README.md.
#ifndef NEREID_PLUGINS_IMU_IMU_H_
#define NEREID_PLUGINS_IMU_IMU_H_

#include <array>
#include <memory>

#include <mujoco/mujoco.h>

#include "common/sensor_base.h"
#include "nereid/plugins.h"

namespace nereid {

namespace imu_keys {
inline constexpr ConfigKey kRate{"rate", "Hz", "100"};
inline constexpr ConfigKey kAccelNoise{"accel_noise_density", "m/s²/√Hz", "9.8e-4"};
inline constexpr ConfigKey kAccelWalk{"accel_bias_walk", "m/s³/√Hz", "1e-4"};
inline constexpr ConfigKey kAccelTurnOn{"accel_turn_on_bias", "m/s²", "0.245"};
inline constexpr ConfigKey kAccelScale{"accel_scale_factor", "—", "0"};
inline constexpr ConfigKey kAccelResolution{"accel_resolution", "m/s²", "4.79e-3"};
inline constexpr ConfigKey kGyroNoise{"gyro_noise_density", "rad/s/√Hz", "7e-5"};
inline constexpr ConfigKey kGyroWalk{"gyro_bias_walk", "rad/s²/√Hz", "1e-5"};
inline constexpr ConfigKey kGyroTurnOn{"gyro_turn_on_bias", "rad/s", "0.0175"};
inline constexpr ConfigKey kGyroScale{"gyro_scale_factor", "—", "0"};
inline constexpr ConfigKey kGyroResolution{"gyro_resolution", "rad/s", "1.07e-3"};
inline constexpr ConfigKey kHeadingNoise{"heading_noise", "rad", "0.0175"};
inline constexpr std::array kAll{sensor_keys::kSite, kRate, sensor_keys::kLatency, sensor_keys::kSeed,
                                 kAccelNoise, kAccelWalk, kAccelTurnOn, kAccelScale, kAccelResolution,
                                 kGyroNoise, kGyroWalk, kGyroTurnOn, kGyroScale, kGyroResolution,
                                 kHeadingNoise};
static_assert(DistinctNames(kAll));
}  // namespace imu_keys

class Imu final : public SensorBase {
 public:
  static constexpr const char* kName = kImuPlugin;
  static constexpr auto kAttributes = KeyNames(imu_keys::kAll);
  static constexpr int kStage = mjSTAGE_ACC;
  static constexpr int kDim = 7;
  static constexpr std::array<const char*, kDim> kFields{"acc_x",  "acc_y",  "acc_z", "gyro_x",
                                                         "gyro_y", "gyro_z", "heading"};

  static std::unique_ptr<Imu> Create(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();
  void Compute(const mjModel* m, mjData* d, int instance) noexcept;
  void Reset() noexcept;

  // The current biases (turn-on plus random walk) of the 6 inertial axes.
  std::array<double, 6> biases() const;

 private:
  sensors::AxisNoise accel_, gyro_;
  double heading_noise_ = 0;
  std::array<sensors::AxisState, 6> axes_{};
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_IMU_IMU_H_
