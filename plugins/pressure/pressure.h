// Copyright Nereid authors.
// nereid.pressure: an absolute pressure gauge on a site, p = p_atm + ρ g depth below the
// free surface (world z = 0; under waves the linear-wave pressure), with white noise, an offset and quantisation, sampled at a
// rate with a latency; it also reports the depth the gauge infers from its pressure. Keys,
// units and the datasheet of the defaults: README.md.
#ifndef NEREID_PLUGINS_PRESSURE_PRESSURE_H_
#define NEREID_PLUGINS_PRESSURE_PRESSURE_H_

#include <array>
#include <memory>

#include <mujoco/mujoco.h>

#include "common/sensor_base.h"
#include "nereid/plugins.h"

namespace nereid {

namespace pressure_keys {
inline constexpr ConfigKey kRate{"rate", "Hz", "25"};
inline constexpr ConfigKey kFluidDensity{"fluid_density", "kg/m³", "1000"};
inline constexpr ConfigKey kAtmosphere{"atmospheric_pressure", "Pa", "101325"};
inline constexpr ConfigKey kNoise{"noise", "Pa", "20"};
inline constexpr ConfigKey kOffset{"offset", "Pa", "0"};
inline constexpr ConfigKey kResolution{"resolution", "Pa", "20"};
inline constexpr std::array kAll{sensor_keys::kSite, kRate, sensor_keys::kLatency, sensor_keys::kSeed,
                                 kFluidDensity, kAtmosphere, kNoise, kOffset, kResolution};
static_assert(DistinctNames(kAll));
}  // namespace pressure_keys

class Pressure final : public SensorBase {
 public:
  static constexpr const char* kName = kPressurePlugin;
  static constexpr auto kAttributes = KeyNames(pressure_keys::kAll);
  static constexpr int kStage = mjSTAGE_POS;
  static constexpr int kDim = 2;
  static constexpr std::array<const char*, kDim> kFields{"pressure", "depth"};

  static std::unique_ptr<Pressure> Create(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();
  void Compute(const mjModel* m, mjData* d, int instance) noexcept;
  void Reset() noexcept { ResetBase(); }

  // The pressure without noise at the site, Pa: p_atm + ρ g max(-z, 0) in calm water;
  // under the waves of the model's nereid.current the linear-wave pressure
  // (waves::WaveField::Pressure: hydrostatic below the moving surface plus the dynamic
  // part with its depth attenuation).
  double TruePressure(const mjModel* m, const mjData* d) const;

 private:
  double rho_ = 1000, p_atm_ = 101325, noise_ = 0, offset_ = 0, resolution_ = 0;
  int current_instance_ = -1;  // the model's nereid.current (its waves), -1 if none
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_PRESSURE_PRESSURE_H_
