// Copyright Nereid authors.
// nereid.thruster: a MuJoCo actuator plugin for propeller thrusters. One instance holds a
// thruster type (its map, limits, lag); every <actuator><plugin instance=...> that
// references it is one thruster, acting through a site transmission: the actuator's
// force is the thrust and its gear sets the direction in the site frame (gear
// "0 0 1 0 0 r": thrust along the site's +z, with a propeller reaction torque r x thrust
// about it). Keys: README.md.
#ifndef NEREID_PLUGINS_THRUSTER_THRUSTER_H_
#define NEREID_PLUGINS_THRUSTER_THRUSTER_H_

#include <memory>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/plugins.h"
#include "nereid/thruster_model.h"
#include "nereid/thruster_keys.h"

namespace nereid {

class Thruster final {
 public:
  static constexpr const char* kName = kThrusterPlugin;
  static constexpr auto kAttributes = KeyNames(thruster_keys::kAll);

  static std::unique_ptr<Thruster> Create(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();
  void Compute(const mjModel* m, mjData* d, int instance) noexcept;
  void ActDot(const mjModel* m, mjData* d) const noexcept;
  void Reset() noexcept {}

  const ThrusterModel& model() const { return model_; }
  const std::vector<int>& actuators() const { return actuators_; }

 private:
  // water speed through the propeller along its thrust axis (m/s)
  double AdvanceSpeed(const mjModel* m, const mjData* d, int actuator) const;
  double Command(const mjModel* m, const mjData* d, int actuator) const;

  ThrusterModel model_;
  std::vector<int> actuators_;  // actuators that use this instance
  int current_instance_ = -1;
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_THRUSTER_THRUSTER_H_
