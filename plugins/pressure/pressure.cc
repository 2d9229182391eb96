// Copyright Nereid authors.
#include "pressure/pressure.h"

#include <cmath>

#include "common/config_reader.h"
#include "common/plugin_base.h"
#include "current/current_plugin.h"

namespace nereid {

std::unique_ptr<Pressure> Pressure::Create(const mjModel* m, mjData*, int instance) {
  namespace k = pressure_keys;
  ConfigReader config(m, instance, kPressurePlugin);
  auto p = std::make_unique<Pressure>();
  p->ReadCommon(m, instance, config, k::kRate, kDim);
  p->rho_ = config.Number(k::kFluidDensity);
  if (!(p->rho_ > 0)) config.Fail(k::kFluidDensity, "must be > 0 (kg/m^3)");
  p->p_atm_ = config.Number(k::kAtmosphere);
  if (!(p->p_atm_ >= 0)) config.Fail(k::kAtmosphere, "must be >= 0 (Pa)");
  p->noise_ = config.Number(k::kNoise);
  if (!(p->noise_ >= 0)) config.Fail(k::kNoise, "must be >= 0 (Pa, a standard deviation)");
  p->offset_ = config.Number(k::kOffset);
  p->resolution_ = config.Number(k::kResolution);
  p->current_instance_ = FindCurrentInstance(m);
  if (!(p->resolution_ >= 0)) config.Fail(k::kResolution, "must be >= 0 (Pa; 0: not quantised)");
  p->Reset();
  return p;
}

double Pressure::TruePressure(const mjModel* m, const mjData* d) const {
  const double g = mju_norm3(m->opt.gravity);
  const mjtNum* x = d->site_xpos + 3 * site_;
  // under waves (a nereid.current with wave keys): linear-wave pressure below the moving surface
  if (const CurrentField* field = CurrentPlugin::Field(d, current_instance_); field && field->waves()) {
    return field->waves()->Pressure(Vec3(x[0], x[1], x[2]), d->time, rho_, g, p_atm_);
  }
  return sensors::PressureAtDepth(p_atm_, rho_, g, -x[2]);
}

void Pressure::Compute(const mjModel* m, mjData* d, int) noexcept {
  Step(d, [&] {
    double p = TruePressure(m, d);
    if (!exact_) p = sensors::Quantise(p + offset_ + noise_ * stream_.Normal(), resolution_);
    const double g = mju_norm3(m->opt.gravity);
    const double depth = g > 0 ? sensors::DepthFromPressure(p_atm_, rho_, g, p) : 0.0;
    return sensors::Reading{p, depth};
  });
}

void Pressure::RegisterPlugin() { nereid::RegisterPlugin<Pressure>(mjPLUGIN_SENSOR); }

}  // namespace nereid
