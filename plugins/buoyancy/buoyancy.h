// Copyright Nereid authors.
// nereid.buoyancy: buoyancy of one body, rho V f |g| upwards at the centre of buoyancy,
// with f the submerged fraction of the body's equivalent box below the free surface: world
// z = 0, or with waves the elevation eta above the centre of buoyancy (nereid/restoring.h).
// The body's weight is MuJoCo's gravity at its centre of mass;
// together they make Fossen's restoring forces g(eta). In a current that accelerates, the
// same pressure field adds the Froude-Krylov force rho V f Dv_c/Dt at the centre of
// buoyancy (the added-mass part M_A dv_c/dt is nereid.hydrodynamics'), so that a neutrally
// buoyant body moves with the water. Keys and units: README.md.
#ifndef NEREID_PLUGINS_BUOYANCY_BUOYANCY_H_
#define NEREID_PLUGINS_BUOYANCY_BUOYANCY_H_

#include <memory>

#include <mujoco/mujoco.h>

#include "nereid/config_key.h"
#include "nereid/plugins.h"

namespace nereid {

// The <config> keys, in README.md's order.
namespace buoyancy_keys {
inline constexpr ConfigKey kBody{"body", "—", nullptr, false,
                                 "required, unless the instance is attached to a body in MJCF "
                                 "(`<body><plugin instance=\"...\"/>`)"};
inline constexpr ConfigKey kVolume{"volume", "m³", nullptr, true};
inline constexpr ConfigKey kCenterOfBuoyancy{"center_of_buoyancy", "m", nullptr, true};
inline constexpr ConfigKey kFluidDensity{"fluid_density", "kg/m³", "1000"};
inline constexpr ConfigKey kFrame{"frame", "—", "frd"};
inline constexpr std::array kAll{kBody, kVolume, kCenterOfBuoyancy, kFluidDensity, kFrame};
static_assert(DistinctNames(kAll));
}  // namespace buoyancy_keys

class Buoyancy final {
 public:
  static constexpr const char* kName = kBuoyancyPlugin;
  static constexpr auto kAttributes = KeyNames(buoyancy_keys::kAll);

  static std::unique_ptr<Buoyancy> Create(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();
  void Compute(const mjModel* m, mjData* d, int instance) noexcept;
  void Reset() noexcept {
    last_force_.setZero();
    last_froude_krylov_.setZero();
    last_fraction_ = 0;
    last_waterline_ = 0;
  }

  const BuoyancyConfig& config() const { return config_; }
  const Vec3& last_force() const { return last_force_; }  // buoyancy, world frame, N
  // rho V f Dv_c/Dt of an accelerating current, world frame, N (zero in steady water)
  const Vec3& last_froude_krylov() const { return last_froude_krylov_; }
  double last_fraction() const { return last_fraction_; }
  // the free surface's elevation above the centre of buoyancy the fraction was taken
  // against, world z, m (0 in calm water)
  double last_waterline() const { return last_waterline_; }

 private:
  BuoyancyConfig config_;
  Vec3 last_force_ = Vec3::Zero();
  Vec3 last_froude_krylov_ = Vec3::Zero();
  double last_fraction_ = 0;
  double last_waterline_ = 0;
  int free_dof_ = -1;          // first dof of the body's free joint, or -1
  int current_instance_ = -1;  // the model's nereid.current instance, or -1
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_BUOYANCY_BUOYANCY_H_
