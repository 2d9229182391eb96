// Copyright Nereid authors.
// Surface waves carried by nereid.current (docs/waves.md): a body moving with the wave's
// water, the wave keys' refusals, and the waves kept when a scenario replaces the current.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <doctest/doctest.h>

#include "nereid/current.h"
#include "nereid/error.h"
#include "nereid/scenario.h"
#include "nereid/simulation.h"
#include "nereid/waves.h"
#include "test_util.h"

namespace nereid {
namespace {

std::string Waves(const std::string& keys) {
  return "    <plugin plugin='nereid.current'><instance name='current'>\n" + keys +
         "    </instance></plugin>\n";
}

std::string Key(const std::string& name, const std::string& value) {
  return "      <config key='" + name + "' value='" + value + "'/>\n";
}

std::string LoadError(const std::string& keys) {
  try {
    Simulation::LoadString(test::SingleBody(Waves(keys)), {}, "vehicle.xml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "the model loaded";
}

TEST_SUITE("wave_coupling") {

TEST_CASE("a neutrally buoyant sphere with added mass 0.5 rho V follows the orbit H/2 e^{kz}") {
  // (m + m_a) a = rho V a_f + m_a a_f with m = rho V (Froude-Krylov from nereid.buoyancy,
  // added mass from nereid.hydrodynamics) gives a = a_f: started with the water's velocity,
  // the sphere moves with the water. No damping: its velocity relative to the water stays
  // zero, so damping would not act. V = 0.0335 m^3 (radius 0.2 m) is written exactly in
  // the MJCF, so weight and buoyancy cancel exactly.
  const double rho = 1000, volume = 0.0335;
  const double radius = std::cbrt(3 * volume / (4 * std::numbers::pi));
  const double mass = rho * volume, added = 0.5 * rho * volume;
  const double H = 0.5, T = 4, z0 = -5;  // deep water (k h = infinity), H / L = 0.02
  const double omega = 2 * std::numbers::pi / T, k = omega * omega / waves::kGravity;
  const std::string a = std::to_string(added);
  const std::string inertia = std::to_string(0.4 * mass * radius * radius);
  auto sim = Simulation::LoadString(test::SingleBody(
      test::Hydro(a + " " + a + " " + a + " 0 0 0") + test::Buoyancy(volume, "0 0 0") +
          Waves(Key("wave_type", "regular") + Key("wave_height", std::to_string(H)) +
                Key("wave_period", std::to_string(T))),
      mass, inertia + " " + inertia + " " + inertia, true, "RK4", 0.01, "0.2 0.2 0.2"));
  mjData* d = sim->data();
  REQUIRE(d->qpos[2] == doctest::Approx(z0));
  // at x = 0, t = 0 (a crest) the water moves along +x at a w e^{kz}, w = 0
  d->qvel[0] = H / 2 * omega * std::exp(k * z0);
  sim->Forward();
  // with the convective terms the sphere follows a particle of the linear field exactly
  // (d/dt (v - u(x)) = 0), so it also drifts along x at Stokes' rate a^2 w k e^{2kz}:
  // take that out of x, fitted over the whole periods
  const double duration = 3 * T;
  const int steps = static_cast<int>(std::lround(duration / 0.01));
  std::vector<double> x(static_cast<size_t>(steps) + 1), z(x.size());
  x[0] = d->qpos[0], z[0] = d->qpos[2];
  double worst_spin = 0;
  for (int step = 1; step <= steps; ++step) {
    sim->Step();
    x[static_cast<size_t>(step)] = d->qpos[0], z[static_cast<size_t>(step)] = d->qpos[2];
    for (int i = 3; i < 6; ++i) worst_spin = std::max(worst_spin, std::abs(d->qvel[i]));
  }
  const double drift = (x.back() - x.front()) / duration;
  for (size_t i = 0; i < x.size(); ++i) x[i] -= drift * 0.01 * static_cast<double>(i);
  const auto [x_min, x_max] = std::minmax_element(x.begin(), x.end());
  const auto [z_min, z_max] = std::minmax_element(z.begin(), z.end());
  const double rx = (*x_max - *x_min) / 2, rz = (*z_max - *z_min) / 2;
  // the sphere starts under the crest, at the top of its orbit, so the orbit's centre z_c
  // is one radius lower; the radius is H/2 e^{k z_c} there (the start's e^{k z0} is 1.8 %
  // larger, a second-order difference)
  const double centre = (*z_max + *z_min) / 2;
  const double expected = H / 2 * std::exp(k * centre);
  const double stokes = H * H / 4 * omega * k * std::exp(2 * k * centre);
  MESSAGE("orbit radius expected " << expected << " m, horizontal " << rx << ", vertical " << rz
                                   << "; centre " << centre << " m (expected " << z0 - expected << "); drift "
                                   << drift << " m/s (Stokes " << stokes << ")");
  CHECK(rx == doctest::Approx(expected).epsilon(0.005).scale(0));
  CHECK(rz == doctest::Approx(expected).epsilon(0.005).scale(0));
  CHECK(std::abs(centre - (z0 - expected)) < 0.01 * expected);
  CHECK(drift == doctest::Approx(stokes).epsilon(0.05).scale(0));
  CHECK(worst_spin < 1e-9);  // no moment: the forces act at the centre
}

TEST_CASE("without wave_type the current carries no waves, and a scenario's current keeps them") {
  auto calm = Simulation::LoadString(test::SingleBody(test::Current("0.1 0 0")));
  REQUIRE(calm->current());
  CHECK(calm->current()->waves() == nullptr);
  auto wavy = Simulation::LoadString(test::SingleBody(
      Waves(Key("wave_type", "jonswap") + Key("wave_height", "0.3") + Key("wave_period", "4") +
            Key("wave_components", "16"))));
  REQUIRE(wavy->current()->waves());
  CHECK(wavy->current()->waves()->components().size() == 16);
  CHECK(wavy->current()->waves()->SignificantHeight() == doctest::Approx(0.3).epsilon(0.03).scale(0));
  wavy->SetCurrent(CurrentField::Constant(Vec3(0.2, 0, 0)));
  REQUIRE(wavy->current()->waves());
  const Vec3 p(1, 2, -1);
  const CurrentSample s = wavy->current()->Evaluate(0.7, p);
  const waves::Kinematics w = wavy->current()->waves()->At(p, 0.7);
  CHECK((s.velocity - Vec3(0.2, 0, 0) - w.velocity).norm() < 1e-15);
  CHECK((s.d_dt - w.acceleration).norm() < 1e-15);
  wavy->Reset();
  CHECK(wavy->current()->Evaluate(0.0, Vec3(0, 0, 0)).velocity.norm() > 0);  // waves still there
}

TEST_CASE("bad wave keys are refused, naming the key and the value") {
  const std::string regular = Key("wave_type", "regular");
  auto refused = [](const std::string& keys, const std::string& expected) {
    const std::string message = LoadError(keys);
    CAPTURE(message);
    CHECK(message.find(expected) != std::string::npos);
  };
  refused(regular + Key("wave_height", "0.5") + Key("wave_period", "0"),
          "key 'wave_period' = '0': the period must be > 0 s");
  refused(regular + Key("wave_height", "0.5") + Key("wave_period", "-3"), "key 'wave_period' = '-3'");
  // T = 2 s in deep water: L = 6.245 m, so H = 1 m is steeper than 1/7
  refused(regular + Key("wave_height", "1") + Key("wave_period", "2"), "key 'wave_height' = '1'");
  refused(regular + Key("wave_height", "-1") + Key("wave_period", "2"),
          "key 'wave_height' = '-1': the height must be > 0 m");
  const std::string sea = Key("wave_type", "jonswap") + Key("wave_height", "0.3") + Key("wave_period", "4");
  refused(sea + Key("wave_components", "0"), "key 'wave_components' = '0': expected an integer in 1..1024");
  refused(sea + Key("wave_components", "1025"), "key 'wave_components' = '1025'");
  refused(sea + Key("wave_components", "2.5"), "key 'wave_components' = '2.5'");
  refused(sea + Key("wave_gamma", "9"), "key 'wave_gamma' = '9': gamma must be in 1..7");
  refused(sea + Key("wave_spreading", "-1"), "key 'wave_spreading' = '-1'");
  refused(Key("wave_type", "pm") + Key("wave_height", "5") + Key("wave_period", "4"), "key 'wave_height' = '5'");
  refused(sea + Key("water_depth", "-2"), "key 'water_depth' = '-2': must be >= 0 m");
  refused(Key("wave_type", "tsunami"), "key 'wave_type' = 'tsunami': expected none, regular, jonswap or pm");
  refused(Key("wave_type", "regular") + Key("wave_period", "4"), "wave_height");
  refused(Key("wave_height", "0.5"), "key 'wave_height' = '0.5': a wave key needs wave_type");
  refused(regular + Key("wave_height", "0.5") + Key("wave_period", "4") + Key("wave_seed", "3"),
          "key 'wave_seed' = '3': applies to an irregular sea");
}

TEST_CASE("the velocity-only evaluation is the full evaluation's velocity, bit for bit") {
  waves::SeaState sea;
  sea.significant_height = 0.3;
  sea.peak_period = 4;
  sea.spreading = 10;
  for (const double depth : {0.0, 8.0}) {
    CurrentField field = CurrentField::DepthProfile({0, 10}, {Vec3(0.2, 0.1, 0), Vec3(0.05, 0, 0)});
    field.SetWaves(waves::WaveField::Irregular(sea, depth));
    for (const Vec3& p : {Vec3(0, 0, -1), Vec3(3.3, -7.1, -0.2), Vec3(-2, 5, 0.15), Vec3(1, 1, -20)}) {
      for (const double t : {0.0, 1.234, 77.7}) {
        const Vec3 full = field.Evaluate(t, p).velocity, fast = field.Velocity(t, p);
        CAPTURE(depth);
        CAPTURE(t);
        CHECK(full.x() == fast.x());
        CHECK(full.y() == fast.y());
        CHECK(full.z() == fast.z());
        CHECK(field.waves()->At(p, t).elevation == field.Elevation(t, p.x(), p.y()));
      }
    }
  }
}

// A floating box on a vertical slide joint (heave only): 1 x 1 m waterplane, 0.5 m high,
// mass 250 kg (draft d = 0.25 m: half the volume 0.5 m^3 submerged), heave added mass
// A33 = 150 kg, no damping. The body origin is the centre of the submerged part at rest
// (0.125 m below the surface), where the added-mass term and the centre of buoyancy take
// the water.
constexpr double kBoxMass = 250, kBoxAdded = 150, kBoxArea = 1, kBoxDraft = 0.25, kRho = 1000;

// surge: a horizontal slide joint 'surge' before the heave joint, held at a commanded
// speed by a stiff velocity actuator (kv 2e4 N s/m: the waves' horizontal force of about
// 150 N moves it by under 0.01 m/s)
std::string FloatingBox(const std::string& waves, bool surge = false) {
  return "<mujoco model='floating_box'>\n"
         "  <compiler inertiafromgeom='false'/>\n"
         "  <option timestep='0.005' integrator='RK4' gravity='0 0 -9.81'/>\n"
         "  <extension>\n" +
         Waves(waves) + test::Hydro("0 0 " + std::to_string(kBoxAdded) + " 0 0 0") +
         test::Buoyancy(0.5, "0 0 0") +
         "  </extension>\n"
         "  <worldbody>\n"
         "    <body name='b' pos='0 0 " + std::to_string(-kBoxDraft / 2) + "'>\n" +
         (surge ? "      <joint name='surge' type='slide' axis='1 0 0'/>\n" : "") +
         "      <joint name='heave' type='slide' axis='0 0 1'/>\n"
         "      <inertial pos='0 0 0' mass='" + std::to_string(kBoxMass) + "' diaginertia='30 30 40'/>\n"
         "      <geom type='box' pos='0 0 0.125' size='0.5 0.5 0.25' contype='0' conaffinity='0'/>\n"
         "    </body>\n"
         "  </worldbody>\n" +
         (surge ? "  <actuator><velocity joint='surge' kv='20000'/></actuator>\n" : "") +
         "</mujoco>\n";
}

TEST_CASE("a floating box heaves at its natural period and with the closed-form RAO in a regular wave") {
  const double g = waves::kGravity, C = kRho * g * kBoxArea, M = kBoxMass + kBoxAdded;
  // calm water: T_n = 2 pi sqrt((m + A33) / (rho g A_wp)) = 1.2687 s (the waterline force
  // rho g A_wp (eta - z_min) is exactly linear while the box pierces the surface)
  const double T_n = 2 * std::numbers::pi * std::sqrt(M / C);
  {
    auto sim = Simulation::LoadString(FloatingBox(""));
    mjData* d = sim->data();
    d->qpos[0] = 0.02;  // the slide joint's displacement from the rest position
    sim->Forward();
    std::vector<double> crossings;  // upward crossings of the rest position
    double previous = d->qpos[0];
    for (int step = 0; step < 2000; ++step) {  // 10 s, about 8 periods
      sim->Step();
      const double now = d->qpos[0];
      if (previous < 0 && now >= 0) crossings.push_back(d->time - 0.005 * now / (now - previous));
      previous = now;
    }
    REQUIRE(crossings.size() >= 6);
    const double period = (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
    MESSAGE("calm water: heave period " << period << " s, closed form " << T_n << " s");
    CHECK(period == doctest::Approx(T_n).epsilon(0.002).scale(0));
  }
  // a regular deep-water wave, H = 0.08 m, T = 1.6 s (H / L = 0.02): with eta = a cos wt at
  // the box, (m + A33) z'' + C z = C a cos wt - (m + A33) w^2 a e^{-k d/2} cos wt, so the
  // steady heave amplitude is |z / a| = |C - (m + A33) w^2 e^{-k d/2}| / |C - (m + A33) w^2|
  // (docs/waves.md "Floating box"). The response is that plus a free oscillation at w_n
  // (undamped) and a mean: all fitted by least squares over 20 s.
  const double H = 0.08, T = 1.6, a = H / 2;
  const double omega = 2 * std::numbers::pi / T, k = omega * omega / g, omega_n = 2 * std::numbers::pi / T_n;
  const double rao = std::abs(C - M * omega * omega * std::exp(-k * kBoxDraft / 2)) / std::abs(C - M * omega * omega);
  auto sim = Simulation::LoadString(
      FloatingBox(Key("wave_type", "regular") + Key("wave_height", std::to_string(H)) +
                      Key("wave_period", std::to_string(T))));
  mjData* d = sim->data();
  // started at the steady response's crest (eta = a at x = 0, t = 0), so that the free
  // oscillation stays small
  d->qpos[0] = a * (C - M * omega * omega * std::exp(-k * kBoxDraft / 2)) / (C - M * omega * omega);
  sim->Forward();
  const int n = 4000;
  Eigen::MatrixXd basis(n, 5);
  Eigen::VectorXd z(n);
  for (int i = 0; i < n; ++i) {
    sim->Step();
    const double t = d->time;
    basis.row(i) << std::cos(omega * t), std::sin(omega * t), std::cos(omega_n * t), std::sin(omega_n * t), 1;
    z[i] = d->qpos[0];
  }
  const Eigen::VectorXd fit = basis.colPivHouseholderQr().solve(z);
  const double amplitude = std::hypot(fit[0], fit[1]);
  const double residual = (basis * fit - z).cwiseAbs().maxCoeff();
  MESSAGE("regular wave: heave amplitude " << amplitude / a << " a, closed-form RAO " << rao
                                           << " (1 would be a box that follows the surface); fit residual "
                                           << residual << " m, mean " << fit[4] << " m");
  CHECK(amplitude / a == doctest::Approx(rao).epsilon(0.01).scale(0));
  CHECK(residual < 0.05 * a);
  CHECK(std::abs(fit[4]) < 0.05 * a);  // a second-order mean (0.013 a measured)
}

TEST_CASE("a floating box moving into the waves heaves at the encounter frequency with its RAO") {
  // the box of the case above held at U = 0.5 m/s against a regular deep-water wave
  // travelling along +x (H = 0.08 m, T = 2 s, H / L = 0.013): it meets the crests at
  // w_e = w + k U = 3.645 rad/s instead of w = 3.142. The Froude-Krylov force keeps the
  // water particle's acceleration w^2 a e^{-k d/2}, the added mass takes the water's rate
  // along the path, w w_e a e^{-k d/2} (docs/waves.md "Encounter frequency"):
  // |z / a| = |C - (m w^2 + A33 w w_e) e^{-k d/2}| / |C - (m + A33) w_e^2| = 1.361
  const double g = waves::kGravity, C = kRho * g * kBoxArea, M = kBoxMass + kBoxAdded;
  const double H = 0.08, T = 2.0, a = H / 2, U = 0.5;
  const double omega = 2 * std::numbers::pi / T, k = omega * omega / g, omega_e = omega + k * U;
  const double omega_n = std::sqrt(C / M), decay = std::exp(-k * kBoxDraft / 2);
  const double signed_rao = (C - (kBoxMass * omega * omega + kBoxAdded * omega * omega_e) * decay) / (C - M * omega_e * omega_e);
  // what the other readings would give: everything at w_e (the stationary formula at the
  // encounter frequency), and no encounter at all
  const double rao_all_e = std::abs(C - M * omega_e * omega_e * decay) / std::abs(C - M * omega_e * omega_e);
  auto sim = Simulation::LoadString(FloatingBox(Key("wave_type", "regular") + Key("wave_height", std::to_string(H)) +
                                                    Key("wave_period", std::to_string(T)),
                                                true));
  mjData* d = sim->data();
  d->ctrl[0] = -U;
  d->qvel[0] = -U;
  d->qpos[1] = a * signed_rao;  // the steady response's crest at t = 0 (x = 0: eta = a)
  sim->Forward();
  const int n = 4000;  // 20 s, 11.6 encounter periods
  Eigen::MatrixXd basis(n, 5);
  Eigen::VectorXd z(n);
  double worst_speed = 0;
  for (int i = 0; i < n; ++i) {
    sim->Step();
    const double t = d->time;
    basis.row(i) << std::cos(omega_e * t), std::sin(omega_e * t), std::cos(omega_n * t), std::sin(omega_n * t), 1;
    z[i] = d->qpos[1];
    worst_speed = std::max(worst_speed, std::abs(d->qvel[0] + U));
  }
  const Eigen::VectorXd fit = basis.colPivHouseholderQr().solve(z);
  const double amplitude = std::hypot(fit[0], fit[1]);
  const double residual = (basis * fit - z).cwiseAbs().maxCoeff();
  // the same record fitted at w instead of w_e leaves most of it unexplained
  Eigen::MatrixXd at_omega = basis;
  for (int i = 0; i < n; ++i) {
    const double t = 0.005 * (i + 1);
    at_omega(i, 0) = std::cos(omega * t);
    at_omega(i, 1) = std::sin(omega * t);
  }
  const double residual_omega = (at_omega * at_omega.colPivHouseholderQr().solve(z) - z).cwiseAbs().maxCoeff();
  MESSAGE("moving box: heave amplitude " << amplitude / a << " a at w_e " << omega_e << " rad/s, closed form "
                                         << std::abs(signed_rao) << " (all at w_e: " << rao_all_e
                                         << "); fit residual " << residual << " m (at w: " << residual_omega
                                         << " m); speed error " << worst_speed << " m/s");
  CHECK(worst_speed < 0.01 * U);
  CHECK(amplitude / a == doctest::Approx(std::abs(signed_rao)).epsilon(0.01).scale(0));
  CHECK(std::abs(amplitude / a - rao_all_e) > 0.1);  // the test tells the two readings apart
  CHECK(residual < 0.05 * a);
  CHECK(residual_omega > 0.5 * a);
}

// A scenario with the given "waves" object (and more top-level keys), applied to `sim`;
// the ConfigError's message, or "" if it was accepted.
std::string ScenarioError(const std::string& waves, Simulation* sim = nullptr, const std::string& more = "") {
  try {
    Scenario s = Scenario::FromString(R"({"model": "vehicle.xml", "waves": )" + waves + more + "}", "case.json", "");
    if (sim) s.Apply(*sim);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("a scenario's waves object sets the model's waves by the plugin's keys and rules") {
  // every key given both ways: the same sea, component for component (one code path)
  const std::string keys = Key("wave_type", "jonswap") + Key("wave_height", "0.3") + Key("wave_period", "4") +
                           Key("wave_direction", "0.5") + Key("water_depth", "30") + Key("wave_gamma", "2.5") +
                           Key("wave_spreading", "10") + Key("wave_components", "32") + Key("wave_seed", "7");
  auto model = Simulation::LoadString(test::SingleBody(Waves(keys)));
  auto sim = Simulation::LoadString(test::SingleBody(test::Current("0.1 0 0")));
  REQUIRE(sim->current()->waves() == nullptr);
  CHECK(ScenarioError(R"({"wave_type": "jonswap", "wave_height": 0.3, "wave_period": 4, "wave_direction": 0.5,
                          "water_depth": 30, "wave_gamma": 2.5, "wave_spreading": 10, "wave_components": 32,
                          "wave_seed": 7})",
                      sim.get()) == "");
  REQUIRE(sim->current()->waves());
  const auto& a = model->current()->waves()->components();
  const auto& b = sim->current()->waves()->components();
  REQUIRE(a.size() == 32);
  REQUIRE(b.size() == a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].amplitude == b[i].amplitude);
    CHECK(a[i].omega == b[i].omega);
    CHECK(a[i].k == b[i].k);
    CHECK(a[i].direction == b[i].direction);
    CHECK(a[i].phase == b[i].phase);
  }
  CHECK(sim->current()->waves()->depth() == 30);
  // the steady current stays the model's; the surface is the waves' elevation
  CHECK(sim->current()->Evaluate(0.0, -100.0).velocity.x() == 0.1);
  const double eta = sim->current()->waves()->Elevation(1.5, -2, sim->data()->time);
  CHECK(eta != 0);
  CHECK(sim->SurfaceElevation(1.5, -2) == eta);
  CHECK(sim->current()->Elevation(sim->data()->time, 1.5, -2) == eta);
  // wave_type none takes the model's waves away
  CHECK(ScenarioError(R"({"wave_type": "none"})", model.get()) == "");
  CHECK(model->current()->waves() == nullptr);
  CHECK(model->SurfaceElevation(1.5, -2) == 0);
}

TEST_CASE("bad scenario waves are refused, naming the scenario, the key and the value") {
  auto refused = [](const std::string& waves, const std::string& expected, const std::string& more = "") {
    const std::string message = ScenarioError(waves, nullptr, more);
    CAPTURE(message);
    CHECK(message.find(expected) != std::string::npos);
  };
  refused(R"({"wave_type": "regular", "wave_height": 0.5, "wave_period": 0})",
          "case.json: /waves/wave_period: the period must be > 0 s (got 0)");
  refused(R"({"wave_type": "regular", "wave_height": 0.5, "wave_period": -3})", "/waves/wave_period: ");
  // T = 2 s in deep water: L = 6.245 m, so H = 1 m is steeper than 1/7: refused
  refused(R"({"wave_type": "regular", "wave_height": 1, "wave_period": 2})",
          "/waves/wave_height: the wave breaks: H / L = 1 / 6.24");
  refused(R"({"wave_type": "pm", "wave_height": 5, "wave_period": 4})", "/waves/wave_height: the sea breaks");
  const std::string sea = R"({"wave_type": "jonswap", "wave_height": 0.3, "wave_period": 4, )";
  refused(sea + R"("wave_components": 0})", "/waves/wave_components: expected an integer in 1..1024 (got 0)");
  refused(sea + R"("wave_components": 1025})", "/waves/wave_components: expected an integer in 1..1024 (got 1025)");
  refused(sea + R"("wave_components": 2.5})", "(got 2.5)");
  refused(sea + R"("wave_gamma": 9})", "/waves/wave_gamma: gamma must be in 1..7 (JONSWAP's peak enhancement; 3.3 the mean of the North Sea data) (got 9)");
  refused(sea + R"("wave_spreading": 101})", "/waves/wave_spreading: the spreading exponent s must be in 0..100");
  refused(sea + R"("water_depth": -2})", "/waves/water_depth: must be >= 0 m (0: deep water) (got -2)");
  refused(sea + R"("wave_period": "4"})", "/waves/wave_period: expected a number");
  refused(R"({"wave_type": "tsunami"})", "/waves/wave_type: expected none, regular, jonswap or pm (got \"tsunami\")");
  refused(R"({"wave_type": "regular", "wave_period": 4})", "/waves/wave_height: missing required key");
  refused(R"({"wave_height": 0.5})", "/waves/wave_height: a wave key needs wave_type");
  refused(R"({"wave_type": "regular", "wave_height": 0.5, "wave_period": 4, "wave_seed": 3})",
          "/waves/wave_seed: applies to an irregular sea");
  refused(R"({"wave_type": "regular", "wave_hight": 0.5})", "/waves/wave_hight: unknown key; did you mean 'wave_height'?");
  // the waves' water depth is not shallower than the scene's seabed or terrain
  refused(sea + R"("water_depth": 10})",
          "/waves/water_depth: the waves' water depth 10 m is shallower than scene.seabed_depth (20 m)",
          R"(, "scene": {"seabed_depth": 20, "solid": false})");
  refused(sea + R"("water_depth": 5})", "/waves/water_depth: the waves' water depth 5 m is shallower than "
          "scene.terrain's deepest sample (6 m)",
          R"(, "scene": {"terrain": {"file": "seabed.png", "size": [10, 10], "depth": [6, 3]}})");
  CHECK(ScenarioError(sea + R"("water_depth": 20})", nullptr, R"(, "scene": {"seabed_depth": 20})") == "");
  CHECK(ScenarioError(sea + R"("water_depth": 0})", nullptr, R"(, "scene": {"seabed_depth": 20})") == "");
  // a model without nereid.current cannot carry them
  auto bare = Simulation::LoadString(test::SingleBody(""));
  const std::string message = ScenarioError(R"({"wave_type": "regular", "wave_height": 0.5, "wave_period": 4})", bare.get());
  CAPTURE(message);
  CHECK(message.find("case.json: /waves: the model") != std::string::npos);
  CHECK(message.find("has no nereid.current instance") != std::string::npos);
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
