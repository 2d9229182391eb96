// Copyright Nereid authors.
#include "overlays.h"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "instruments.h"
#include "nereid/kinematics.h"
#include "nereid/plugins.h"
#include "nereid/tether.h"

namespace nereid::viewer {
namespace {

constexpr std::array<OverlayInfo, kOverlayCount> kTable = {{
    {Overlay::kThrust, "thrust", GLFW_KEY_1, {0, 1, 0, 1}, "thrust per site actuator"},
    {Overlay::kDamping, "damping", GLFW_KEY_2, {1, 0, 1, 1}, "hydrodynamic damping"},
    {Overlay::kCoriolis, "coriolis", GLFW_KEY_3, {0, 0, 1, 1}, "added-mass Coriolis"},
    {Overlay::kWeight, "weight", GLFW_KEY_4, {1, 0, 0, 1}, "weight at the CG"},
    {Overlay::kBuoyancy, "buoyancy", GLFW_KEY_5, {0, 1, 1, 1}, "buoyancy at the CB"},
    {Overlay::kCurrent, "current", GLFW_KEY_6, {1, 1, 0, 1}, "water current"},
    {Overlay::kTether, "tether", GLFW_KEY_7, {1, 1, 1, 1}, "tether pull on the vehicle"},
    {Overlay::kConstraint, "constraint", GLFW_KEY_8, {1, 0.5f, 0, 1}, "equality constraint forces"},
    {Overlay::kPath, "path", GLFW_KEY_9, {0.5f, 0, 1, 1}, "reference path and the vehicle's trail"},
    {Overlay::kDepth, "depth", GLFW_KEY_B, {0, 0, 0, 1}, "depth gauge (whole metres)"},
    {Overlay::kSensors, "sensors", GLFW_KEY_N, {0, 1, 0.5f, 1}, "DVL beams and hits, acoustic fix, marker sightings"},
    {Overlay::kEstimate, "estimate", GLFW_KEY_M, {0.5f, 1, 0, 0.35f}, "the estimate's ghost"},
}};

// Adds one emissive arrow from `from` along `vector` (already scaled to metres); false
// when the scene is full. Arrows shorter than 1 mm are skipped.
bool AddArrow(mjvScene* scn, Overlay overlay, const Vec3& from, const Vec3& vector,
              double width) {
  if (vector.norm() < 1e-3) return true;
  if (scn->ngeom >= scn->maxgeom) return false;
  mjvGeom* g = scn->geoms + scn->ngeom++;
  mjv_initGeom(g, mjGEOM_ARROW, nullptr, nullptr, nullptr, Info(overlay).rgba.data());
  g->emission = 1;  // flat colour: lighting saturates 0/1 channels instead of shading them
  g->specular = 0;
  const Vec3 to = from + vector;
  mjv_connector(g, mjGEOM_ARROW, width, from.data(), to.data());
  return true;
}

bool AddThrust(const mjModel* m, const mjData* d, const ArrowScales& scales, double width,
               mjvScene* scn) {
  for (int a = 0; a < static_cast<int>(m->nactuator); ++a) {
    if (m->actuator_trntype[a] != mjTRN_SITE) continue;  // one force output, at actuator_outadr
    const int site = m->actuator_trnid[2 * a];
    const mjtNum* x = d->site_xpos + 3 * site;
    const mjtNum* R = d->site_xmat + 9 * site;
    const Vec3 axis(R[2], R[5], R[8]);  // the site's +z axis in the world
    if (!AddArrow(scn, Overlay::kThrust, Vec3(x[0], x[1], x[2]),
                  scales.force * d->actuator_force[m->actuator_outadr[a]] * axis, width)) {
      return false;
    }
  }
  return true;
}

bool AddHydrodynamics(const mjModel* m, const mjData* d, const OverlaySet& enabled,
                      const ArrowScales& scales, double width, mjvScene* scn) {
  for (int instance : FindPluginInstances(m, kHydrodynamicsPlugin)) {
    for (const auto& [overlay, part] : {std::pair(Overlay::kDamping, WrenchPart::kDamping),
                                        std::pair(Overlay::kCoriolis, WrenchPart::kAddedMass)}) {
      PluginWrench w;
      if (!enabled[static_cast<int>(overlay)] || !LastPluginWrench(m, d, instance, &w, part)) continue;
      if (!AddArrow(scn, overlay, w.point, scales.force * w.force, width) ||
          !AddArrow(scn, overlay, w.point, scales.moment * w.torque, 0.5 * width)) {
        return false;
      }
    }
  }
  return true;
}

bool AddWeight(const mjModel* m, const mjData* d, const ArrowScales& scales, double width,
               mjvScene* scn) {
  if (m->opt.disableflags & mjDSBL_GRAVITY) return true;
  const Vec3 g(m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2]);
  for (int b = 1; b < m->nbody; ++b) {
    const Vec3 cg(d->xipos[3 * b], d->xipos[3 * b + 1], d->xipos[3 * b + 2]);
    if (!AddArrow(scn, Overlay::kWeight, cg, scales.restoring * m->body_mass[b] * g, width)) {
      return false;
    }
  }
  return true;
}

bool AddBuoyancy(const mjModel* m, const mjData* d, const ArrowScales& scales, double width,
                 mjvScene* scn) {
  // buoyancy and, in accelerating water, the Froude-Krylov force, at the centre of buoyancy
  for (int instance : FindPluginInstances(m, kBuoyancyPlugin)) {
    PluginWrench w;
    if (!LastPluginWrench(m, d, instance, &w)) continue;
    if (!AddArrow(scn, Overlay::kBuoyancy, w.point, scales.restoring * w.force, width)) return false;
  }
  return true;
}

// The current at the vehicle's origin, drawn from a point above the vehicle so that it
// does not hide in the hull.
bool AddCurrent(const mjModel* m, const mjData* d, Simulation& sim, int vehicle,
                const ArrowScales& scales, double width, mjvScene* scn) {
  const CurrentField* current = sim.current();
  if (!current || vehicle < 0) return true;
  const Vec3 x = BodyPosition(d, vehicle);
  const Vec3 v = current->Evaluate(d->time, x.z()).velocity;
  return AddArrow(scn, Overlay::kCurrent, x + Vec3(0, 0, 0.3 * m->stat.extent),
                  scales.current * v, width);
}

// nereid.tether: the tether's pull on the vehicle (the connect force of the lumped cable,
// or the analytic eq. 3.21 force), drawn at the cable's vehicle end
bool AddTethers(const mjModel* m, Simulation& sim, int vehicle, const ArrowScales& scales,
                double width, mjvScene* scn) {
  for (int instance : FindPluginInstances(m, kTetherPlugin)) {
    const tether::Readout r = tether::Read(m, sim.data(), instance);
    const Vec3 at = !r.nodes.empty() ? r.nodes.back()
                    : vehicle >= 0   ? BodyPosition(sim.data(), vehicle)
                                     : Vec3::Zero();
    if (!AddArrow(scn, Overlay::kTether, at, scales.force * r.vehicle_force, width)) return false;
  }
  return true;
}

// Connect and weld equalities: the translational rows of efc_force are the world-frame
// force on body 1 at its anchor (body 2 gets the opposite). Joint, tendon and flex
// equalities have no point of action and are not drawn. UK connections report their own
// force on body 1 at the connection point (Simulation::ConnectionReports).
bool AddConstraints(const mjModel* m, const mjData* d, Simulation& sim, const ArrowScales& scales,
                    double width, mjvScene* scn) {
  if (sim.constraints() == ConstraintMethod::kUK) {
    for (const ConnectionReport& c : sim.ConnectionReports()) {
      if (c.active && !AddArrow(scn, Overlay::kConstraint, c.point, scales.force * c.force, width)) {
        return false;
      }
    }
  }
  for (int i = 0; i < d->nefc; ++i) {
    if (d->efc_type[i] != mjCNSTR_EQUALITY) continue;
    const int eq = d->efc_id[i];
    const bool first_row = i == 0 || d->efc_type[i - 1] != mjCNSTR_EQUALITY || d->efc_id[i - 1] != eq;
    if (!first_row || i + 2 >= d->nefc) continue;
    if (m->eq_type[eq] != mjEQ_CONNECT && m->eq_type[eq] != mjEQ_WELD) continue;
    if (m->eq_objtype[eq] != mjOBJ_BODY) continue;
    const int body = m->eq_obj1id[eq];
    const mjtNum* anchor = m->eq_data + mjNEQDATA * eq;  // in body 1's frame
    const Vec3 at = BodyPosition(d, body) + BodyRotation(d, body) * Vec3(anchor[0], anchor[1], anchor[2]);
    const Vec3 force(d->efc_force[i], d->efc_force[i + 1], d->efc_force[i + 2]);
    if (!AddArrow(scn, Overlay::kConstraint, at, scales.force * force, width)) return false;
  }
  return true;
}

}  // namespace

const std::array<OverlayInfo, kOverlayCount>& Overlays() { return kTable; }

const OverlayInfo& Info(Overlay overlay) { return kTable[static_cast<int>(overlay)]; }

bool FindOverlay(std::string_view name, Overlay* overlay) {
  for (const OverlayInfo& info : kTable) {
    if (info.name == name) {
      *overlay = info.overlay;
      return true;
    }
  }
  return false;
}

ArrowScales ArrowScales::ForModel(const mjModel* m) {
  ArrowScales scales;
  const double g = std::max(mju_norm3(m->opt.gravity), 1e-9);
  double heaviest = 0;
  for (int b = 1; b < m->nbody; ++b) heaviest = std::max(heaviest, m->body_mass[b] * g);
  if (heaviest <= 0) return scales;
  const double extent = m->stat.extent > 0 ? m->stat.extent : 1;
  scales.restoring = 0.5 * extent / heaviest;
  scales.force = kForceGain * scales.restoring;
  scales.moment = 10 * scales.force;  // a moment of M N m looks like a force M/(0.1 m)
  scales.current = extent;            // 1 m/s is one extent long
  return scales;
}

ArrowScales ArrowScales::Times(double factor) const {
  ArrowScales s = *this;
  s.restoring *= factor;
  s.force *= factor;
  s.moment *= factor;
  s.current *= factor;
  return s;
}

void AddOverlays(const mjModel* m, const mjData* d, Simulation& sim, int vehicle,
                 const OverlaySet& enabled, const ArrowScales& scales, mjvScene* scn) {
  const double width = 0.015 * (m->stat.extent > 0 ? m->stat.extent : 1);
  auto on = [&](Overlay o) { return enabled[static_cast<int>(o)]; };
  // each Add* returns false once the scene is full; stop there
  if (on(Overlay::kThrust) && !AddThrust(m, d, scales, width, scn)) return;
  if ((on(Overlay::kDamping) || on(Overlay::kCoriolis)) &&
      !AddHydrodynamics(m, d, enabled, scales, width, scn)) {
    return;
  }
  if (on(Overlay::kWeight) && !AddWeight(m, d, scales, width, scn)) return;
  if (on(Overlay::kBuoyancy) && !AddBuoyancy(m, d, scales, width, scn)) return;
  if (on(Overlay::kCurrent) && !AddCurrent(m, d, sim, vehicle, scales, width, scn)) return;
  if (on(Overlay::kTether) && !AddTethers(m, sim, vehicle, scales, width, scn)) return;
  if (on(Overlay::kConstraint) && !AddConstraints(m, d, sim, scales, width, scn)) return;
  if (on(Overlay::kSensors)) {
    const double size = 0.02 * (m->stat.extent > 0 ? m->stat.extent : 1);
    AddInstruments(DvlDrawings(m, d), AcousticFixDrawings(m, d), Info(Overlay::kSensors).rgba.data(), size, scn);
    AddMarkerSightings(MarkerDrawings(m, d), size, scn);
  }
}

void AddPath(const std::vector<Vec3>& path, const std::deque<Vec3>& trail, mjvScene* scn) {
  auto line = [&](const Vec3& a, const Vec3& b, double width) {
    if (scn->ngeom >= scn->maxgeom) return false;
    mjvGeom* g = scn->geoms + scn->ngeom++;
    mjv_initGeom(g, mjGEOM_LINE, nullptr, nullptr, nullptr, Info(Overlay::kPath).rgba.data());
    g->emission = 1;
    g->specular = 0;
    mjv_connector(g, mjGEOM_LINE, width, a.data(), b.data());
    return true;
  };
  constexpr size_t kMaxSegments = 2000;
  const size_t stride = path.size() > kMaxSegments ? (path.size() + kMaxSegments - 1) / kMaxSegments : 1;
  for (size_t i = stride; i < path.size() + stride - 1; i += stride) {
    const size_t j = std::min(i, path.size() - 1);
    if (!line(path[i - stride], path[j], 4)) return;
  }
  for (size_t i = 1; i < trail.size(); ++i) {
    if (!line(trail[i - 1], trail[i], 2)) return;
  }
}

void SetWaterFog(mjModel* m) {
  std::copy(kWaterRgba.begin(), kWaterRgba.end(), m->vis.rgba.fog);
  m->vis.map.fogstart = 1;  // extents: about 1.5 m and 12 m for the BlueROV
  m->vis.map.fogend = 8;
}

void ApplyUnderwaterLook(bool on, const mjModel* m, mjvScene* scn) {
  scn->flags[mjRND_FOG] = on;
  scn->flags[mjRND_CULL_FACE] = 1;
  const float* eye = scn->camera[0].pos;
  if (!on || eye[2] >= 0 || scn->ngeom >= scn->maxgeom) return;
  scn->flags[mjRND_CULL_FACE] = 0;  // the backdrop is seen from inside
  const double radius = 0.8 * m->vis.map.zfar * (m->stat.extent > 0 ? m->stat.extent : 1);
  const mjtNum size[3] = {radius, 0, 0};
  const mjtNum pos[3] = {eye[0], eye[1], eye[2]};
  mjvGeom* g = scn->geoms + scn->ngeom++;
  mjv_initGeom(g, mjGEOM_SPHERE, size, pos, nullptr, kWaterRgba.data());
  g->emission = 1;
  g->specular = 0;
}

}  // namespace nereid::viewer
