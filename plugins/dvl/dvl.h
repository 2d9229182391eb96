// Copyright Nereid authors.
// nereid.dvl: a Doppler velocity log on a site: a Janus array of 3 or 4 beams around the
// site's z axis, each cast with mj_ray against every geom but the vehicle's own body; a
// beam that hits within the altitude window gives a range and a radial velocity (the
// velocity of the site relative to the hit point, along the beam). With three beams or
// more the 3D velocity is solved from them (bottom lock); otherwise, with water_track,
// the velocity relative to the water (nereid.current); otherwise no lock. Noise grows with
// speed and range; beams drop out at random. Keys: README.md.
#ifndef NEREID_PLUGINS_DVL_DVL_H_
#define NEREID_PLUGINS_DVL_DVL_H_

#include <array>
#include <memory>
#include <vector>

#include <mujoco/mujoco.h>

#include "common/sensor_base.h"
#include "nereid/plugins.h"

namespace nereid {

namespace dvl_keys {
inline constexpr ConfigKey kRate{"rate", "Hz", "4"};
inline constexpr ConfigKey kBeams{"beams", "—", "4"};
inline constexpr ConfigKey kBeamAngle{"beam_angle", "deg", "22.5"};
inline constexpr ConfigKey kBeamAzimuth{"beam_azimuth", "deg", "45"};
inline constexpr ConfigKey kMinAltitude{"min_altitude", "m", "0.05"};
inline constexpr ConfigKey kMaxAltitude{"max_altitude", "m", "50"};
inline constexpr ConfigKey kVelocityNoise{"velocity_noise", "m/s", "0.001"};
inline constexpr ConfigKey kNoisePerSpeed{"velocity_noise_per_speed", "—", "0.01"};
inline constexpr ConfigKey kNoisePerRange{"velocity_noise_per_range", "1/s", "0"};
inline constexpr ConfigKey kRangeNoise{"range_noise", "—", "0.005"};
inline constexpr ConfigKey kDropout{"dropout", "—", "0"};
inline constexpr ConfigKey kWaterTrack{"water_track", "—", "true"};
inline constexpr std::array kAll{sensor_keys::kSite, kRate, sensor_keys::kLatency, sensor_keys::kSeed,
                                 kBeams, kBeamAngle, kBeamAzimuth, kMinAltitude, kMaxAltitude,
                                 kVelocityNoise, kNoisePerSpeed, kNoisePerRange, kRangeNoise, kDropout,
                                 kWaterTrack};
static_assert(DistinctNames(kAll));
inline constexpr int kMaxBeams = 4;
}  // namespace dvl_keys

class Dvl final : public SensorBase {
 public:
  static constexpr const char* kName = kDvlPlugin;
  static constexpr auto kAttributes = KeyNames(dvl_keys::kAll);
  // the position stage: the velocities come from qvel (MuJoCo would run mj_subtreeVel
  // before every velocity-stage sensor plugin, docs/sensors.md "Cost")
  static constexpr int kStage = mjSTAGE_POS;
  static constexpr int kDim = 13;
  static constexpr std::array<const char*, kDim> kFields{
      "vx",     "vy",     "vz",     "status", "altitude", "range0", "range1",
      "range2", "range3", "radial0", "radial1", "radial2", "radial3"};
  // status values
  static constexpr int kNoLock = sensors::kDvlNoLock, kBottomLock = sensors::kDvlBottomLock,
                       kWaterTrack = sensors::kDvlWaterTrack;

  static std::unique_ptr<Dvl> Create(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();
  void Compute(const mjModel* m, mjData* d, int instance) noexcept;
  void Reset() noexcept { ResetBase(); }

  const std::vector<Vec3>& beams() const { return beams_; }  // site frame
  double max_altitude() const { return max_altitude_; }       // m

 private:
  sensors::Reading Measure(const mjModel* m, mjData* d);

  std::vector<Vec3> beams_;
  double cos_angle_ = 1, min_altitude_ = 0, max_altitude_ = 0;
  double velocity_noise_ = 0, per_speed_ = 0, per_range_ = 0, range_noise_ = 0, dropout_ = 0;
  bool water_track_ = true;
  int current_instance_ = -1;
  // work space of a sample, sized at load (no allocation per sample)
  std::vector<double> radial_;
  std::vector<bool> valid_, all_;
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_DVL_DVL_H_
