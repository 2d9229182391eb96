// Copyright Nereid authors.
// The tether's pure physics against closed forms (include/nereid/tether.h).
#include <cmath>

#include <doctest/doctest.h>

#include "nereid/tether.h"

namespace nereid {
namespace {

using tether::Morison;

TEST_SUITE("tether_math") {

TEST_CASE("cross flow: F_n = 1/2 rho C_n d L |u| u, no tangential part") {
  const Morison c{1025, 0.0076, 1.2, 0.01};
  const double L = 0.6, U = 0.5;
  const tether::DragForce f = tether::MorisonDrag(Vec3(U, 0, 0), Vec3(0, 0, 1), L, c);
  const double expected = 0.5 * 1025 * 1.2 * 0.0076 * L * U * U;
  MESSAGE("F_n = " << f.normal.x() << " N, closed form " << expected << " N");
  CHECK(std::abs(f.normal.x() - expected) <= 1e-15 * expected + 1e-18);
  CHECK(f.normal.tail<2>().norm() == 0);
  CHECK(f.tangential.norm() == 0);
}

TEST_CASE("axial flow: F_t = 1/2 rho C_t (pi d) L |u| u, no normal part") {
  const Morison c{1000, 0.01, 1.2, 0.02};
  const double L = 2.0, U = -0.8;  // flow against the axis
  const tether::DragForce f = tether::MorisonDrag(Vec3(0, U, 0), Vec3(0, 1, 0), L, c);
  const double expected = 0.5 * 1000 * 0.02 * M_PI * 0.01 * L * std::abs(U) * U;
  CHECK(f.tangential.y() == doctest::Approx(expected).epsilon(1e-14));
  CHECK(f.normal.norm() <= 1e-18);
}

TEST_CASE("oblique flow splits into normal and tangential components, each quadratic") {
  const Morison c{1000, 0.0076, 1.1, 0.015};
  const double L = 0.5;
  const Vec3 axis = Vec3(1, 2, -2).normalized();
  const Vec3 flow(0.3, -0.4, 0.2);
  const tether::DragForce f = tether::MorisonDrag(flow, axis, L, c);
  const Vec3 u_t = flow.dot(axis) * axis, u_n = flow - u_t;
  const Vec3 fn = 0.5 * 1000 * 1.1 * 0.0076 * L * u_n.norm() * u_n;
  const Vec3 ft = 0.5 * 1000 * 0.015 * M_PI * 0.0076 * L * u_t.norm() * u_t;
  CHECK((f.normal - fn).norm() <= 1e-15);
  CHECK((f.tangential - ft).norm() <= 1e-15);
  CHECK(std::abs(f.normal.dot(axis)) <= 1e-15);     // normal part is normal
  CHECK(f.tangential.cross(axis).norm() <= 1e-15);  // tangential part is along the axis
  // doubling the flow quadruples both
  const tether::DragForce f2 = tether::MorisonDrag(2 * flow, axis, L, c);
  CHECK((f2.total() - 4 * f.total()).norm() <= 1e-14);
}

TEST_CASE("buoyancy of a cylinder: rho g pi d^2 / 4 L against gravity") {
  const Vec3 b = tether::CylinderBuoyancy(1000, 0.02, 3.0, Vec3(0, 0, -9.81));
  CHECK(b.z() == doctest::Approx(1000 * 9.81 * M_PI * 0.0001 * 3.0).epsilon(1e-14));
  CHECK(b.head<2>().norm() == 0);
}

TEST_CASE("submerged fraction of a segment crossing the free surface") {
  double z = 0;
  CHECK(tether::SubmergedFraction(-2, -1, &z) == 1);
  CHECK(z == doctest::Approx(-1.5));
  CHECK(tether::SubmergedFraction(1, 2, &z) == 0);
  CHECK(tether::SubmergedFraction(0.5, -1.5, &z) == doctest::Approx(0.75));
  CHECK(z == doctest::Approx(-0.75));
}

TEST_CASE("seed 002 eq. 3.21: X = -1/4 rho d C_d int|u|u dz, Z = 1.2 w h") {
  const double rho = 1000, d = 0.0076, cd = 1.2, h = 10, u = 0.4, w = 0.3;
  const Vec3 f = tether::AnalyticTetherForce(rho, d, cd, h * u * u, -h * u * u, w, h);
  CHECK(f.x() == doctest::Approx(-0.25 * rho * d * cd * h * u * u).epsilon(1e-14));
  CHECK(f.y() == doctest::Approx(0.25 * rho * d * cd * h * u * u).epsilon(1e-14));
  CHECK(f.z() == doctest::Approx(1.2 * w * h).epsilon(1e-14));
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
