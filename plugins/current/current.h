// Copyright Nereid authors.
// nereid.current: the water current of the model, held per mjData so that a scenario or
// an environment can change it (nereid::MutableCurrent). See README.md for the keys.
#ifndef NEREID_PLUGINS_CURRENT_CURRENT_H_
#define NEREID_PLUGINS_CURRENT_CURRENT_H_

#include <memory>

#include <mujoco/mujoco.h>

#include "nereid/current.h"
#include "nereid/plugins.h"

namespace nereid {

class CurrentPlugin final {
 public:
  static constexpr const char* kName = kCurrentPlugin;
  static constexpr const char* kAttributes[] = {"velocity", "time_profile", "depth_profile"};

  static std::unique_ptr<CurrentPlugin> Create(const mjModel* m, mjData* d, int instance);
  static void RegisterPlugin();
  void Compute(const mjModel*, mjData*, int) noexcept {}
  void Reset() noexcept { field = initial; }

  // The field of the model's current instance in `d` (nullptr if instance < 0).
  static const CurrentField* Field(const mjData* d, int instance);

  CurrentField initial;  // as configured in the model
  CurrentField field;    // as used now
};

}  // namespace nereid

#endif  // NEREID_PLUGINS_CURRENT_CURRENT_H_
