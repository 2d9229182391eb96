// Copyright Nereid authors.
// The plugin library's only entry point: registers every Nereid plugin when the library
// is loaded (mj_loadPluginLibrary, or linking against nereid::plugins).
#include <mujoco/mujoco.h>

#include "buoyancy/buoyancy.h"
#include "current/current_plugin.h"
#include "hydrodynamics/hydrodynamics.h"
#include "tether/tether_plugin.h"
#include "thruster/thruster.h"

mjPLUGIN_LIB_INIT(nereid_plugins) {
  nereid::CurrentPlugin::RegisterPlugin();
  nereid::Hydrodynamics::RegisterPlugin();
  nereid::Buoyancy::RegisterPlugin();
  nereid::Thruster::RegisterPlugin();
  nereid::Tether::RegisterPlugin();
}
