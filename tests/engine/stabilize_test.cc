// Copyright Nereid authors.
// The depth and attitude hold (include/nereid/stabilize.h) and seed 000's thruster-driven
// pair trials that use it (scenarios/seed000).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/scenario.h"
#include "nereid/simulation.h"
#include "nereid/stabilize.h"
#include "test_util.h"

namespace nereid {
namespace {

std::string ScenarioPath(const std::string& name) {
  return (std::filesystem::path(NEREID_SOURCE_MODEL_DIR) / ".." / "scenarios" / name)
      .lexically_normal()
      .string();
}

TEST_SUITE("stabilize") {

TEST_CASE("StabilizeLaw: the cascaded P loops and their limits, by hand") {
  StabilizeGains g;  // depth_p 1, climb_p 4, angle_p 6, rate_p 30, limits 0.5 m/s, 1 rad/s
  // 0.2 m too deep, sinking at 0.1 m/s; rolled 0.1 rad, pitching at 0.05 rad/s
  Vec3 a = StabilizeLaw(g, 0.2, -0.1, 0.1, 0.0, 0.0, 0.05);
  CHECK(a[0] == doctest::Approx(4 * (0.2 - -0.1)));
  CHECK(a[1] == doctest::Approx(30 * (-0.6 - 0.0)));
  CHECK(a[2] == doctest::Approx(30 * (0.0 - 0.05)));
  // the climb-rate and body-rate commands saturate
  a = StabilizeLaw(g, 3.0, 0.0, -1.0, 2.0, 0.0, 0.0);
  CHECK(a[0] == doctest::Approx(4 * 0.5));
  CHECK(a[1] == doctest::Approx(30 * 1.0));
  CHECK(a[2] == doctest::Approx(30 * -1.0));
}

TEST_CASE("A BlueROV rights itself and settles at the closed-form depth offset of a P loop") {
  auto sim = Simulation::LoadFile(test::ModelPath("bluerov/bluerov.xml"));
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  sim->Reset(-1);
  const int body = mj_name2id(m, mjOBJ_BODY, "rov");
  const int q = m->jnt_qposadr[m->body_jntadr[body]];
  StabilizeSpec spec;
  spec.body = "rov";
  spec.path = "/stabilize/0";
  spec.depth = 2.3;  // starts at 2 m: 0.3 m to descend
  // tilted 15 deg in roll and -10 deg in pitch (Z-Y-X)
  const Eigen::Quaterniond tilt = Eigen::AngleAxisd(-10 * M_PI / 180, Vec3::UnitY()) *
                                  Eigen::AngleAxisd(15 * M_PI / 180, Vec3::UnitX());
  d->qpos[q + 3] = tilt.w(); d->qpos[q + 4] = tilt.x(); d->qpos[q + 5] = tilt.y(); d->qpos[q + 6] = tilt.z();
  sim->Forward();
  Stabilize hold(*sim, spec, "test");
  CHECK(hold.thrusters().names == std::vector<std::string>{"thr3", "thr4", "thr5"});
  CHECK(hold.roll() == doctest::Approx(15 * M_PI / 180));
  CHECK(hold.pitch() == doctest::Approx(-10 * M_PI / 180));
  for (int k = 0; k < 6000; ++k) {  // 30 s
    hold.Update(m, d);
    sim->Step();
  }
  hold.Update(m, d);
  CHECK(std::abs(hold.roll()) < 1e-6);
  CHECK(std::abs(hold.pitch()) < 1e-6);
  // at rest the heave force balances the net weight: (m + Z_wdot) climb_p depth_p e = W - B
  const double W = 7.31 * 9.81, B = 1000 * 9.81 * 7.40e-3;
  const double e = (W - B) / ((7.31 + 13.3) * 4.0 * 1.0);
  CHECK(e == doctest::Approx(-0.010710).epsilon(1e-3).scale(0));
  CHECK(hold.height_reference() - d->xpos[3 * body + 2] == doctest::Approx(e).epsilon(1e-4).scale(0));
}

TEST_CASE("Scenario errors name the file, the JSON path and the value") {
  const std::string dir = (std::filesystem::path(NEREID_SOURCE_MODEL_DIR) / "bluerov").string();
  auto parse = [&](const std::string& stabilize) {
    return Scenario::FromString(R"({"model": "bluerov.xml", "stabilize": )" + stabilize + "}",
                                "s.json", dir);
  };
  CHECK_THROWS_WITH_AS(parse(R"([{"body": "rov", "gain": {}}])"),
                       doctest::Contains("s.json: /stabilize/0/gain: unknown key"), ConfigError);
  CHECK_THROWS_WITH_AS(parse(R"([{"body": "rov", "gains": {"rate_p": -1}}])"),
                       doctest::Contains("/stabilize/0/gains/rate_p: must be > 0 (got -1)"), ConfigError);
  CHECK_THROWS_WITH_AS(parse(R"([{"body": "rov"}, {"body": "rov"}])"),
                       doctest::Contains("/stabilize/1/body: a second hold for the same body"), ConfigError);
  CHECK_THROWS_WITH_AS(parse(R"({"body": "rov"})"), doctest::Contains("/stabilize: expected an array"),
                       ConfigError);
  std::string many = "[";
  for (int i = 0; i < 65; ++i) many += std::string(i ? "," : "") + R"({"body": "b)" + std::to_string(i) + "\"}";
  CHECK_THROWS_WITH_AS(parse(many + "]"), doctest::Contains("65 entries; at most 64"), ConfigError);
  CHECK_THROWS_WITH_AS(Scenario::FromString(R"({"model": "bluerov.xml", "constraints": "rigid"})", "s.json", dir),
                       doctest::Contains("/constraints: expected \"mujoco\" or \"uk\" (got \"rigid\")"),
                       ConfigError);
  // resolved against the model
  auto sim = Simulation::LoadFile(test::ModelPath("bluerov/bluerov.xml"));
  Scenario s = parse(R"([{"body": "rov", "thrusters": ["thr3", "nope"]}])");
  s.Apply(*sim);
  CHECK_THROWS_WITH_AS(s.MakeStabilizers(*sim),
                       doctest::Contains("s.json: /stabilize/0/thrusters/1: no nereid.thruster actuator named 'nope' on body 'rov'"),
                       ConfigError);
  Scenario w = parse(R"([{"body": "hull"}])");
  CHECK_THROWS_WITH_AS(w.MakeStabilizers(*sim), doctest::Contains("/stabilize/0/body: no body named 'hull'"),
                       ConfigError);
}

// Seed 000 section 4.2.1: with the autopilots on, each straight run settles at the speed
// where the four surge thrusters' eq. 12 thrust balances the quadratic surge drag of two
// ROVs and the connector: 4 (k n^2 - T_nu n u) = (2 X_uu,ROV + X_uu,connector) u^2.
TEST_CASE("Seed 000 straight runs: upright, and the steady speed of the thrust-drag balance") {
  for (const auto& [pwm, rpm] : {std::pair{1600, 1237.0}, {1700, 2129.0}, {1800, 2888.0}}) {
    for (ConstraintMethod method : {ConstraintMethod::kMuJoCo, ConstraintMethod::kUK}) {
      CAPTURE(pwm);
      CAPTURE(ToString(method));
      Scenario s = Scenario::FromFile(ScenarioPath("seed000/pair_pwm" + std::to_string(pwm) + ".json"));
      SimulationOptions options;
      options.integrator = s.integrator;
      options.timestep = s.dt;
      options.constraints = method;
      auto sim = Simulation::LoadFile(s.model, options);
      s.Apply(*sim);
      std::vector<Stabilize> holds = s.MakeStabilizers(*sim);
      REQUIRE(holds.size() == 2);
      const mjModel* m = sim->model();
      mjData* d = sim->data();
      const int connector = mj_name2id(m, mjOBJ_BODY, "connector");
      double max_tilt = 0;
      const long steps = std::lround(*s.duration / *s.dt);
      for (long k = 0; k < steps; ++k) {
        s.ApplyInputs(*sim, d->time);
        for (Stabilize& h : holds) h.Update(m, d);
        sim->Step();
        for (const Stabilize& h : holds) max_tilt = std::max({max_tilt, std::abs(h.roll()), std::abs(h.pitch())});
      }
      const Vec6 nu = BodyVelocity(m, d, connector);
      const double speed = (BodyRotation(d, connector) * nu.head<3>()).head<2>().norm();
      const double k_f = 4.09045e-06, t_nu = 60 * k_f / (0.076 * 0.9);  // the model's thrust_loss
      const double drag = 2 * 34.96 + 21.24;
      // drag u^2 + 4 T_nu n u - 4 k n^2 = 0
      const double b = 4 * t_nu * rpm, c = -4 * k_f * rpm * rpm;
      const double u = (-b + std::sqrt(b * b - 4 * drag * c)) / (2 * drag);
      // the thrust tilts with the assembly's small steady pitch (< 5 deg): within 1 %
      CHECK(speed == doctest::Approx(u).epsilon(0.01).scale(0));
      CHECK(max_tilt < 6 * M_PI / 180);
      CHECK(d->xpos[3 * connector + 2] == doctest::Approx(-2.0).epsilon(0.02).scale(0));
    }
  }
}

}  // TEST_SUITE

}  // namespace
}  // namespace nereid
