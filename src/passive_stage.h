// Copyright Nereid authors.
// The passive stage without MuJoCo's own passive forces: when a model has none of them
// (no springs, dampers, gravity compensation, fluid, adhesion or flex), mj_passive only
// clears qfrc_passive and calls the passive plugins, after walking every joint, dof and
// actuator to find each term zero. Nereid's engine then clears through mj_passive with
// springs and dampers disabled and calls the plugins itself (docs/design.md, "One step").
// Internal to libnereid.
#ifndef NEREID_SRC_PASSIVE_STAGE_H_
#define NEREID_SRC_PASSIVE_STAGE_H_

#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/plugins.h"

namespace nereid {

// The instances whose plugin has mjPLUGIN_PASSIVE, in instance order (mj_passive's order).
// False when one of them has no compute function (mj_passive reports that itself).
bool FindPassiveCalls(const mjModel* m, std::vector<PluginCall>* calls);

// True when MuJoCo 3.14's mj_passive (engine_passive.c) would add nothing to qfrc_passive
// but the plugins' forces for any state of `m`: no mjcb_passive, no flex, no gravity
// compensation, no adhesion, zero fluid density and viscosity, and every joint stiffness,
// dof damping, tendon stiffness and damping and actuator damping zero with its
// polynomial. Reads the arrays, so a coefficient set after compiling counts; sleeping
// (which filters the dofs) is the caller's check.
bool MuJoCoPassiveIsZero(const mjModel* m);

}  // namespace nereid

#endif  // NEREID_SRC_PASSIVE_STAGE_H_
