// Copyright Nereid authors.
// nereid.tether, the passive plugin: per segment of a lumped tether, Morison drag relative
// to the current, buoyancy (with the free surface) and the weight compensation of the
// segment's added mass; or, with model=analytic, seed 002 eq. 3.21 at the vehicle site.
// The segment bodies come from ExpandTethers (tether_expand.cc). Keys: README.md.
#ifndef NEREID_PLUGINS_TETHER_TETHER_H_
#define NEREID_PLUGINS_TETHER_TETHER_H_

#include <memory>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/tether.h"

namespace nereid {

// While alive on this thread, a lumped instance whose segment bodies are missing loads
// dormant instead of failing: ExpandTethers compiles the unexpanded spec to read it.
class TetherExpansionScope {
 public:
  TetherExpansionScope();
  ~TetherExpansionScope();
  TetherExpansionScope(const TetherExpansionScope&) = delete;
  TetherExpansionScope& operator=(const TetherExpansionScope&) = delete;
  static bool active();
};

class Tether final {
 public:
  static constexpr const char* kName = kTetherPlugin;
  static constexpr const char* kAttributes[] = {
      "model", "site", "anchor_body", "anchor_point", "length", "segments", "diameter",
      "cd_normal", "cd_tangential", "mass_per_metre", "axial_stiffness", "bending_damping",
      "added_mass_coefficient", "fluid_density", "analytic_weight_factor"};

  static std::unique_ptr<Tether> Create(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();
  void Compute(const mjModel* m, mjData* d, int instance) noexcept;
  void Reset() noexcept;

  const tether::Config& config() const { return config_; }
  const std::vector<int>& segment_bodies() const { return segments_; }
  int end_site() const { return end_site_; }
  int equality() const { return equality_; }
  int vehicle_site() const { return site_; }
  // last forces the plugin applied to each segment (world frame, N): drag, and the sum of
  // drag, buoyancy and the added mass's weight compensation
  const std::vector<tether::DragForce>& last_drag() const { return drag_; }
  const std::vector<Vec3>& last_applied() const { return applied_; }
  const Vec3& last_analytic_force() const { return analytic_force_; }

 private:
  void ComputeLumped(const mjModel* m, mjData* d) noexcept;
  void ComputeAnalytic(const mjModel* m, mjData* d) noexcept;

  tether::Config config_;
  int current_instance_ = -1;
  std::vector<int> segments_;     // body ids, anchor side first
  std::vector<int> chain_;        // segments and their ancestors, descending ids
  std::vector<double> inertial_mass_;  // body mass (tether + added mass) per segment
  int end_site_ = -1, equality_ = -1, site_ = -1, site_body_ = -1, site_free_dof_ = -1;
  int anchor_body_ = 0;
  std::vector<tether::DragForce> drag_;
  std::vector<Vec3> applied_;
  Vec3 analytic_force_ = Vec3::Zero();
  bool dormant_ = false;
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_TETHER_TETHER_H_
