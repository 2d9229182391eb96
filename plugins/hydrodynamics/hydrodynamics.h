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

#include "nereid/plugins.h"

namespace nereid {

class Hydrodynamics final {
 public:
  static constexpr const char* kName = kHydrodynamicsPlugin;
  static constexpr const char* kAttributes[] = {
      "body", "added_mass", "linear_damping", "quadratic_damping", "frame",
      "reference_point", "stock_fallback"};

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
