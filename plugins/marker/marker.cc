// Copyright Nereid authors.
#include "marker/marker.h"

#include <cmath>
#include <numbers>
#include <optional>
#include <string>

#include <Eigen/Geometry>

#include "common/config_reader.h"
#include "common/plugin_base.h"
#include "nereid/kinematics.h"

namespace nereid {
namespace {

double Angle(const ConfigReader& config, const ConfigKey& key, double upper) {
  const double deg = config.Number(key);
  if (!(deg > 0 && deg <= upper)) {
    config.Fail(key, "must be in (0, " + std::to_string(static_cast<int>(upper)) + "] degrees");
  }
  return std::cos(deg * std::numbers::pi / 180);
}

}  // namespace

std::unique_ptr<Marker> Marker::Create(const mjModel* m, mjData*, int instance) {
  namespace k = marker_keys;
  ConfigReader config(m, instance, kMarkerPlugin);
  auto s = std::make_unique<Marker>();
  s->ReadCommon(m, instance, config, k::kRate, kDim);
  const std::optional<std::string> marker = config.Raw(k::kMarker);
  if (!marker) config.FailMissing(k::kMarker, "the name of the site at the marker's centre, its +z the marker's normal");
  s->marker_ = mj_name2id(m, mjOBJ_SITE, marker->c_str());
  if (s->marker_ < 0) config.Fail(k::kMarker, "no site of that name in the model");
  if (m->site_bodyid[s->marker_] == m->site_bodyid[s->site_]) {
    config.Fail(k::kMarker, "is on the camera's own body; the marker must be on another body (or the world)");
  }
  s->cos_fov_ = Angle(config, k::kFov, 90);
  s->cos_view_ = Angle(config, k::kMaxViewAngle, 90);
  s->min_range_ = config.Number(k::kMinRange);
  if (!(s->min_range_ >= 0)) config.Fail(k::kMinRange, "must be >= 0 (m)");
  s->max_range_ = config.Number(k::kMaxRange);
  if (!(s->max_range_ > s->min_range_)) config.Fail(k::kMaxRange, "must be > min_range (m)");
  s->position_noise_ = config.Number(k::kPositionNoise);
  if (!(s->position_noise_ >= 0)) config.Fail(k::kPositionNoise, "must be >= 0 (m per m of range, a standard deviation)");
  s->angle_noise_ = config.Number(k::kAngleNoise);
  if (!(s->angle_noise_ >= 0)) config.Fail(k::kAngleNoise, "must be >= 0 (rad, a standard deviation)");
  s->Reset();
  return s;
}

void Marker::Compute(const mjModel* m, mjData* d, int) noexcept {
  Step(d, [&] {
    sensors::Reading y{};
    y[6] = -1;  // no detection: zeros, range -1, valid 0
    const Vec3 line = SitePosition(d, marker_) - SitePosition(d, site_);  // camera to marker, world
    const double range = line.norm();
    if (!(range >= min_range_ && range <= max_range_ && range > 0)) return y;
    const Mat3 Rc = SiteRotation(d, site_), Rm = SiteRotation(d, marker_);
    // inside the view cone around the optical axis (+z), and the marker's face towards the camera
    if (Rc.col(2).dot(line) < cos_fov_ * range || -Rm.col(2).dot(line) < cos_view_ * range) return y;
    // line of sight: the first geom along it (the camera's body excluded) must be the
    // marker's body's (the marker sits on its surface) or lie beyond the marker
    mjtNum dir[3] = {line.x() / range, line.y() / range, line.z() / range};
    int geom = -1;
    const double hit = mj_ray(m, d, d->site_xpos + 3 * site_, dir, nullptr, 1, m->site_bodyid[site_], &geom, nullptr);
    if (geom >= 0 && hit < range - 1e-6 && m->geom_bodyid[geom] != m->site_bodyid[marker_]) return y;
    Vec3 p = Rc.transpose() * line;  // the marker in the camera frame
    Mat3 R = Rc.transpose() * Rm;    // camera from marker
    if (!exact_) {
      const double sigma = position_noise_ * range;
      for (int i = 0; i < 3; ++i) p[i] += sigma * stream_.Normal();
      Vec3 e;
      for (int i = 0; i < 3; ++i) e[i] = angle_noise_ * stream_.Normal();
      if (e.norm() > 0) R = R * Eigen::AngleAxisd(e.norm(), e.normalized()).toRotationMatrix();
    }
    const Eigen::AngleAxisd aa(R);
    const Vec3 r = aa.angle() * aa.axis();
    y = {p.x(), p.y(), p.z(), r.x(), r.y(), r.z(), p.norm(), 1.0};
    return y;
  });
}

void Marker::RegisterPlugin() { nereid::RegisterPlugin<Marker>(mjPLUGIN_SENSOR); }

}  // namespace nereid
