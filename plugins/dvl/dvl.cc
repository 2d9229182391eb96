// Copyright Nereid authors.
#include "dvl/dvl.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "common/config_reader.h"
#include "common/plugin_base.h"
#include "current/current_plugin.h"
#include "nereid/kinematics.h"

namespace nereid {

std::unique_ptr<Dvl> Dvl::Create(const mjModel* m, mjData*, int instance) {
  namespace k = dvl_keys;
  ConfigReader config(m, instance, kDvlPlugin);
  auto dvl = std::make_unique<Dvl>();
  dvl->ReadCommon(m, instance, config, k::kRate, kDim);
  const double beams = config.Number(k::kBeams);
  if (!(beams == 3 || beams == 4)) config.Fail(k::kBeams, "a DVL has 3 or 4 beams (three solve the 3D velocity)");
  const double angle = config.Number(k::kBeamAngle);
  if (!(angle > 0 && angle < 90)) config.Fail(k::kBeamAngle, "must be in (0, 90) degrees from the boresight");
  const double azimuth = config.Number(k::kBeamAzimuth);
  constexpr double kDeg = std::numbers::pi / 180;
  dvl->beams_ = sensors::JanusBeams(static_cast<int>(beams), angle * kDeg, azimuth * kDeg);
  dvl->cos_angle_ = std::cos(angle * kDeg);
  dvl->min_altitude_ = config.Number(k::kMinAltitude);
  if (!(dvl->min_altitude_ >= 0)) config.Fail(k::kMinAltitude, "must be >= 0 (m)");
  dvl->max_altitude_ = config.Number(k::kMaxAltitude);
  if (!(dvl->max_altitude_ > dvl->min_altitude_)) config.Fail(k::kMaxAltitude, "must be > min_altitude (m)");
  auto non_negative = [&](const ConfigKey& key) {
    const double x = config.Number(key);
    if (!(x >= 0)) config.Fail(key, std::string("must be >= 0 (") + key.units + ")");
    return x;
  };
  dvl->velocity_noise_ = non_negative(k::kVelocityNoise);
  dvl->per_speed_ = non_negative(k::kNoisePerSpeed);
  dvl->per_range_ = non_negative(k::kNoisePerRange);
  dvl->range_noise_ = non_negative(k::kRangeNoise);
  dvl->dropout_ = config.Number(k::kDropout);
  if (!(dvl->dropout_ >= 0 && dvl->dropout_ <= 1)) config.Fail(k::kDropout, "must be a probability in [0, 1]");
  const std::string water = *config.Text(k::kWaterTrack);
  if (water != "true" && water != "false") config.Fail(k::kWaterTrack, "must be true or false");
  dvl->water_track_ = water == "true";
  dvl->current_instance_ = FindCurrentInstance(m);
  dvl->radial_.assign(dvl->beams_.size(), 0.0);
  dvl->valid_.assign(dvl->beams_.size(), false);
  dvl->all_.assign(dvl->beams_.size(), true);
  dvl->Reset();
  return dvl;
}

sensors::Reading Dvl::Measure(const mjModel* m, mjData* d) {
  sensors::Reading y{};
  for (int i = 0; i < dvl_keys::kMaxBeams; ++i) y[static_cast<size_t>(5 + i)] = -1;  // no range
  const Mat3 R = SiteRotation(d, site_);
  const Vec3 p(d->site_xpos[3 * site_], d->site_xpos[3 * site_ + 1], d->site_xpos[3 * site_ + 2]);
  mjtNum vel[6];
  // site frame, the lever arm included; from qvel (the position stage: no mj_subtreeVel)
  SiteVelocity(m, d, site_, true, vel);
  const Vec3 v_site(vel[3], vel[4], vel[5]);
  const int own_body = m->site_bodyid[site_];
  const size_t n = beams_.size();
  std::vector<double>& radial = radial_;
  std::vector<bool>& valid = valid_;
  std::fill(radial.begin(), radial.end(), 0.0);
  std::fill(valid.begin(), valid.end(), false);
  double altitude_sum = 0;
  int hits = 0;
  for (size_t i = 0; i < n; ++i) {
    const Vec3 dir = R * beams_[i];
    int geom = -1;
    const double range = mj_ray(m, d, p.data(), dir.data(), nullptr, 1, own_body, &geom, nullptr);
    const bool dropped = !exact_ && dropout_ > 0 && stream_.Uniform() < dropout_;
    if (geom < 0 || range < 0 || dropped) continue;
    const double altitude = range * cos_angle_;
    if (altitude < min_altitude_ || altitude > max_altitude_) continue;
    const Vec3 hit = p + range * dir;
    const Vec3 v_bottom = R.transpose() * BodyPointVelocity(m, d, m->geom_bodyid[geom], hit);
    double r = sensors::RadialVelocity(v_site - v_bottom, beams_[i]);
    double measured_range = range;
    if (!exact_) {
      r += sensors::BeamNoise(velocity_noise_, per_speed_, per_range_, r, range) * stream_.Normal();
      measured_range *= 1 + range_noise_ * stream_.Normal();
    }
    radial[i] = r;
    valid[i] = true;
    y[5 + i] = measured_range;
    y[9 + i] = r;
    altitude_sum += measured_range * cos_angle_;
    ++hits;
  }
  Vec3 v = Vec3::Zero();
  if (sensors::SolveVelocity(beams_, radial, valid, &v)) {
    y[3] = kBottomLock;
    y[4] = altitude_sum / hits;
  } else if (water_track_) {
    // velocity through the water: every beam sees water at the site's depth
    Vec3 water = Vec3::Zero();
    if (const CurrentField* field = CurrentPlugin::Field(d, current_instance_)) {
      water = R.transpose() * field->Evaluate(d->time, p).velocity;
    }
    const std::vector<bool>& all = all_;
    for (size_t i = 0; i < n; ++i) {
      radial[i] = sensors::RadialVelocity(v_site - water, beams_[i]);
      if (!exact_) radial[i] += sensors::BeamNoise(velocity_noise_, per_speed_, 0, radial[i], 0) * stream_.Normal();
    }
    sensors::SolveVelocity(beams_, radial, all, &v);
    y[3] = kWaterTrack;
  } else {
    y[3] = kNoLock;
  }
  y[0] = v.x();
  y[1] = v.y();
  y[2] = v.z();
  return y;
}

void Dvl::Compute(const mjModel* m, mjData* d, int) noexcept {
  Step(d, [&] { return Measure(m, d); });
}

void Dvl::RegisterPlugin() { nereid::RegisterPlugin<Dvl>(mjPLUGIN_SENSOR); }

}  // namespace nereid
