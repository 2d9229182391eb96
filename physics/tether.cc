// Copyright Nereid authors.
// The tether's pure physics (include/nereid/tether.h): Morison drag, buoyancy, the
// submerged part of a segment, and seed 002 eq. 3.21.
#include <algorithm>
#include <cmath>

#include "nereid/tether.h"

namespace nereid::tether {

DragForce MorisonDrag(const Vec3& flow, const Vec3& axis, double length, const Morison& c) {
  const Vec3 u_t = flow.dot(axis) * axis;
  const Vec3 u_n = flow - u_t;
  const double q = 0.5 * c.fluid_density * c.diameter * length;
  DragForce f;
  f.normal = q * c.cd_normal * u_n.norm() * u_n;
  f.tangential = q * M_PI * c.cd_tangential * u_t.norm() * u_t;
  return f;
}

Vec3 CylinderBuoyancy(double fluid_density, double diameter, double length, const Vec3& gravity) {
  return -fluid_density * 0.25 * M_PI * diameter * diameter * length * gravity;
}

double SubmergedFraction(double z_a, double z_b, double* z_mid_submerged) {
  const double lo = std::min(z_a, z_b), hi = std::max(z_a, z_b);
  double fraction;
  if (hi <= 0) {
    fraction = 1;
  } else if (lo >= 0) {
    fraction = 0;
  } else {
    fraction = -lo / (hi - lo);
  }
  if (z_mid_submerged) *z_mid_submerged = 0.5 * (lo + std::min(hi, 0.0));
  return fraction;
}

Vec3 AnalyticTetherForce(double fluid_density, double diameter, double cd, double x_integral,
                         double y_integral, double wet_weight_per_metre, double h,
                         double weight_factor) {
  const double k = 0.25 * fluid_density * diameter * cd;
  return Vec3(-k * x_integral, -k * y_integral, weight_factor * wet_weight_per_metre * h);
}

}  // namespace nereid::tether
