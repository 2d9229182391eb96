// Copyright Nereid authors.
// Hydrostatics: buoyancy with a free surface at world z = 0.
//
// Partial submersion uses an equivalent box: the axis-aligned bounding box of the body's
// geoms in its own frame. The submerged fraction is the part of that box's world-z extent
// below z = 0. It is exact for a box floating upright and an approximation otherwise
// (a tilted box, or a body whose shape is not its bounding box); the buoyancy keeps acting
// at the configured centre of buoyancy (a vertical force's moment does not depend on where
// along the vertical it acts). Waterplane stiffness from a shifting centre of buoyancy is
// not modelled. See plugins/buoyancy/README.md.
#ifndef NEREID_RESTORING_H_
#define NEREID_RESTORING_H_

#include <algorithm>

#include "nereid/current.h"
#include "nereid/frames.h"

namespace nereid::restoring {

// Fraction of [z_min, z_max] that lies below z = 0 (1 for a point at or below it).
inline double SubmergedFraction(double z_min, double z_max) {
  if (z_max <= z_min) return z_min <= 0 ? 1.0 : 0.0;
  return std::clamp(-z_min / (z_max - z_min), 0.0, 1.0);
}

// World-z extent [min, max] of the box [lo, hi] (body frame) placed at p with rotation R.
inline void WorldZExtent(const Vec3& lo, const Vec3& hi, const Mat3& R, const Vec3& p,
                         double* z_min, double* z_max) {
  const Vec3 c = 0.5 * (lo + hi);
  const Vec3 h = 0.5 * (hi - lo);
  const double zc = p.z() + R.row(2).dot(c);
  const double dz = R.row(2).cwiseAbs().dot(h);
  *z_min = zc - dz;
  *z_max = zc + dz;
}

// Buoyancy force in the world frame: -rho V f g (opposes gravity g, m/s^2).
inline Vec3 BuoyancyForce(double rho, double volume, double fraction, const Vec3& gravity) {
  return -rho * volume * fraction * gravity;
}

// The water's acceleration at a fixed point, Dv_c/Dt = dv_c/dt + (v_c . grad) v_c, for a
// current that varies in time and along world z, plus waves (m/s^2, world frame).
inline Vec3 WaterAcceleration(const CurrentSample& c) {
  return c.d_dt + c.velocity.z() * c.d_dz + c.d_dx * c.velocity;
}

// Froude-Krylov force of an accelerating current on the displaced water, world frame:
// rho V f Dv_c/Dt (the pressure gradient that accelerates the water accelerates the body
// too; Fossen's added-mass term M_A dv_c/dt is the rest of the fluid's inertia force).
inline Vec3 FroudeKrylovForce(double rho, double volume, double fraction, const CurrentSample& c) {
  return rho * volume * fraction * WaterAcceleration(c);
}

}  // namespace nereid::restoring

#endif  // NEREID_RESTORING_H_
