// Copyright Nereid authors.
#include "imu/imu.h"

#include <cmath>
#include <string>

#include "common/config_reader.h"
#include "common/plugin_base.h"
#include "nereid/kinematics.h"

namespace nereid {
namespace {

sensors::AxisNoise ReadAxis(const ConfigReader& config, const ConfigKey& noise, const ConfigKey& walk,
                            const ConfigKey& turn_on, const ConfigKey& scale, const ConfigKey& resolution) {
  sensors::AxisNoise n;
  auto non_negative = [&](const ConfigKey& key) {
    const double x = config.Number(key);
    if (!(x >= 0)) config.Fail(key, std::string("must be >= 0 (") + key.units + ")");
    return x;
  };
  n.white_density = non_negative(noise);
  n.bias_walk = non_negative(walk);
  n.turn_on_bias = non_negative(turn_on);
  n.scale_factor = config.Number(scale);
  if (!(std::abs(n.scale_factor) < 1)) config.Fail(scale, "must be in (-1, 1) (a fraction of the reading)");
  n.resolution = non_negative(resolution);
  return n;
}

}  // namespace

std::unique_ptr<Imu> Imu::Create(const mjModel* m, mjData*, int instance) {
  namespace k = imu_keys;
  ConfigReader config(m, instance, kImuPlugin);
  auto imu = std::make_unique<Imu>();
  imu->ReadCommon(m, instance, config, k::kRate, kDim);
  imu->accel_ = ReadAxis(config, k::kAccelNoise, k::kAccelWalk, k::kAccelTurnOn, k::kAccelScale, k::kAccelResolution);
  imu->gyro_ = ReadAxis(config, k::kGyroNoise, k::kGyroWalk, k::kGyroTurnOn, k::kGyroScale, k::kGyroResolution);
  imu->heading_noise_ = config.Number(k::kHeadingNoise);
  if (!(imu->heading_noise_ >= 0)) config.Fail(k::kHeadingNoise, "must be >= 0 (rad, a standard deviation)");
  imu->Reset();
  return imu;
}

// exact: none of the axes' noise terms (the same draws as a noise model of zeros: the turn-on
// bias's draw is still taken, times 0)
constexpr sensors::AxisNoise kExactAxis{};

void Imu::Reset() noexcept {
  ResetBase();
  for (int i = 0; i < 6; ++i) axes_[i].Start(exact_ ? kExactAxis : i < 3 ? accel_ : gyro_, &stream_);
}

std::array<double, 6> Imu::biases() const {
  std::array<double, 6> b{};
  for (int i = 0; i < 6; ++i) b[i] = axes_[i].bias();
  return b;
}

void Imu::Compute(const mjModel* m, mjData* d, int) noexcept {
  Step(d, [&] {
    mjtNum acc[6], vel[3];
    // as MuJoCo's accelerometer and gyro (site frame, gravity included), from qacc at this
    // instant only: MuJoCo's cacc (mj_rnePostConstraint) is not needed (docs/sensors.md "Cost");
    // the rate is the body's angular velocity (cvel's, world axes) in the site's axes, the
    // angular part of mj_objectVelocity's result
    SiteAcceleration(m, d, site_, true, acc);
    mju_mulMatTVec3(vel, d->site_xmat + 9 * site_, d->cvel + 6 * m->site_bodyid[site_]);
    sensors::Reading y{};
    const double T = period();
    const sensors::AxisNoise& accel = exact_ ? kExactAxis : accel_;
    const sensors::AxisNoise& gyro = exact_ ? kExactAxis : gyro_;
    for (int i = 0; i < 3; ++i) y[i] = axes_[i].Sample(accel, T, acc[3 + i], &stream_);
    for (int i = 0; i < 3; ++i) y[3 + i] = axes_[3 + i].Sample(gyro, T, vel[i], &stream_);
    // heading: the site's x axis in the world's horizontal plane, from world x towards y
    const mjtNum* R = d->site_xmat + 9 * site_;
    double heading = std::atan2(R[3], R[0]);
    if (heading_noise_ > 0 && !exact_) heading = WrapAngle(heading + heading_noise_ * stream_.Normal());
    y[6] = heading;
    return y;
  });
}

void Imu::RegisterPlugin() { nereid::RegisterPlugin<Imu>(mjPLUGIN_SENSOR); }

}  // namespace nereid
