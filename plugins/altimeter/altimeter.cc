// Copyright Nereid authors.
#include "altimeter/altimeter.h"


#include "common/config_reader.h"
#include "common/plugin_base.h"

namespace nereid {

std::unique_ptr<Altimeter> Altimeter::Create(const mjModel* m, mjData*, int instance) {
  namespace k = altimeter_keys;
  ConfigReader config(m, instance, kAltimeterPlugin);
  auto a = std::make_unique<Altimeter>();
  a->ReadCommon(m, instance, config, k::kRate, kDim);
  a->min_range_ = config.Number(k::kMinRange);
  if (!(a->min_range_ >= 0)) config.Fail(k::kMinRange, "must be >= 0 (m)");
  a->max_range_ = config.Number(k::kMaxRange);
  if (!(a->max_range_ > a->min_range_)) config.Fail(k::kMaxRange, "must be > min_range (m)");
  a->noise_ = config.Number(k::kNoise);
  if (!(a->noise_ >= 0)) config.Fail(k::kNoise, "must be >= 0 (m, a standard deviation)");
  a->per_range_ = config.Number(k::kNoisePerRange);
  if (!(a->per_range_ >= 0)) config.Fail(k::kNoisePerRange, "must be >= 0 (a fraction of the range)");
  a->Reset();
  return a;
}

void Altimeter::Compute(const mjModel* m, mjData* d, int) noexcept {
  Step(d, [&] {
    const mjtNum* R = d->site_xmat + 9 * site_;
    const mjtNum dir[3] = {R[2], R[5], R[8]};  // the site's z axis
    int geom = -1;
    const double range = mj_ray(m, d, d->site_xpos + 3 * site_, dir, nullptr, 1, m->site_bodyid[site_], &geom, nullptr);
    if (geom < 0 || range < min_range_ || range > max_range_) return sensors::Reading{-1.0, 0.0};
    double r = range;
    if (!exact_) r += (noise_ + per_range_ * range) * stream_.Normal();
    return sensors::Reading{r, 1.0};
  });
}

void Altimeter::RegisterPlugin() { nereid::RegisterPlugin<Altimeter>(mjPLUGIN_SENSOR); }

}  // namespace nereid
