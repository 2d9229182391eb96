// Copyright Nereid authors.
// Pure-function tests of the Fossen terms, frame conversion, hydrostatics and currents.
#include <cmath>
#include <random>

#include <doctest/doctest.h>

#include "nereid/current.h"
#include "nereid/error.h"
#include "nereid/fossen.h"
#include "nereid/frames.h"
#include "nereid/restoring.h"

namespace nereid {
namespace {

Mat6 RandomSpd(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Mat6 A;
  for (int i = 0; i < 36; ++i) A.data()[i] = u(rng);
  return A * A.transpose() + Mat6::Identity();
}

Vec6 RandomVec(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-2, 2);
  Vec6 v;
  for (int i = 0; i < 6; ++i) v[i] = u(rng);
  return v;
}

TEST_SUITE("physics") {

TEST_CASE("C_A(nu) nu does no work: nu^T C_A(nu) nu = 0 for symmetric M_A") {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 100; ++trial) {
    const Mat6 M = RandomSpd(rng);
    const Vec6 nu = RandomVec(rng);
    const double scale = (M * nu).norm() * nu.norm();
    CHECK(std::abs(nu.dot(fossen::AddedMassCoriolis(M, nu))) <= 1e-13 * scale);
  }
}

TEST_CASE("C_A equals Fossen's matrix form [0 -S(p1); -S(p1) -S(p2)] nu") {
  std::mt19937 rng(2);
  const Mat6 M = RandomSpd(rng);
  const Vec6 nu = RandomVec(rng);
  const Vec6 p = M * nu;
  Mat6 C = Mat6::Zero();
  C.topRightCorner<3, 3>() = -fossen::Skew(p.head<3>());
  C.bottomLeftCorner<3, 3>() = -fossen::Skew(p.head<3>());
  C.bottomRightCorner<3, 3>() = -fossen::Skew(p.tail<3>());
  CHECK((C * nu - fossen::AddedMassCoriolis(M, nu)).norm() <= 1e-13 * (C * nu).norm());
  // C_A(nu) is skew-symmetric
  CHECK((C + C.transpose()).norm() <= 1e-14 * C.norm());
}

TEST_CASE("Munk moment: oblique translation with X_udot < Y_vdot turns towards broadside") {
  // FRD, u > 0, v > 0: the body moves forward-starboard; broadside means the nose turns to
  // port (negative yaw moment), N = (X_udot - Y_vdot) u v
  Mat6 M = Mat6::Zero();
  M.diagonal() << 2.6, 18.5, 13.3, 0.054, 0.0173, 0.28;
  Vec6 nu;
  nu << 0.5, 0.3, 0, 0, 0, 0;
  const Vec6 tau = -fossen::AddedMassCoriolis(M, nu);
  CHECK(tau[5] == doctest::Approx((2.6 - 18.5) * 0.5 * 0.3).epsilon(1e-14));
  CHECK(tau[5] < 0);
  CHECK(tau.head<3>().norm() == 0);
}

TEST_CASE("reference-point transport: C_A about P moved to O equals C_A of the shifted M_A") {
  std::mt19937 rng(3);
  const Mat6 M_P = RandomSpd(rng);
  const Vec3 r(0.1, -0.2, 0.05);
  const Mat6 H = fossen::Transport(r);
  const Mat6 M_O = fossen::ShiftToOrigin(M_P, r);
  for (int trial = 0; trial < 20; ++trial) {
    const Vec6 nu_O = RandomVec(rng);
    const Vec6 a = H.transpose() * fossen::AddedMassCoriolis(M_P, H * nu_O);
    const Vec6 b = fossen::AddedMassCoriolis(M_O, nu_O);
    CHECK((a - b).norm() <= 1e-12 * a.norm());
  }
  // velocity of P: v_P = v_O + w x r
  Vec6 nu;
  nu << 1, 2, 3, 0.4, -0.5, 0.6;
  const Vec6 nu_P = H * nu;
  CHECK((nu_P.head<3>() - (nu.head<3>() + nu.tail<3>().cross(r))).norm() < 1e-15);
}

TEST_CASE("damping dissipates: nu^T D(nu) nu >= 0 and matches the diagonal closed form") {
  Mat6 D = Mat6::Zero();
  D.diagonal() << 0, 0.26, 0.19, 0.895, 0.287, 4.64;
  Vec6 q;
  q << 34.96, 103.25, 74.23, 0.084, 0.028, 0.43;
  Vec6 nu;
  nu << 0.7, -0.4, 0.2, -0.3, 0.1, 0.5;
  const Vec6 d = fossen::Damping(D, q, nu);
  for (int i = 0; i < 6; ++i) {
    CHECK(d[i] == doctest::Approx(D(i, i) * nu[i] + q[i] * std::abs(nu[i]) * nu[i]).epsilon(1e-15));
  }
  CHECK(nu.dot(d) > 0);
}

TEST_CASE("free-decay closed form satisfies its ODE") {
  const double M = 7.31 + 2.6, a = 3.0, b = 34.96, u0 = 1.2;
  for (double t : {0.0, 0.1, 1.0, 5.0}) {
    const double h = 1e-6;
    const double u = fossen::FreeDecayVelocity(M, a, b, u0, t);
    const double du = (fossen::FreeDecayVelocity(M, a, b, u0, t + h) -
                       fossen::FreeDecayVelocity(M, a, b, u0, t - (t > 0 ? h : 0))) /
                      (t > 0 ? 2 * h : h);
    CHECK(M * du == doctest::Approx(-a * u - b * std::abs(u) * u).epsilon(t > 0 ? 1e-7 : 1e-4));
  }
  CHECK(fossen::FreeDecayVelocity(M, a, b, u0, 0) == doctest::Approx(u0));
  CHECK(fossen::FreeDecayVelocity(M, 0, b, -u0, 2) == doctest::Approx(-u0 / (1 + b * u0 * 2 / M)));
}

TEST_CASE("frames: FRD to FLU flips y and z, diagonal coefficients unchanged") {
  const Vec3 r = ToMujoco(Vec3(0.1, 0.2, 0.3), BodyFrame::kFRD);
  CHECK(r == Vec3(0.1, -0.2, -0.3));
  Mat6 M = Mat6::Zero();
  M.diagonal() << 1, 2, 3, 4, 5, 6;
  M(0, 4) = M(4, 0) = 0.5;  // surge-pitch coupling X_qdot = M_udot
  M(1, 5) = M(5, 1) = 0.25; // sway-yaw coupling: both indices flip, so unchanged
  const Mat6 F = ToMujoco(M, BodyFrame::kFRD);
  CHECK(F.diagonal() == M.diagonal());
  CHECK(F(0, 4) == -0.5);
  CHECK(F(4, 0) == -0.5);
  CHECK(F(1, 5) == 0.25);
  CHECK(ToMujoco(F, BodyFrame::kFRD) == M);  // its own inverse
  CHECK(ToMujoco(M, BodyFrame::kFLU) == M);
  BodyFrame frame;
  CHECK(ParseBodyFrame("flu", &frame));
  CHECK(frame == BodyFrame::kFLU);
  CHECK_FALSE(ParseBodyFrame("ned", &frame));
}

TEST_CASE("frames: kinetic energy is frame-independent") {
  std::mt19937 rng(4);
  const Mat6 M = RandomSpd(rng);
  const Vec6 nu = RandomVec(rng);
  const double e_frd = nu.dot(M * nu);
  const double e_flu = ToMujoco(nu, BodyFrame::kFRD).dot(ToMujoco(M, BodyFrame::kFRD) *
                                                         ToMujoco(nu, BodyFrame::kFRD));
  CHECK(e_flu == doctest::Approx(e_frd).epsilon(1e-14));
}

TEST_CASE("hydrostatics: submerged fraction of an equivalent box") {
  CHECK(restoring::SubmergedFraction(-1, -0.5) == 1);
  CHECK(restoring::SubmergedFraction(0.1, 0.5) == 0);
  CHECK(restoring::SubmergedFraction(-0.2, 0.3) == doctest::Approx(0.4));
  double lo = 0, hi = 0;
  const Mat3 R = Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()).toRotationMatrix();
  restoring::WorldZExtent(Vec3(-1, -0.5, -0.1), Vec3(1, 0.5, 0.1), R, Vec3(0, 0, -2), &lo, &hi);
  CHECK(lo == doctest::Approx(-2.5));  // the y half-size 0.5 now points along z
  CHECK(hi == doctest::Approx(-1.5));
  const Vec3 f = restoring::BuoyancyForce(1000, 0.01, 1, Vec3(0, 0, -9.81));
  CHECK(f.z() == doctest::Approx(98.1));
}

TEST_CASE("current: constant, time and depth profiles") {
  const CurrentField c = CurrentField::Constant(Vec3(0.5, 0, 0));
  CHECK(c.Evaluate(3, -10).velocity.x() == 0.5);
  const CurrentField t = CurrentField::TimeProfile({0, 10}, {Vec3(0, 0, 0), Vec3(1, 0, 0)});
  const CurrentSample s = t.Evaluate(2.5, 0);
  CHECK(s.velocity.x() == doctest::Approx(0.25));
  CHECK(s.d_dt.x() == doctest::Approx(0.1));
  CHECK(t.Evaluate(20, 0).velocity.x() == 1);  // end value held
  CHECK(t.Evaluate(20, 0).d_dt.x() == 0);
  CHECK(t.Evaluate(0, 0).d_dt.x() == doctest::Approx(0.1));  // first knot: its segment's slope
  CHECK(t.Evaluate(-1, 0).d_dt.x() == 0);                     // before it: held
  const CurrentSample rising{Vec3(0.5, 0, 0.2), Vec3(0.1, 0, 0), Vec3(0.3, 0, 0)};
  // Dv/Dt = dv/dt + v_z dv/dz; Froude-Krylov rho V f Dv/Dt
  CHECK(restoring::WaterAcceleration(rising).x() == doctest::Approx(0.1 + 0.2 * 0.3));
  CHECK(restoring::FroudeKrylovForce(1000, 0.01, 0.5, rising).x() == doctest::Approx(5 * 0.16));
  const CurrentField d = CurrentField::DepthProfile({0, 20}, {Vec3(1, 0, 0), Vec3(0, 0, 0)});
  const CurrentSample at = d.Evaluate(0, -5);  // 5 m deep
  CHECK(at.velocity.x() == doctest::Approx(0.75));
  CHECK(at.d_dz.x() == doctest::Approx(0.05));  // grows towards the surface (z up)
  CHECK_THROWS_WITH_AS(CurrentField::TimeProfile({0, 0}, {Vec3::Zero(), Vec3::Zero()}, "here"),
                       doctest::Contains("here: knots must be strictly increasing"), ConfigError);
  CHECK_THROWS_WITH_AS(CurrentField::DepthProfile({0, 1}, {Vec3::Zero()}, "there"),
                       doctest::Contains("2 knots but 1 velocities"), ConfigError);
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
