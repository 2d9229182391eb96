// Copyright Nereid authors.
// nereid::SiteAcceleration and SiteVelocity (physics/kinematics.cc) against MuJoCo's own
// mj_objectAcceleration and mj_objectVelocity (after mj_rnePostConstraint): on a free body
// (the closed form of a rigid body's point) and on a site down a hinge chain (the general
// chain of cdof terms). WrapAngle against std::remainder.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include <doctest/doctest.h>
#include <mujoco/mujoco.h>

#include "nereid/kinematics.h"

namespace nereid {
namespace {

constexpr char kModel[] = R"(
<mujoco>
  <option gravity="0.3 -0.2 -9.81"/>
  <worldbody>
    <body name="vehicle" pos="0.2 -0.1 -3" euler="10 -20 35">
      <freejoint/>
      <geom type="box" size="0.3 0.2 0.1" density="1000"/>
      <site name="imu" pos="0.25 0.1 -0.05" euler="5 -3 10"/>
      <body name="arm" pos="0.3 0 0">
        <joint type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" density="1000"/>
        <body name="forearm" pos="0.4 0 0">
          <joint type="hinge" axis="0 0 1"/>
          <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" density="1000"/>
          <site name="tool" pos="0.3 0.02 0" euler="0 30 0"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>)";

TEST_SUITE("physics") {

TEST_CASE("site velocity and acceleration: a free body's closed form and a chain, as MuJoCo's") {
  char error[512] = "";
  mjSpec* spec = mj_parseXMLString(kModel, nullptr, error, sizeof(error));
  REQUIRE_MESSAGE(spec, error);
  mjModel* m = mj_compile(spec, nullptr);
  REQUIRE(m);
  mjData* d = mj_makeData(m);
  const double qvel[8] = {0.7, -0.2, 0.15, 0.9, -0.6, 1.1, 1.3, -0.8};
  for (int i = 0; i < m->nv; ++i) d->qvel[i] = qvel[i];
  d->qpos[7] = 0.4;
  d->qpos[8] = -0.7;
  for (int i = 0; i < m->nv; ++i) d->qfrc_applied[i] = 2.0 * std::sin(1.0 + i);  // a non-trivial qacc
  mj_forward(m, d);
  mj_rnePostConstraint(m, d);
  for (const char* name : {"imu", "tool"}) {
    CAPTURE(name);
    const int site = mj_name2id(m, mjOBJ_SITE, name);
    for (const int local : {0, 1}) {
      CAPTURE(local);
      mjtNum ours[6], theirs[6];
      SiteAcceleration(m, d, site, local != 0, ours);
      mj_objectAcceleration(m, d, mjOBJ_SITE, site, theirs, local);
      for (int i = 0; i < 6; ++i) CHECK(ours[i] == doctest::Approx(theirs[i]).epsilon(1e-12).scale(1.0));
      SiteVelocity(m, d, site, local != 0, ours);
      mj_objectVelocity(m, d, mjOBJ_SITE, site, theirs, local);
      for (int i = 0; i < 6; ++i) CHECK(ours[i] == doctest::Approx(theirs[i]).epsilon(1e-12).scale(1.0));
    }
  }
  // gravity off: the closed form leaves it out as MuJoCo does
  m->opt.disableflags |= mjDSBL_GRAVITY;
  mj_forward(m, d);
  mj_rnePostConstraint(m, d);
  mjtNum ours[6], theirs[6];
  const int imu = mj_name2id(m, mjOBJ_SITE, "imu");
  SiteAcceleration(m, d, imu, true, ours);
  mj_objectAcceleration(m, d, mjOBJ_SITE, imu, theirs, 1);
  for (int i = 0; i < 6; ++i) CHECK(ours[i] == doctest::Approx(theirs[i]).epsilon(1e-12).scale(1.0));
  mj_deleteData(d);
  mj_deleteModel(m);
  mj_deleteSpec(spec);
}


TEST_CASE("WrapAngle equals std::remainder(angle, 2 pi) bit for bit") {
  const double pi = std::numbers::pi, two_pi = 2 * std::numbers::pi;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> angles = {0.0, -0.0, 1e-300, -1e-300, 1.0, -3.0, 4.0, -5.5, 7.0, 1e6, -1e17, inf, -inf,
                                std::numeric_limits<double>::quiet_NaN()};
  // the ends of each branch: ±π (a tie, kept), ±2π and ±3π, and their neighbours
  for (double edge : {pi, two_pi, 3 * pi, 1.5 * two_pi}) {
    for (double sign : {1.0, -1.0}) {
      double a = sign * edge;
      for (int k = 0; k < 4; ++k) a = std::nextafter(a, 0.0);
      for (int k = 0; k < 9; ++k, a = std::nextafter(a, sign * inf)) angles.push_back(a);
    }
  }
  // headings with noise: a fine sweep over (-2.5π, 2.5π)
  for (int i = -100000; i <= 100000; ++i) angles.push_back(2.5 * pi * i / 100000.0 + 1e-7 * (i % 13));
  int mismatches = 0;
  for (double a : angles) {
    const double wrapped = WrapAngle(a), reference = std::remainder(a, two_pi);
    if (std::bit_cast<uint64_t>(wrapped) != std::bit_cast<uint64_t>(reference) &&
        !(std::isnan(wrapped) && std::isnan(reference))) {
      ++mismatches;
      MESSAGE("angle " << a << ": " << wrapped << " against " << reference);
    }
  }
  CHECK(mismatches == 0);
  CHECK(WrapAngle(pi) == pi);
  CHECK(WrapAngle(-pi) == -pi);
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
