// Copyright Nereid authors.
// Force overlays: arrows added to an mjvScene from the state and the plugins' outputs. The
// viewer only reads here (d->actuator_force, d->efc_force, the hydrodynamics and buoyancy
// plugin objects' last wrenches); nothing is computed that the engine did not apply.
// Every overlay has one distinctive colour, so a headless screenshot can be checked for it.
#ifndef NEREID_VIEWER_OVERLAYS_H_
#define NEREID_VIEWER_OVERLAYS_H_

#include <array>
#include <deque>
#include <vector>
#include <bitset>
#include <string_view>

#include <mujoco/mujoco.h>

#include "nereid/simulation.h"

namespace nereid::viewer {

enum class Overlay {
  kThrust,      // per actuator whose transmission is a site: actuator_force along site +z
  kDamping,     // hydrodynamics plugin: last_damping(), force and moment at the body origin
  kCoriolis,    // hydrodynamics plugin: last_coriolis() (added-mass Coriolis, Munk moment)
  kWeight,      // body mass * gravity at each body's centre of mass
  kBuoyancy,    // buoyancy plugin: last_force() at the centre of buoyancy
  kCurrent,     // water current at the vehicle, drawn above it
  kTether,      // hook: the engine has no tether yet, nothing is drawn
  kConstraint,  // MuJoCo connect/weld equality forces (d->efc_force); UK constraints: hook
  kPath,        // the scenario controller's reference path, and the vehicle's trail
  kDepth,       // depth gauge beside the vehicle (scenery.h)
  kSensors,     // DVL beams and hit points, the acoustic fix, marker sightings (instruments.h)
  kEstimate,    // the navigation filter's estimate as a ghost of the vehicle (instruments.h)
  kCount,
};
inline constexpr int kOverlayCount = static_cast<int>(Overlay::kCount);
using OverlaySet = std::bitset<kOverlayCount>;

struct OverlayInfo {
  Overlay overlay;
  std::string_view name;  // command line name (--overlay NAME)
  int key;                // GLFW key that toggles it
  std::array<float, 4> rgba;
  std::string_view description;  // for the help overlay
};

// The overlay table, in enum order. Colours use only 0 and 1 channels (and are drawn
// emissive), so lighting saturates rather than shifts them; the constraint, path, sensors
// and estimate overlays use a 0.5 channel (only eight 0/1 colours exist); the depth gauge
// is black; the estimate's ghost is translucent.
const std::array<OverlayInfo, kOverlayCount>& Overlays();
const OverlayInfo& Info(Overlay overlay);
// The overlay called `name`, or false.
bool FindOverlay(std::string_view name, Overlay* overlay);

// Arrow lengths per unit. Restoring forces are large (the vehicle's weight), so they get
// their own scale; the others are drawn `kForceGain` times longer per newton.
struct ArrowScales {
  static constexpr double kForceGain = 10;
  double restoring = 0.005;  // m per N (weight, buoyancy)
  double force = 0.05;       // m per N (thrust, hydrodynamic, constraint)
  double moment = 0.5;       // m per N m
  double current = 2;        // m per m/s
  // Scales for a model: the heaviest body's weight is drawn half the model's extent long.
  static ArrowScales ForModel(const mjModel* m);
  ArrowScales Times(double factor) const;
};

// Appends the enabled overlays' arrows for `vehicle` (the current arrow) and every body
// (the forces), and the sensors' drawing (instruments.h), to scn. Stops quietly when the
// scene's geom buffer is full.
void AddOverlays(const mjModel* m, const mjData* d, Simulation& sim, int vehicle,
                 const OverlaySet& enabled, const ArrowScales& scales, mjvScene* scn);

// Appends the path overlay: `path` as a polyline (at most 2000 segments, evenly strided)
// and the vehicle's `trail` (its recent positions) as a thinner one. Lines are `width`
// pixels wide.
void AddPath(const std::vector<Vec3>& path, const std::deque<Vec3>& trail, mjvScene* scn);

// The underwater look: fog in the water's colour (mjModel->vis.rgba.fog, vis.map.fogstart
// and fogend, mjRND_FOG) and, while the camera is below the surface, a water-coloured
// backdrop sphere around the camera (MuJoCo clears to black, and fog tints geoms only).
inline constexpr std::array<float, 4> kWaterRgba = {0.05f, 0.22f, 0.32f, 1.0f};
// Sets the fog colour and range (in units of the model's extent) in m->vis.
void SetWaterFog(mjModel* m);
// Turns fog and the backdrop on or off for this frame's scene (after mjv_updateScene).
void ApplyUnderwaterLook(bool on, const mjModel* m, mjvScene* scn);

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_OVERLAYS_H_
