// Copyright Nereid authors.
// nereid.hydrodynamics stepped by the engine, against closed forms and conservation laws.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "nereid/fossen.h"
#include "nereid/simulation.h"
#include "test_util.h"

namespace nereid {
namespace {

TEST_SUITE("hydrodynamics") {

TEST_CASE("free decay in surge matches the closed form (RK4, 1e-6 relative)") {
  struct Case { const char* name; double m, X_udot, X_u, X_uu, u0; };
  // BlueROV surge (seed 000 Table 3); Raybot surge (seed 002 chapter 3)
  for (const Case& c : {Case{"bluerov", 7.31, 2.6, 0.0, 34.96, 1.0},
                        Case{"raybot", 26.33, 27.96, 24.65, 747.06, 0.5}}) {
    const std::string name = c.name;
    CAPTURE(name);
    const std::string am = std::to_string(c.X_udot) + " 10 10 0.1 0.1 0.1";
    const std::string dl = std::to_string(c.X_u) + " 0 0 0 0 0";
    const std::string dq = std::to_string(c.X_uu) + " 0 0 0 0 0";
    auto sim = Simulation::LoadString(
        test::SingleBody(test::Hydro(am, dl, dq), c.m, "0.1 0.16 0.16", false, "RK4", 0.001));
    mjData* d = sim->data();
    d->qvel[0] = c.u0;
    double worst = 0;
    for (int k = 0; k < 5000; ++k) {
      sim->Step();
      const double u = fossen::FreeDecayVelocity(c.m + c.X_udot, c.X_u, c.X_uu, c.u0, d->time);
      worst = std::max(worst, std::abs(d->qvel[0] - u) / std::abs(u));
    }
    MESSAGE(name << ": max relative error over 5 s " << worst);
    CHECK(worst <= 1e-6);
  }
}

// a tumbling body with a full, coupled added-mass matrix about an offset reference point
const char kCoupled[] =
    "10 0 0 0 0.3 0  0 20 0 -0.2 0 0.1  0 0 15 0 0 0  0 -0.2 0 0.5 0 0  "
    "0.3 0 0 0 0.4 0  0 0.1 0 0 0 0.6";

// MuJoCo's RK4 combines the stages' free-joint angular velocities in one tangent space,
// which makes it second order in the orientation: for any mass matrix that depends on
// orientation the energy drift falls as dt^2 (measured: a plain MuJoCo rigid body with an
// offset centre of mass drifts 3.0e-8, 7.6e-9, 1.9e-9 over 10 s at dt 2, 1, 0.5 ms; this
// vehicle 3.8e-8, 9.4e-9 at 2 and 1 ms). Hence dt = 0.5 ms for the 1e-8 bound.
TEST_CASE("kinetic energy 1/2 nu^T (M_RB + M_A) nu is conserved over 10 s (RK4, 1e-8)") {
  auto sim = Simulation::LoadString(test::SingleBody(
      test::Hydro(kCoupled, "0 0 0 0 0 0", "0 0 0 0 0 0",
                  "      <config key='reference_point' value='0.05 -0.02 0.03'/>\n"),
      7.31, "0.1 0.16 0.2", false, "RK4", 0.0005));
  mjData* d = sim->data();
  const double v0[6] = {0.5, 0.2, -0.1, 0.3, -0.5, 0.8};
  for (int i = 0; i < 6; ++i) d->qvel[i] = v0[i];
  sim->Forward();
  const double e0 = sim->KineticEnergy();
  double worst = 0;
  for (int k = 0; k < 20000; ++k) {
    sim->Step();
    if (k % 100 == 99) {
      sim->Forward();
      worst = std::max(worst, std::abs(sim->KineticEnergy() - e0) / e0);
    }
  }
  MESSAGE("energy drift over 10 s: " << worst << " (E0 = " << e0 << " J)");
  CHECK(worst <= 1e-8);
  // it really tumbled
  CHECK(std::abs(d->qpos[3]) < 0.99);
}

TEST_CASE("energy is conserved for added mass on a link of an articulated body (RK4)") {
  const char* xml = R"(
<mujoco>
  <option gravity='0 0 0' integrator='RK4' timestep='0.0005'/>
  <extension>
    <plugin plugin='nereid.hydrodynamics'><instance name='base'>
      <config key='body' value='base'/>
      <config key='added_mass' value='3 8 6 0.05 0.08 0.1'/>
      <config key='linear_damping' value='0 0 0 0 0 0'/>
      <config key='quadratic_damping' value='0 0 0 0 0 0'/>
    </instance></plugin>
    <plugin plugin='nereid.hydrodynamics'><instance name='link'>
      <config key='body' value='link'/>
      <config key='added_mass' value='0.5 1.5 1.5 0.001 0.02 0.02'/>
      <config key='linear_damping' value='0 0 0 0 0 0'/>
      <config key='quadratic_damping' value='0 0 0 0 0 0'/>
      <config key='reference_point' value='0.15 0 0'/>
    </instance></plugin>
  </extension>
  <worldbody>
    <body name='base' pos='0 0 -3'>
      <freejoint/>
      <inertial pos='0 0 0' mass='10' diaginertia='0.2 0.3 0.4'/>
      <body name='link' pos='0.2 0 -0.1'>
        <joint type='hinge' axis='0 1 0'/>
        <inertial pos='0.15 0 0' mass='1.5' diaginertia='0.01 0.02 0.02'/>
      </body>
    </body>
  </worldbody>
</mujoco>)";
  auto sim = Simulation::LoadString(xml);
  mjData* d = sim->data();
  const double v0[7] = {0.2, -0.1, 0.3, 0.4, 0.2, -0.3, 1.5};
  for (int i = 0; i < 7; ++i) d->qvel[i] = v0[i];
  sim->Forward();
  const double e0 = sim->KineticEnergy();
  double worst = 0;
  for (int k = 0; k < 20000; ++k) {
    sim->Step();
    if (k % 20 != 19) continue;
    sim->Forward();
    worst = std::max(worst, std::abs(sim->KineticEnergy() - e0) / e0);
  }
  MESSAGE("articulated energy drift over 10 s: " << worst);
  CHECK(worst <= 1e-8);
}

TEST_CASE("Munk moment: oblique translation with X_udot < Y_vdot turns the body broadside") {
  auto sim = Simulation::LoadString(test::SingleBody(
      test::Hydro("2.6 18.5 13.3 0.054 0.0173 0.28"), 7.31, "0.1 0.16 0.16", false, "RK4", 0.002));
  mjData* d = sim->data();
  // FRD u = 0.5, v = 0.5 (forward-starboard) is MuJoCo x = 0.5, y = -0.5
  d->qvel[0] = 0.5;
  d->qvel[1] = -0.5;
  sim->Forward();
  // yaw acceleration (body z, up): nose turns away from the velocity, i.e. to port (+)
  CHECK(d->qacc[5] > 0);
  auto angle = [&] {  // angle between the body x axis and the velocity, in the plane
    const double yaw = 2 * std::atan2(d->qpos[6], d->qpos[3]);
    const double heading = std::atan2(d->qvel[1], d->qvel[0]);
    return std::abs(std::remainder(yaw - heading, 2 * M_PI));
  };
  const double before = angle();
  for (int k = 0; k < 250; ++k) sim->Step();
  CHECK(before == doctest::Approx(M_PI / 4));
  CHECK(angle() > before + 0.05);
}

TEST_CASE("the same vehicle written in FRD and in FLU moves identically") {
  // FRD coefficients with surge-pitch and sway-yaw-roll couplings, and their FLU image
  // T6 A T6 (T = diag(1, -1, -1)) written out by hand
  const std::string am_frd =
      "10 0 0 0 0.3 0  0 20 0 -0.2 0 0.1  0 0 15 0 0 0  0 -0.2 0 0.5 0 0  0.3 0 0 0 0.4 0  0 0.1 0 0 0 0.6";
  const std::string am_flu =
      "10 0 0 0 -0.3 0  0 20 0 0.2 0 0.1  0 0 15 0 0 0  0 0.2 0 0.5 0 0  -0.3 0 0 0 0.4 0  0 0.1 0 0 0 0.6";
  const std::string dl_frd =
      "2 0 0 0 0.1 0  0 3 0 0 0 0.2  0 0 4 0 0 0  0 0 0 0.5 0 0  0.1 0 0 0 0.6 0  0 0.2 0 0 0 0.7";
  const std::string dl_flu =
      "2 0 0 0 -0.1 0  0 3 0 0 0 0.2  0 0 4 0 0 0  0 0 0 0.5 0 0  -0.1 0 0 0 0.6 0  0 0.2 0 0 0 0.7";
  const std::string dq = "30 60 50 0.1 0.1 0.4";
  auto frd = Simulation::LoadString(test::SingleBody(
      test::Hydro(am_frd, dl_frd, dq,
                  "      <config key='frame' value='frd'/>\n"
                  "      <config key='reference_point' value='0.05 0.02 0.03'/>\n") +
          test::Buoyancy(0.0075, "0.01 0 -0.02", "      <config key='frame' value='frd'/>\n"),
      7.31, "0.1 0.16 0.16", true, "RK4", 0.005));
  auto flu = Simulation::LoadString(test::SingleBody(
      test::Hydro(am_flu, dl_flu, dq,
                  "      <config key='frame' value='flu'/>\n"
                  "      <config key='reference_point' value='0.05 -0.02 -0.03'/>\n") +
          test::Buoyancy(0.0075, "0.01 0 0.02", "      <config key='frame' value='flu'/>\n"),
      7.31, "0.1 0.16 0.16", true, "RK4", 0.005));
  double worst = 0;
  for (int k = 0; k < 1000; ++k) {
    for (Simulation* s : {frd.get(), flu.get()}) {
      mjtNum* f = s->data()->xfrc_applied + 6;
      f[0] = 5 * std::sin(0.01 * k);
      f[1] = 2;
      f[4] = 0.3;
      f[5] = -0.2;
      s->Step();
    }
    worst = std::max(worst, test::MaxAbsDiff(frd->data()->qpos, flu->data()->qpos, 7));
    worst = std::max(worst, test::MaxAbsDiff(frd->data()->qvel, flu->data()->qvel, 6));
  }
  MESSAGE("FRD vs FLU max state difference over 5 s: " << worst);
  CHECK(worst <= 1e-12);
  CHECK(std::abs(frd->data()->qvel[3]) + std::abs(frd->data()->qvel[4]) > 1e-3);  // it rotated
}

TEST_CASE("current: a neutrally buoyant body released in a uniform current reaches its velocity") {
  auto sim = Simulation::LoadString(test::SingleBody(
      test::Hydro("5 8 8 0.1 0.1 0.1", "10 12 12 1 1 1", "20 30 30 0.5 0.5 0.5") +
          test::Buoyancy(10.0 / 1000, "0 0 -0.02") + test::Current("0.5 -0.2 0.05"),
      10, "0.1 0.16 0.16", true, "RK4", 0.005));
  mjData* d = sim->data();
  for (int k = 0; k < 8000; ++k) sim->Step();
  MESSAGE("velocity after 40 s: " << d->qvel[0] << " " << d->qvel[1] << " " << d->qvel[2]);
  CHECK(d->qvel[0] == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(d->qvel[1] == doctest::Approx(-0.2).epsilon(1e-6));
  CHECK(d->qvel[2] == doctest::Approx(0.05).epsilon(1e-6));
}

TEST_CASE("current: no hydrodynamic force on a body moving with the current") {
  auto sim = Simulation::LoadString(test::SingleBody(
      test::Hydro("5 8 8 0.1 0.1 0.1", "10 12 12 1 1 1", "20 30 30 0.5 0.5 0.5") +
          test::Current("0.3 0.4 0"),
      10, "0.1 0.16 0.16", false, "Euler", 0.01));
  mjData* d = sim->data();
  d->qpos[3] = std::cos(0.3);  // rotated about z: the current is not along a body axis
  d->qpos[6] = std::sin(0.3);
  d->qvel[0] = 0.3;
  d->qvel[1] = 0.4;
  sim->Forward();
  CHECK(test::MaxAbsDiff(d->qfrc_passive, std::vector<mjtNum>(6, 0.0).data(), 6) <= 1e-14);
  for (int k = 0; k < 100; ++k) sim->Step();
  CHECK(d->qvel[0] == doctest::Approx(0.3).epsilon(1e-12));
  CHECK(d->qvel[1] == doctest::Approx(0.4).epsilon(1e-12));
}

TEST_CASE("current: a neutrally buoyant body moves with water that accelerates (1e-9)") {
  // (m + M_A) a = (rho V + M_A) a_c with m = rho V: Froude-Krylov (nereid.buoyancy) plus
  // added mass (nereid.hydrodynamics) give a = a_c, from the first step (the slope of the
  // time profile at its first knot) on; with plain mj_step (added mass dropped) too
  const Vec3 a_c(0.4, -0.2, 0.1);
  const std::string profile = "0 0 0 0  2 " + std::to_string(2 * a_c.x()) + " " +
                              std::to_string(2 * a_c.y()) + " " + std::to_string(2 * a_c.z());
  const std::string current = "    <plugin plugin='nereid.current'><instance name='current'>\n"
                              "      <config key='time_profile' value='" + profile + "'/>\n"
                              "    </instance></plugin>\n";
  for (Engine engine : {Engine::kNereid, Engine::kMuJoCo}) {
    CAPTURE(ToString(engine));
    SimulationOptions options;
    options.engine = engine;
    auto sim = Simulation::LoadString(
        test::SingleBody(test::Hydro("5 8 8 0.1 0.1 0.1", "10 12 12 1 1 1", "20 30 30 0.5 0.5 0.5") +
                             test::Buoyancy(10.0 / 1000, "0 0 0") + current,
                         10, "0.1 0.16 0.16", true, "Euler", 0.01),
        options);
    mjData* d = sim->data();
    d->qpos[3] = std::cos(0.4);  // turned about an oblique axis: M_A is not world-aligned
    d->qpos[4] = std::sin(0.4) * 0.6;
    d->qpos[6] = std::sin(0.4) * 0.8;
    double worst = 0;
    for (int k = 0; k < 150; ++k) {
      sim->Step();
      for (int i = 0; i < 3; ++i) worst = std::max(worst, std::abs(d->qacc[i] - a_c[i]));
      for (int i = 3; i < 6; ++i) worst = std::max(worst, std::abs(d->qacc[i]));
    }
    MESSAGE("largest |qacc - a_c| over 1.5 s: " << worst << " m/s^2");
    CHECK(worst < 1e-9);
    CHECK(d->qvel[0] == doctest::Approx(1.5 * a_c.x()).epsilon(1e-9));
  }
}

TEST_CASE("current can be changed at run time through the Simulation") {
  auto sim = Simulation::LoadString(test::SingleBody(
      test::Hydro("5 8 8 0.1 0.1 0.1", "10 12 12 1 1 1", "0 0 0 0 0 0") + test::Current(),
      10, "0.1 0.16 0.16", false, "Euler", 0.01));
  sim->SetCurrent(CurrentField::Constant(Vec3(1, 0, 0)));
  sim->Forward();
  // relative velocity -1 m/s in surge: linear damping pushes with +10 N
  CHECK(sim->data()->qfrc_passive[0] == doctest::Approx(10).epsilon(1e-12));
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
