// Copyright Nereid authors.
// The plugin library's only entry point: registers every Nereid plugin when the library
// is loaded (mj_loadPluginLibrary, or linking against nereid::plugins).
#include <mujoco/mujoco.h>

#include "acoustic/acoustic.h"
#include "altimeter/altimeter.h"
#include "buoyancy/buoyancy.h"
#include "current/current_plugin.h"
#include "dvl/dvl.h"
#include "hydrodynamics/hydrodynamics.h"
#include "imu/imu.h"
#include "marker/marker.h"
#include "pressure/pressure.h"
#include "tether/tether_plugin.h"
#include "thruster/thruster.h"

mjPLUGIN_LIB_INIT(nereid_plugins) {
  nereid::CurrentPlugin::RegisterPlugin();
  nereid::Hydrodynamics::RegisterPlugin();
  nereid::Buoyancy::RegisterPlugin();
  nereid::Thruster::RegisterPlugin();
  nereid::Tether::RegisterPlugin();
  nereid::Pressure::RegisterPlugin();
  nereid::Imu::RegisterPlugin();
  nereid::Dvl::RegisterPlugin();
  nereid::Acoustic::RegisterPlugin();
  nereid::Altimeter::RegisterPlugin();
  nereid::Marker::RegisterPlugin();
}
