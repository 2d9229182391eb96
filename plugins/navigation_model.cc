// Copyright Nereid authors.
// The sensors a navigation filter reads (include/nereid/navigation_model.h), with their
// keys read through the plugins' own tables so that the filter's noise is the sensors'.
#include "nereid/navigation_model.h"

#include <cmath>

#include "acoustic/acoustic.h"
#include "common/config_reader.h"
#include "common/sensor_base.h"
#include "dvl/dvl.h"
#include "imu/imu.h"
#include "nereid/plugins.h"
#include "pressure/pressure.h"

namespace nereid {
namespace {

constexpr double kDeg = M_PI / 180.0;

// Fills the common fields of the first sensor element of plugin `plugin` whose site is on
// `body` (or any body when body < 0); returns its reader's instance, or -1.
int FindOne(const mjModel* m, int body, const char* plugin, NavigationSensors::Base* out) {
  for (int instance : FindPluginInstances(m, plugin)) {
    const ConfigReader config(m, instance, plugin);
    const std::optional<std::string> site_name = config.Raw(sensor_keys::kSite);
    if (!site_name) continue;
    const int site = mj_name2id(m, mjOBJ_SITE, site_name->c_str());
    if (site < 0 || (body >= 0 && m->site_bodyid[site] != body)) continue;
    for (int j = 0; j < m->nsensor; ++j) {
      if (m->sensor_type[j] != mjSENS_PLUGIN || m->sensor_plugin[j] != instance) continue;
      out->sensor = j;
      out->adr = m->sensor_adr[j];
      out->site = site;
      out->latency = config.Number(sensor_keys::kLatency);
      const char* n = mj_id2name(m, mjOBJ_SENSOR, j);
      out->name = n ? n : PluginInstanceName(m, instance);
      return instance;
    }
  }
  return -1;
}

}  // namespace

NavigationSensors FindNavigationSensors(const mjModel* m, int body) {
  NavigationSensors s;
  s.exact = ExactSensorsRequested();
  if (int i = FindOne(m, body, kImuPlugin, &s.imu); i >= 0) {
    namespace k = imu_keys;
    const ConfigReader c(m, i, kImuPlugin);
    s.imu.rate = c.Number(k::kRate);
    nav::ImuNoise& n = s.imu.noise;
    n.accel_density = c.Number(k::kAccelNoise);
    n.accel_walk = c.Number(k::kAccelWalk);
    n.accel_turn_on = c.Number(k::kAccelTurnOn);
    n.accel_resolution = c.Number(k::kAccelResolution);
    n.gyro_density = c.Number(k::kGyroNoise);
    n.gyro_walk = c.Number(k::kGyroWalk);
    n.gyro_turn_on = c.Number(k::kGyroTurnOn);
    n.gyro_resolution = c.Number(k::kGyroResolution);
    n.period = 1.0 / s.imu.rate;
    s.imu.heading_noise = c.Number(k::kHeadingNoise);
  }
  if (int i = FindOne(m, body, kDvlPlugin, &s.dvl); i >= 0) {
    namespace k = dvl_keys;
    const ConfigReader c(m, i, kDvlPlugin);
    s.dvl.rate = c.Number(k::kRate);
    s.dvl.beam_angle = c.Number(k::kBeamAngle) * kDeg;
    s.dvl.beams = sensors::JanusBeams(static_cast<int>(c.Number(k::kBeams)), s.dvl.beam_angle,
                                      c.Number(k::kBeamAzimuth) * kDeg);
    s.dvl.velocity_noise = c.Number(k::kVelocityNoise);
    s.dvl.per_speed = c.Number(k::kNoisePerSpeed);
    s.dvl.per_range = c.Number(k::kNoisePerRange);
  }
  if (int i = FindOne(m, body, kPressurePlugin, &s.pressure); i >= 0) {
    namespace k = pressure_keys;
    const ConfigReader c(m, i, kPressurePlugin);
    s.pressure.rate = c.Number(k::kRate);
    const double g = std::sqrt(m->opt.gravity[0] * m->opt.gravity[0] + m->opt.gravity[1] * m->opt.gravity[1] +
                               m->opt.gravity[2] * m->opt.gravity[2]);
    s.pressure.rho_g = c.Number(k::kFluidDensity) * g;
    s.pressure.noise = c.Number(k::kNoise);
    s.pressure.resolution = c.Number(k::kResolution);
  }
  if (int i = FindOne(m, body, kAcousticPlugin, &s.acoustic); i >= 0) {
    namespace k = acoustic_keys;
    const ConfigReader c(m, i, kAcousticPlugin);
    s.acoustic.rate = c.Number(k::kRate);
    s.acoustic.range_noise = c.Number(k::kRangeNoise);
    s.acoustic.angle_noise = c.Number(k::kAngleNoise);
    s.acoustic.transceiver = *c.Vector3(k::kTransceiver);
  }
  return s;
}

}  // namespace nereid
