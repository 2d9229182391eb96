// Copyright Nereid authors.
// nereid.tether, the passive plugin: per segment of a lumped tether, Morison drag relative
// to the current, buoyancy (with the free surface) and the weight compensation of the
// segment's added mass; or, with model=analytic, seed 002 eq. 3.21 at the vehicle site.
// The segment bodies come from ExpandTethers (tether_expand.cc). Keys: README.md.
#ifndef NEREID_PLUGINS_TETHER_TETHER_PLUGIN_H_
#define NEREID_PLUGINS_TETHER_TETHER_PLUGIN_H_

#include <memory>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/config_key.h"
#include "nereid/tether.h"

namespace nereid {

// The <config> keys, in README.md's order. The defaults equal tether::Config's member
// initialisers (tests/plugins/keys_test.cc checks that they do).
namespace tether_keys {
inline constexpr ConfigKey kModel{"model", "—", "lumped"};
inline constexpr ConfigKey kCoordinates{"coordinates", "—", "reduced"};
inline constexpr ConfigKey kSite{"site", "—", nullptr, false,
                                 "required for `analytic`; optional for `lumped` (absent: a free end, e.g. a "
                                 "hanging cable)"};
inline constexpr ConfigKey kAnchorBody{"anchor_body", "—", "world"};
inline constexpr ConfigKey kAnchorPoint{"anchor_point", "m", "0 0 0"};
inline constexpr ConfigKey kLength{"length", "m", nullptr, true};
inline constexpr ConfigKey kSegments{"segments", "—", "1", false, "**required** (`lumped`); `1` (`analytic`)"};
inline constexpr ConfigKey kDiameter{"diameter", "m", nullptr, true};
inline constexpr ConfigKey kMassPerMetre{"mass_per_metre", "kg/m", nullptr, true};
inline constexpr ConfigKey kCdNormal{"cd_normal", "—", "1.2"};
inline constexpr ConfigKey kCdTangential{"cd_tangential", "—", "0.01"};
inline constexpr ConfigKey kAxialStiffness{"axial_stiffness", "N", "0", false, "`0` (inextensible)"};
inline constexpr ConfigKey kBendingDamping{"bending_damping", "N m s/rad", "0"};
inline constexpr ConfigKey kAddedMassCoefficient{"added_mass_coefficient", "—", "1"};
inline constexpr ConfigKey kFluidDensity{"fluid_density", "kg/m³", "1000"};
inline constexpr ConfigKey kAnalyticWeightFactor{"analytic_weight_factor", "—", "1.2"};
inline constexpr std::array kAll{kModel, kCoordinates, kSite, kAnchorBody, kAnchorPoint, kLength, kSegments, kDiameter,
                                 kMassPerMetre, kCdNormal, kCdTangential, kAxialStiffness, kBendingDamping,
                                 kAddedMassCoefficient, kFluidDensity, kAnalyticWeightFactor};
static_assert(DistinctNames(kAll));
}  // namespace tether_keys

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
  static constexpr auto kAttributes = KeyNames(tether_keys::kAll);

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
  void ComputeMaximal(const mjModel* m, mjData* d) noexcept;
  void ComputeAnalytic(const mjModel* m, mjData* d) noexcept;

  tether::Config config_;
  int current_instance_ = -1;
  std::vector<int> segments_;     // body ids, anchor side first
  std::vector<int> chain_;        // reduced: segments and their ancestors, descending ids
  std::vector<int> segment_dofs_; // maximal: each segment's free-joint dof address
  std::vector<double> inertial_mass_;  // body mass (tether + added mass) per segment
  int end_site_ = -1, equality_ = -1, site_ = -1, site_body_ = -1, site_free_dof_ = -1;
  int anchor_body_ = 0;
  std::vector<tether::DragForce> drag_;
  std::vector<Vec3> applied_;
  Vec3 analytic_force_ = Vec3::Zero();
  bool dormant_ = false;
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_TETHER_TETHER_PLUGIN_H_
