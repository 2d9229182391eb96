// Copyright Nereid authors.
// Public read-outs of what Nereid's plugin instances applied (include/nereid/plugins.h), so
// that the engine, the viewer and loggers need no plugin-private header.
#include <cstring>

#include "buoyancy/buoyancy.h"
#include "common/plugin_base.h"
#include "hydrodynamics/hydrodynamics.h"
#include "nereid/kinematics.h"
#include "nereid/plugins.h"

namespace nereid {

bool LastPluginWrench(const mjModel* m, const mjData* d, int instance, PluginWrench* out,
                      WrenchPart part) {
  if (instance < 0 || instance >= m->nplugin || !d->plugin_data[instance]) return false;
  const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[instance]);
  if (!plugin || !plugin->name) return false;
  if (std::strcmp(plugin->name, kHydrodynamicsPlugin) == 0) {
    const Hydrodynamics* h = PluginObject<Hydrodynamics>(d, instance);
    const int b = h->config().body;
    const Mat3 R = BodyRotation(d, b);
    // body frame, at the origin
    const Vec6 tau = part == WrenchPart::kDamping     ? h->last_damping()
                     : part == WrenchPart::kAddedMass ? h->last_coriolis()
                                                      : Vec6(h->last_damping() + h->last_coriolis());
    out->body = b;
    out->force = R * tau.head<3>();
    out->torque = R * tau.tail<3>();
    out->point = BodyPosition(d, b);
    return true;
  }
  if (std::strcmp(plugin->name, kBuoyancyPlugin) == 0 && part == WrenchPart::kAll) {
    const Buoyancy* bu = PluginObject<Buoyancy>(d, instance);
    const int b = bu->config().body;
    out->body = b;
    out->force = bu->last_force() + bu->last_froude_krylov();
    out->torque = Vec3::Zero();
    out->point = BodyPosition(d, b) + BodyRotation(d, b) * bu->config().center_of_buoyancy;
    return true;
  }
  return false;
}

namespace {

const Hydrodynamics* HydrodynamicsObject(const mjModel* m, const mjData* d, int instance) {
  if (instance < 0 || instance >= m->nplugin || !d->plugin_data[instance]) return nullptr;
  const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[instance]);
  if (!plugin || !plugin->name || std::strcmp(plugin->name, kHydrodynamicsPlugin) != 0) return nullptr;
  return PluginObject<Hydrodynamics>(d, instance);
}

}  // namespace

bool AddedMassInMassMatrix(const mjModel* m, const mjData* d, int instance) {
  const Hydrodynamics* h = HydrodynamicsObject(m, d, instance);
  return h && h->added_mass_in_mass_matrix();
}

const HydrodynamicsConfig* HydrodynamicsInUse(const mjModel* m, const mjData* d, int instance) {
  const Hydrodynamics* h = HydrodynamicsObject(m, d, instance);
  return h ? &h->config() : nullptr;
}

}  // namespace nereid
