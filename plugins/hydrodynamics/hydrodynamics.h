// Copyright Nereid authors.
// nereid.hydrodynamics: Fossen hydrodynamics of one body (a hull or a manipulator link).
//
// Per step, with nu_r = nu - nu_c the body-frame velocity relative to the water current:
//   tau = -C_A(nu_r) nu_r - H^T D(H nu_r) H nu_r - M_A (Jdot qvel - nudot_c)
// The last term completes M_A nudot_r once Nereid's engine has put J^T M_A J into d->M
// (nudot = J qacc + Jdot qvel; nudot_c is the rate of the current seen in the body frame).
// Without the engine (stock MuJoCo) the added-mass terms follow `stock_fallback`.
// Keys and units: README.md.
#ifndef NEREID_PLUGINS_HYDRODYNAMICS_HYDRODYNAMICS_H_
#define NEREID_PLUGINS_HYDRODYNAMICS_HYDRODYNAMICS_H_

#include <memory>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/config_key.h"
#include "nereid/plugins.h"

namespace nereid {

// The <config> keys, in README.md's order.
namespace hydrodynamics_keys {
inline constexpr ConfigKey kBody{"body", "—", nullptr, false,
                                 "required, unless the instance is attached to a body in MJCF"};
inline constexpr ConfigKey kAddedMass{"added_mass", "kg (linear), kg m (coupling), kg m² (angular)", nullptr, true};
inline constexpr ConfigKey kLinearDamping{"linear_damping", "kg/s (N s/m), kg m/s, kg m²/s (N m s/rad)", nullptr, true};
inline constexpr ConfigKey kQuadraticDamping{"quadratic_damping", "kg/m (N s²/m²), kg m² (N m s²/rad²)", nullptr, true};
inline constexpr ConfigKey kFrame{"frame", "—", "frd"};
inline constexpr ConfigKey kReferencePoint{"reference_point", "m", "0 0 0"};
inline constexpr ConfigKey kStockFallback{"stock_fallback", "—", "drop"};
inline constexpr std::array kAll{kBody, kAddedMass, kLinearDamping, kQuadraticDamping, kFrame, kReferencePoint,
                                 kStockFallback};
static_assert(DistinctNames(kAll));
}  // namespace hydrodynamics_keys

class Hydrodynamics final {
 public:
  static constexpr const char* kName = kHydrodynamicsPlugin;
  static constexpr auto kAttributes = KeyNames(hydrodynamics_keys::kAll);

  static std::unique_ptr<Hydrodynamics> Create(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();
  void Compute(const mjModel* m, mjData* d, int instance) noexcept;
  void Reset() noexcept { last_damping_.setZero(); last_coriolis_.setZero(); }

  const HydrodynamicsConfig& config() const { return config_; }
  // Domain randomisation: added mass and damping times the given factors (> 0), relative
  // to the model's configuration.
  void Scale(double added_mass, double damping);
  // whether M_A is in d->M (the mjData was made by Nereid's engine)
  bool added_mass_in_mass_matrix() const { return engine_owned_; }
  // last wrenches applied, body frame [force; moment] about the body origin (for overlays)
  const Vec6& last_damping() const { return last_damping_; }
  const Vec6& last_coriolis() const { return last_coriolis_; }

 private:
  HydrodynamicsConfig config_;
  HydrodynamicsConfig base_;  // as configured in the model
  bool engine_owned_ = false;
  bool use_added_mass_ = false;
  int current_instance_ = -1;
  std::vector<int> chain_;
  int free_dof_ = -1;  // first dof of the body's free joint, or -1
  Vec6 last_damping_ = Vec6::Zero();
  Vec6 last_coriolis_ = Vec6::Zero();
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_HYDRODYNAMICS_HYDRODYNAMICS_H_
