// Copyright Nereid authors.
// nereid.buoyancy with MuJoCo's gravity: Fossen's restoring forces g(eta).
#include <cmath>

#include <doctest/doctest.h>

#include "nereid/simulation.h"
#include "test_util.h"

namespace nereid {
namespace {

TEST_SUITE("restoring") {

TEST_CASE("righting moment equals -W BG sin(phi) for phi in (-pi, pi)") {
  const double m = 11.5, rho = 1000, g = 9.81, BG = 0.02;
  const double V = m / rho;  // neutral: buoyancy = weight
  // centre of buoyancy 0.02 m above the CG: FRD (0, 0, -0.02)
  auto sim = Simulation::LoadString(test::SingleBody(
      test::Buoyancy(V, "0 0 -0.02"), m, "0.16 0.16 0.16", true, "Euler", 0.005));
  mjData* d = sim->data();
  const double W = m * g;
  double worst = 0;
  for (int i = -24; i <= 24; ++i) {
    const double phi = i * M_PI / 25;
    for (int axis : {0, 1}) {  // roll about body x, pitch about body y
      mj_resetData(sim->model(), d);
      d->qpos[3] = std::cos(phi / 2);
      d->qpos[4 + axis] = std::sin(phi / 2);
      sim->Forward();
      // net moment on the body (body frame): passive (buoyancy) minus bias (gravity at CG)
      const double moment = d->qfrc_passive[3 + axis] - d->qfrc_bias[3 + axis];
      worst = std::max(worst, std::abs(moment - (-W * BG * std::sin(phi))));
      // the net vertical force vanishes (neutral)
      CHECK(std::abs(d->qfrc_passive[2] - d->qfrc_bias[2]) <= 1e-9 * W);
    }
  }
  MESSAGE("max |moment - (-W BG sin phi)| = " << worst << " N m (W BG = " << W * BG << ")");
  CHECK(worst <= 1e-12 * W);
}

TEST_CASE("a floating box settles at the draft where displaced weight equals its weight") {
  // box 1 x 1 x 0.5 m (V = 0.5 m^3) of 200 kg: draft = m / (rho A) = 0.2 m
  const double mass = 200, rho = 1000, A = 1.0, H = 0.5;
  const std::string xml = test::SingleBody(
      test::Hydro("0 0 0 0 0 0", "0 0 2000 50 50 50", "0 0 0 0 0 0") +
          test::Buoyancy(A * H, "0 0 0"),
      mass, "20 20 30", true, "Euler", 0.005, "0.5 0.5 0.25");
  auto sim = Simulation::LoadString(xml);
  mjData* d = sim->data();
  d->qpos[2] = 0.1;  // start partly out of the water
  for (int k = 0; k < 4000; ++k) sim->Step();  // 20 s
  const double draft = -(d->qpos[2] - H / 2);
  const double expected = mass / (rho * A);
  MESSAGE("draft " << draft << " m, expected " << expected << " m");
  CHECK(std::abs(draft - expected) <= 1e-3);
  CHECK(std::abs(d->qvel[2]) <= 1e-4);
}

TEST_CASE("buoyancy fades out as the body leaves the water") {
  auto sim = Simulation::LoadString(test::SingleBody(test::Buoyancy(0.01, "0 0 0"), 5, "0.1 0.1 0.1", true));
  mjData* d = sim->data();
  d->qpos[2] = 1.0;  // well above the surface (box half-height 0.1)
  sim->Forward();
  CHECK(d->qfrc_passive[2] == 0);
  d->qpos[2] = 0.0;  // half submerged
  sim->Forward();
  CHECK(d->qfrc_passive[2] == doctest::Approx(0.5 * 1000 * 0.01 * 9.81).epsilon(1e-12));
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
