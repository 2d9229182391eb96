// Copyright Nereid authors.
// nereid.thruster and thrust allocation: maps, lag, inflow loss, saturation, errors.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Eigenvalues>
#include <doctest/doctest.h>

#include "nereid/allocation.h"
#include "nereid/error.h"
#include "nereid/simulation.h"
#include "test_util.h"

namespace nereid {
namespace {

// BlueROV hull (seed 000 Table 3) with two surge thrusters in the plane of the CG
std::string SurgeVehicle(const std::string& thruster_config, const std::string& actuator_extra = "",
                         const std::string& integrator = "RK4", double dt = 0.005,
                         const std::string& joint = "<freejoint/>") {
  return "<mujoco>\n"
         "  <compiler inertiafromgeom='false'/>\n"
         "  <option timestep='" + std::to_string(dt) + "' integrator='" + integrator + "' gravity='0 0 0'/>\n"
         "  <extension>\n" +
         test::Hydro("2.6 18.5 13.3 0.054 0.0173 0.28", "0 0.26 0.19 0.895 0.287 4.64",
                     "34.96 103.25 74.23 0.084 0.028 0.43") +
         test::Current() +
         "    <plugin plugin='nereid.thruster'><instance name='t'>\n" + thruster_config +
         "    </instance></plugin>\n"
         "  </extension>\n"
         "  <worldbody>\n"
         "    <body name='b' pos='0 0 -5'>\n"
         "      " + joint + "\n"
         "      <inertial pos='0 0 0' mass='7.31' diaginertia='0.1 0.16 0.16'/>\n"
         "      <geom type='box' size='0.2 0.15 0.1' contype='0' conaffinity='0'/>\n"
         "      <site name='s1' pos='-0.12 -0.115 0' zaxis='1 0 0'/>\n"
         "      <site name='s2' pos='-0.12 0.115 0' zaxis='1 0 0'/>\n"
         "    </body>\n"
         "  </worldbody>\n"
         "  <actuator>\n"
         "    <plugin name='t1' instance='t' site='s1' gear='0 0 1 0 0 0'" + actuator_extra + "/>\n"
         "    <plugin name='t2' instance='t' site='s2' gear='0 0 1 0 0 0'" + actuator_extra + "/>\n"
         "  </actuator>\n"
         "</mujoco>\n";
}

const char kThrustInput[] =
    "      <config key='input' value='thrust'/>\n"
    "      <config key='thrust_coefficient' value='4.09045e-06 3.25940e-06'/>\n";

TEST_SUITE("thrusters") {

TEST_CASE("Raybot allocation matrix equals seed 002 eq. 3.26 (FRD rows X Y Z K M N)") {
  auto sim = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"));
  const ThrusterSet set = FindThrusters(sim->model(), mj_name2id(sim->model(), mjOBJ_BODY, "raybot"));
  REQUIRE(set.actuators.size() == 8);
  Eigen::Matrix<double, 6, 8> expected;
  expected << 1, 1, 1, 1, 0, 0, 0, 0,
              0, 0, 0, 0, 1, 1, 0, 0,
              0, 0, 0, 0, 0, 0, 1, 1,
              0, 0, 0, 0, -0.20, 0.20, 0.51, -0.51,
              0.20, 0.20, -0.20, -0.20, 0, 0, 0, 0,
              0.51, -0.51, -0.51, 0.51, 0, 0, 0, 0;
  const double error = (set.B_frd() - expected).cwiseAbs().maxCoeff();
  MESSAGE("max |B_frd - eq. 3.26| = " << error);
  CHECK(error <= 1e-9);
  CHECK(set.thrust_min[0] == -28);
  CHECK(set.thrust_max[0] == 36);
}

// The hull moves in surge only (a slide joint): free, it pitches away, because the Munk
// moment (Z_wdot - X_udot) u^2 = 6.1 N m/rad at 0.76 m/s exceeds the pitch damping and,
// without gravity, nothing restores it (seed 000's BlueROV needs BG > 0.085 m for that).
TEST_CASE("BlueROV steady surge speed with two thrusters at T: 2T = X_u u + X_uu u|u|") {
  auto sim = Simulation::LoadString(
      SurgeVehicle(kThrustInput, "", "RK4", 0.005, "<joint name='surge' type='slide' axis='1 0 0'/>"));
  mjData* d = sim->data();
  const double T = 10;
  d->ctrl[0] = d->ctrl[1] = T;
  for (int k = 0; k < 12000; ++k) sim->Step();  // 60 s
  // X_u = 0 (seed 000 Table 3): u = sqrt(2T / X_uu)
  const double expected = std::sqrt(2 * T / 34.96);
  MESSAGE("steady surge " << d->qvel[0] << " m/s, closed form " << expected);
  CHECK(std::abs(d->qvel[0] - expected) / expected <= 1e-4);
  CHECK(d->actuator_force[0] == doctest::Approx(T).epsilon(1e-12));
}

TEST_CASE("thrust loss with advance speed follows seed 000 eq. 12") {
  const double k = 4e-6, T_nu = 2e-3, n = 2500;
  auto sim = Simulation::LoadString(SurgeVehicle(
      "      <config key='input' value='rpm'/>\n"
      "      <config key='thrust_coefficient' value='4e-06 3e-06'/>\n"
      "      <config key='thrust_loss' value='0.002'/>\n"));
  mjData* d = sim->data();
  for (double u : {0.0, 0.3, 0.8, -0.4}) {
    for (double current : {0.0, 0.25}) {
      d->ctrl[0] = d->ctrl[1] = n;
      d->qvel[0] = u;
      sim->SetCurrent(CurrentField::Constant(Vec3(current, 0, 0)));
      sim->Forward();
      const double u_a = u - current;  // water speed through the propeller along the thrust axis
      const double expected = k * n * n - T_nu * n * u_a;
      CHECK(d->actuator_force[0] == doctest::Approx(expected).epsilon(1e-12));
    }
  }
}

TEST_CASE("motor lag: the 63% rise time of the shaft speed equals the time constant (2%)") {
  const double tau = 0.1, n_cmd = 1000;
  auto sim = Simulation::LoadString(SurgeVehicle(
      "      <config key='input' value='rpm'/>\n"
      "      <config key='thrust_coefficient' value='4e-06 3e-06'/>\n"
      "      <config key='time_constant' value='0.1'/>\n",
      " actdim='1'", "Euler", 0.0005));
  mjData* d = sim->data();
  d->ctrl[0] = d->ctrl[1] = n_cmd;
  double rise = -1;
  for (int k = 0; k < 2000 && rise < 0; ++k) {
    const double before = d->act[0];
    sim->Step();
    if (before < 0.632 * n_cmd && d->act[0] >= 0.632 * n_cmd) {
      rise = d->time - sim->model()->opt.timestep * (d->act[0] - 0.632 * n_cmd) / (d->act[0] - before);
    }
  }
  MESSAGE("63% rise time " << rise << " s for a time constant of " << tau << " s");
  CHECK(std::abs(rise - tau) <= 0.02 * tau);
  // the thrust follows the shaft speed: T = k n |n|
  sim->Forward();
  CHECK(d->actuator_force[0] == doctest::Approx(4e-6 * d->act[0] * d->act[0]).epsilon(1e-12));
}

TEST_CASE("saturation, dead band, and the PWM map's neutral") {
  ThrusterModel pwm;
  pwm.input = ThrusterInput::kPwm;
  pwm.map_command = {1100, 1472, 1528, 1900};
  pwm.map_rpm = {-3465, 0, 0, 3533};
  pwm.k_forward = 4.09045e-06;
  pwm.k_reverse = 3.25940e-06;
  pwm.thrust_min = -39.91;
  pwm.thrust_max = 40;  // below the map's full-throttle thrust
  pwm.Validate("test");
  CHECK(pwm.ShaftSpeed(1500) == 0);                // inside the table's dead band
  CHECK(pwm.ShaftSpeed(std::nan("")) == 0);        // no pulse
  CHECK(pwm.Thrust(pwm.ShaftSpeed(1900), 0) == 40);  // saturated
  CHECK(pwm.CommandForThrust(0) == 1500);          // the ESC's neutral
  for (double T : {-30.0, -5.0, 0.5, 12.0, 39.0}) {
    CAPTURE(T);
    CHECK(pwm.Thrust(pwm.ShaftSpeed(pwm.CommandForThrust(T)), 0) == doctest::Approx(T).epsilon(1e-9));
  }
  ThrusterModel band;
  band.input = ThrusterInput::kNormalized;
  band.k_forward = band.k_reverse = 1e-5;
  band.thrust_min = -20;
  band.thrust_max = 30;
  band.dead_band = std::make_pair(-0.05, 0.05);
  band.Validate("test");
  CHECK(band.ShaftSpeed(0.04) == 0);
  CHECK(band.Thrust(band.ShaftSpeed(1.0), 0) == doctest::Approx(30));
  CHECK(band.Thrust(band.ShaftSpeed(-0.5), 0) == doctest::Approx(-10));
}

TEST_CASE("thruster bad input names the instance, key and value") {
  auto error = [](const std::string& config, const std::string& extra = "", bool joint = false) {
    std::string xml = SurgeVehicle(config, extra);
    if (joint) {
      xml.replace(xml.find("site='s1'"), 9, "joint='free'");
      xml.replace(xml.find("<freejoint/>"), 12, "<freejoint name='free'/>");
    }
    try {
      Simulation::LoadString(xml, {}, "vehicle.xml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  CHECK(error("      <config key='input' value='volts'/>\n      <config key='thrust_coefficient' value='1e-6 1e-6'/>\n")
            .find("nereid.thruster instance 't': key 'input' = 'volts': expected 'normalized', 'pwm', 'rpm' or 'thrust'") !=
        std::string::npos);
  CHECK(error(std::string(kThrustInput) + "      <config key='thrust_limits' value='10 -10'/>\n")
            .find("key 'thrust_limits': min > max (10 > -10)") != std::string::npos);
  CHECK(error("      <config key='input' value='pwm'/>\n"
              "      <config key='thrust_coefficient' value='1e-6 1e-6'/>\n"
              "      <config key='command_map' value='1100 -3000 1500 0 1400 100 1900 3000'/>\n")
            .find("key 'command_map': commands must be strictly increasing (1500 then 1400)") != std::string::npos);
  CHECK(error("      <config key='input' value='thrust'/>\n").find("give exactly one of 'thrust_coefficient'") !=
        std::string::npos);
  CHECK(error("      <config key='thrust_coefficient' value='1e-6 1e-6'/>\n").find("missing required key 'input'") !=
        std::string::npos);
  CHECK(error(kThrustInput, "", true).find("actuator 't1' must act on a site") != std::string::npos);
  CHECK(error(std::string(kThrustInput) + "      <config key='time_constant' value='0.1'/>\n")
            .find("actuator 't1' has actdim=\"0\"; it needs actdim=\"1\"") != std::string::npos);
}

// MuJoCo 3.14 gives an actuator 0, 1 or several controls and force outputs: an
// orientation servo takes 3 controls and has 3 outputs, a <pid input="pos vel ff"> takes 3
// controls, a <dcmotor input="none"> none. Declared before the Heavy's thrusters, they
// make thruster j actuator 3 + j, with control 6 + j and force output 5 + j: what reads
// or writes a thruster's control, gear or force must use actuator_ctrladr and
// actuator_outadr, not the actuator's index.
std::string HeavyAfterMultiControlActuators() {
  return test::BehindMultiControlActuators(test::ModelPath("bluerov2_heavy/bluerov2_heavy.xml"), "heavy_multi_control");
}
// The options that load it: the Heavy's keyframe (sized for its own qpos and 8 controls) left out
SimulationOptions WithoutKeyframes(SimulationOptions options = {}) {
  options.edit = [](mjSpec* spec) {
    while (mjsElement* key = mjs_firstElement(spec, mjOBJ_KEY)) mjs_delete(spec, key);
  };
  return options;
}

TEST_CASE("thrusters after actuators with 0 or several controls read and get their own controls") {
  for (const Integrator integrator : {Integrator::kEuler, Integrator::kRK4}) {
    SimulationOptions options;
    options.integrator = integrator;
    auto heavy = Simulation::LoadFile(test::ModelPath("bluerov2_heavy/bluerov2_heavy.xml"), options);
    auto multi = Simulation::LoadString(HeavyAfterMultiControlActuators(), WithoutKeyframes(options), "heavy_multi_control");
    const mjModel* m = multi->model();
    REQUIRE(m->nactuator == 11);
    REQUIRE(m->nu == 14);
    REQUIRE(m->nout == 13);
    const int vehicle = mj_name2id(m, mjOBJ_BODY, "heavy");
    const ThrusterSet set = FindThrusters(m, vehicle);
    const ThrusterSet reference = FindThrusters(heavy->model(), mj_name2id(heavy->model(), mjOBJ_BODY, "heavy"));
    REQUIRE(set.actuators.size() == 8);
    CHECK(set.actuators.front() == 3);
    CHECK(set.controls.front() == 6);
    CHECK(set.outputs.front() == 5);
    CHECK((set.B - reference.B).cwiseAbs().maxCoeff() == 0);
    // SetCommands writes each thruster's control and leaves the servos' six alone
    Eigen::VectorXd thrust(8);
    thrust << 10, -5, 8, 3, -12, 6, -2, 15;
    mju_zero(multi->data()->ctrl, static_cast<int>(m->nu));
    set.SetCommands(m, multi->data(), thrust);
    for (int k = 0; k < 6; ++k) CHECK(multi->data()->ctrl[k] == 0);
    for (int j = 0; j < 8; ++j) CHECK(multi->data()->ctrl[6 + j] == set.CommandFor(j, thrust[j]));
    reference.SetCommands(heavy->model(), heavy->data(), thrust);
    // the vehicle moves as the Heavy alone under the same commands (the arm is another
    // tree, without contacts; so is the float), with either integrator
    for (int step = 0; step < 200; ++step) {
      REQUIRE(heavy->TryStep());
      REQUIRE(multi->TryStep());
    }
    for (int j = 0; j < 8; ++j) {
      CHECK(multi->data()->actuator_force[set.outputs[static_cast<size_t>(j)]] ==
            doctest::Approx(heavy->data()->actuator_force[reference.outputs[static_cast<size_t>(j)]]).epsilon(1e-12));
    }
    const mjtNum* p = multi->data()->xpos + 3 * vehicle;
    const mjtNum* q = heavy->data()->xpos + 3 * mj_name2id(heavy->model(), mjOBJ_BODY, "heavy");
    MESSAGE("vehicle displaced by " << mju_dist3(q, heavy->model()->body_pos + 3) << " m in 1 s");
    CHECK(mju_dist3(q, heavy->model()->body_pos + 3) > 0.05);  // it moved
    CHECK(mju_dist3(p, q) <= 1e-12);
  }
}

TEST_CASE("a non-finite control is named by its actuator, also past actuators with 0 or several controls") {
  auto multi = Simulation::LoadString(HeavyAfterMultiControlActuators(), WithoutKeyframes(), "heavy_multi_control");
  const mjModel* m = multi->model();
  std::vector<mjtNum> ctrl(static_cast<size_t>(m->nu), 0.0);
  ctrl[4] = std::nan("");
  CHECK_THROWS_WITH_AS(CheckControls(m, ctrl.data(), "data.ctrl"),
                       "data.ctrl: actuator 'arm_pid' (index 1, its control 2 of 3) is nan; controls must be finite "
                       "and within +-1e10 (MuJoCo would zero every control with only a warning)",
                       ConfigError);
  ctrl[4] = 0;
  ctrl[2] = std::nan("");
  CHECK_THROWS_WITH_AS(CheckControls(m, ctrl.data(), "data.ctrl"),
                       doctest::Contains("data.ctrl: actuator 'gimbal' (index 0, its control 3 of 3) is nan"), ConfigError);
  ctrl[2] = 0;
  ctrl[6] = INFINITY;  // thruster 1: actuator 3 (the dcmotor, index 2, has no control)
  CHECK_THROWS_WITH_AS(CheckControls(m, ctrl.data(), "data.ctrl"), doctest::Contains("data.ctrl: actuator 'thr1' (index 3) is inf"),
                       ConfigError);
  ctrl[6] = 0;
  ctrl[13] = -1e11;
  CHECK_THROWS_WITH_AS(CheckControls(m, ctrl.data(), "data.ctrl"), doctest::Contains("data.ctrl: actuator 'thr8' (index 10) is -1e+11"),
                       ConfigError);
}

TEST_CASE("ThrusterSet::CommandFor equals ThrusterModel::CommandForThrust bit for bit") {
  // the set keeps each thruster's ThrustRange; the command must not depend on where the
  // range came from, over the range, its ends, beyond them, at 0 and +-0
  for (const auto& [file, body] : {std::pair{"bluerov2_heavy/bluerov2_heavy.xml", "heavy"}, std::pair{"raybot/raybot.xml", "raybot"}}) {
    auto sim = Simulation::LoadFile(test::ModelPath(file));
    const ThrusterSet set = FindThrusters(sim->model(), mj_name2id(sim->model(), mjOBJ_BODY, body));
    REQUIRE(set.actuators.size() == 8);
    int compared = 0;
    for (int j = 0; j < 8; ++j) {
      const double lo = set.thrust_min[j], hi = set.thrust_max[j];
      for (int k = -2200; k <= 2200; ++k) {
        const double thrust = k <= -2100 ? lo * (1 + (-2100 - k) * 1e-3)
                              : k >= 2100 ? hi * (1 + (k - 2100) * 1e-3)
                                          : (k < 0 ? -lo : hi) * k / 2100.0;
        for (const double t : {thrust, std::nextafter(thrust, 0.0), -0.0}) {
          const double a = set.CommandFor(j, t), b = set.models[static_cast<size_t>(j)].CommandForThrust(t);
          if (std::memcmp(&a, &b, sizeof a) != 0) FAIL_CHECK(file << " thruster " << j << " thrust " << t << ": " << a << " != " << b);
          ++compared;
        }
      }
    }
    CHECK(compared == 8 * 4401 * 3);
  }
}

TEST_CASE("allocation: exact where feasible, optimal under saturation") {
  auto sim = Simulation::LoadFile(test::ModelPath("bluerov2_heavy/bluerov2_heavy.xml"));
  const ThrusterSet set = FindThrusters(sim->model(), mj_name2id(sim->model(), mjOBJ_BODY, "heavy"));
  REQUIRE(set.actuators.size() == 8);
  // feasible: B u = tau, and u is the minimum-norm solution (the pseudo-inverse's: B has
  // full row rank, so B⁺ tau = Bᵀ (B Bᵀ)⁻¹ tau)
  Vec6 tau;
  tau << 10, -5, 8, 0.3, -0.2, 1.0;
  const Eigen::VectorXd u = Allocate(set.B, tau, set.thrust_min, set.thrust_max);
  CHECK((set.B * u - tau).norm() <= 1e-6 * tau.norm());
  const Mat6 BBt = set.B * set.B.transpose();
  const Eigen::VectorXd pinv = set.B.transpose() * BBt.llt().solve(tau);
  CHECK((u - pinv).norm() <= 1e-6 * pinv.norm());
  // infeasible: the bounds hold and no feasible direction improves the fit (projected
  // gradient at the solution vanishes), compared with a long projected-gradient run
  Vec6 big;
  big << 400, 0, 0, 0, 0, 30;
  const Eigen::VectorXd s = Allocate(set.B, big, set.thrust_min, set.thrust_max);
  for (Eigen::Index j = 0; j < s.size(); ++j) {
    CHECK(s[j] >= set.thrust_min[j] - 1e-12);
    CHECK(s[j] <= set.thrust_max[j] + 1e-12);
  }
  Eigen::VectorXd p = Eigen::VectorXd::Zero(8);
  const Eigen::MatrixXd H = set.B.transpose() * set.B;
  const double step =
      1.0 / Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(H, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
  for (int k = 0; k < 200000; ++k) {
    p -= step * (H * p - set.B.transpose() * big);
    p = p.cwiseMax(set.thrust_min).cwiseMin(set.thrust_max);
  }
  const double fit_s = (set.B * s - big).squaredNorm(), fit_p = (set.B * p - big).squaredNorm();
  MESSAGE("saturated fit: active set " << fit_s << ", projected gradient " << fit_p);
  CHECK(fit_s <= fit_p * (1 + 1e-9) + 1e-9);
  // and the commands reproduce the thrusts through the T200 map
  set.SetCommands(sim->model(), sim->data(), s);
  sim->Forward();
  for (size_t j = 0; j < set.actuators.size(); ++j) {
    CHECK(sim->data()->actuator_force[set.outputs[j]] ==
          doctest::Approx(s[static_cast<Eigen::Index>(j)]).epsilon(1e-9));
  }
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
