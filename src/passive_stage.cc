// Copyright Nereid authors.
#include "passive_stage.h"

#include <bit>
#include <cstdint>

namespace nereid {
namespace {

// The bits of x[0..n) ORed together: all of them ±0 exactly when the result shifted left by
// one (the sign dropped) is 0; any other value, NaN and denormals included, leaves a bit.
// A branch-free reduction the compiler vectorises: this runs at every step.
std::uint64_t OrBits(const mjtNum* x, mjtSize n) {
  std::uint64_t bits = 0;
  for (mjtSize i = 0; i < n; ++i) bits |= std::bit_cast<std::uint64_t>(x[i]);
  return bits;
}

}  // namespace

bool FindPassiveCalls(const mjModel* m, std::vector<PluginCall>* calls) {
  calls->clear();
  for (int i = 0; i < m->nplugin; ++i) {
    const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[i]);
    if (!plugin || !(plugin->capabilityflags & mjPLUGIN_PASSIVE)) continue;
    if (!plugin->compute) return false;
    calls->push_back({i, plugin->compute});
  }
  return true;
}

bool MuJoCoPassiveIsZero(const mjModel* m) {
  if (mjcb_passive || m->nflex > 0 || m->flg_gravcomp || m->ngravcomp > 0 || m->flg_adhesion ||
      m->opt.density != 0 || m->opt.viscosity != 0) {
    return false;
  }
  const std::uint64_t bits =
      OrBits(m->jnt_stiffness, m->njnt) | OrBits(m->jnt_stiffnesspoly, mjNPOLY * m->njnt) |
      OrBits(m->dof_damping, m->nv) | OrBits(m->dof_dampingpoly, mjNPOLY * m->nv) |
      OrBits(m->tendon_stiffness, m->ntendon) | OrBits(m->tendon_stiffnesspoly, mjNPOLY * m->ntendon) |
      OrBits(m->tendon_damping, m->ntendon) | OrBits(m->tendon_dampingpoly, mjNPOLY * m->ntendon) |
      OrBits(m->actuator_damping, m->nactuator) |
      OrBits(m->actuator_dampingpoly, mjNPOLY * m->nactuator);
  return (bits << 1) == 0;
}

}  // namespace nereid
