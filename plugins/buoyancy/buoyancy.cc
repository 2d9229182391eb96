// Copyright Nereid authors.
#include "buoyancy/buoyancy.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/config_reader.h"
#include "common/plugin_base.h"
#include "current/current_plugin.h"
#include "nereid/kinematics.h"
#include "nereid/restoring.h"

namespace nereid {
namespace {

// bounding box, in the body frame, of the body's geoms (their own AABBs moved by the
// geom poses); false if the body has no geoms
bool GeomBox(const mjModel* m, int body, Vec3* lo, Vec3* hi) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  *lo = Vec3::Constant(kInf);
  *hi = Vec3::Constant(-kInf);
  bool any = false;
  for (int g = 0; g < m->ngeom; ++g) {
    if (m->geom_bodyid[g] != body) continue;
    any = true;
    mjtNum R[9];
    mju_quat2Mat(R, m->geom_quat + 4 * g);
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> Rg(R);
    const Vec3 pos(m->geom_pos[3 * g], m->geom_pos[3 * g + 1], m->geom_pos[3 * g + 2]);
    const mjtNum* aabb = m->geom_aabb + 6 * g;  // centre, half-sizes (geom frame)
    const Vec3 c(aabb[0], aabb[1], aabb[2]);
    const Vec3 h(aabb[3], aabb[4], aabb[5]);
    const Vec3 centre = pos + Rg * c;
    const Vec3 half = Rg.cwiseAbs() * h;
    *lo = lo->cwiseMin(centre - half);
    *hi = hi->cwiseMax(centre + half);
  }
  return any;
}

}  // namespace

BuoyancyConfig BuoyancyConfig::FromModel(const mjModel* m, int instance) {
  namespace k = buoyancy_keys;
  ConfigReader config(m, instance, kBuoyancyPlugin);
  BuoyancyConfig c;
  c.name = PluginInstanceName(m, instance);
  c.body = config.Body(k::kBody);
  const BodyFrame frame = config.Frame(k::kFrame);
  c.volume = config.Numbers(k::kVolume, 1)->front();
  if (!(c.volume > 0)) config.Fail(k::kVolume, "must be > 0 (m^3)");
  c.fluid_density = config.Number(k::kFluidDensity);
  if (!(c.fluid_density > 0)) config.Fail(k::kFluidDensity, "must be > 0 (kg/m^3)");
  c.center_of_buoyancy = ToMujoco(*config.Vector3(k::kCenterOfBuoyancy), frame);
  if (!GeomBox(m, c.body, &c.box_lo, &c.box_hi)) {
    // no geoms: a cube of the displaced volume around the centre of buoyancy
    const double half = 0.5 * std::cbrt(c.volume);
    c.box_lo = c.center_of_buoyancy - Vec3::Constant(half);
    c.box_hi = c.center_of_buoyancy + Vec3::Constant(half);
  }
  return c;
}

std::unique_ptr<Buoyancy> Buoyancy::Create(const mjModel* m, mjData*, int instance) {
  auto b = std::make_unique<Buoyancy>();
  b->config_ = BuoyancyConfig::FromModel(m, instance);
  b->free_dof_ = FreeJointDof(m, b->config_.body);
  b->current_instance_ = FindCurrentInstance(m);
  return b;
}

void Buoyancy::Compute(const mjModel* m, mjData* d, int) noexcept {
  const int b = config_.body;
  const Mat3 R = BodyRotation(d, b);
  const Vec3 p = BodyPosition(d, b);
  double z_min = 0, z_max = 0;
  restoring::WorldZExtent(config_.box_lo, config_.box_hi, R, p, &z_min, &z_max);
  const Vec3 point = p + R * config_.center_of_buoyancy;
  // the water at the centre of buoyancy; its waves' elevation eta above the centre is the
  // waterline (0 in calm water: z_min - 0 is z_min, bit for bit)
  const CurrentField* water = CurrentPlugin::Field(d, current_instance_);
  CurrentSample c;
  if (water) c = *CurrentPlugin::OnBody(d, current_instance_, b, point);
  last_waterline_ = c.elevation;
  last_fraction_ = restoring::SubmergedFraction(z_min - c.elevation, z_max - c.elevation);
  // buoyancy is the fluid's answer to gravity: off when gravity is off
  const Vec3 gravity = (m->opt.disableflags & mjDSBL_GRAVITY)
                           ? Vec3::Zero()
                           : Vec3(m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2]);
  last_force_ = restoring::BuoyancyForce(config_.fluid_density, config_.volume, last_fraction_,
                                         gravity);
  last_froude_krylov_.setZero();
  if (water) {
    if (last_fraction_ > 0 && last_fraction_ < 1 && water->waves()) {
      // a body through the moving surface: the water's acceleration at the centre of the
      // box's submerged part, (z_min + eta) / 2 below the centre of buoyancy, which makes
      // rho g A_wp eta + rho V_sub Du/Dt the Froude-Krylov heave force of a box to third
      // order in k x draft (docs/waves.md "Floating box")
      c = water->Evaluate(d->time, Vec3(point.x(), point.y(), 0.5 * (z_min + c.elevation)));
    }
    last_froude_krylov_ = restoring::FroudeKrylovForce(config_.fluid_density, config_.volume,
                                                       last_fraction_, c);
  }
  const Vec3 force = last_force_ + last_froude_krylov_;
  if (force.isZero(0)) return;
  ApplyWrench(m, d, b, free_dof_, force, Vec3::Zero(), point, d->qfrc_passive);
}

void Buoyancy::RegisterPlugin() { RegisterPassivePlugin<Buoyancy>(); }

}  // namespace nereid
