// Copyright Nereid authors.
// The marine sensors (plugins/pressure, imu, dvl, acoustic, altimeter, marker; physics/sensors.cc):
// exact sensors equal the truth (closed forms, MuJoCo's own accelerometer and gyro, the
// geometric distance to a plane), the noise has the configured statistics (seeded, with
// stated tolerances), runs are bitwise reproducible, and bad input is a ConfigError.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "nereid/error.h"
#include "nereid/plugins.h"
#include "nereid/sensors.h"
#include "nereid/simulation.h"
#include "test_util.h"

namespace nereid {
namespace {

using sensors::AllanDeviation;

constexpr double kDeg = std::numbers::pi / 180;

// Sets NEREID_EXACT_SENSORS for the scope (exact readings), or clears it.
struct ExactSensors {
  explicit ExactSensors(bool on) {
    if (on) {
      setenv("NEREID_EXACT_SENSORS", "1", 1);
    } else {
      unsetenv("NEREID_EXACT_SENSORS");
    }
  }
  ~ExactSensors() { unsetenv("NEREID_EXACT_SENSORS"); }
};

// One free body "rov" at (0, 0, -5) with sites "imu" (lever arm 0.2 0.1 -0.05) and
// "dvl" (0.1 -0.05 -0.1, looking down, turned 30 deg about its boresight); a seabed plane
// at z = -20; the given plugin instances and sensor elements.
std::string Model(const std::string& instances, const std::string& sensor_elements, double timestep = 0.005,
                  bool gravity = true, const std::string& more_bodies = "") {
  return "<mujoco model='sensors'>\n"
         "  <option timestep='" + std::to_string(timestep) + "' gravity='0 0 " + (gravity ? "-9.81" : "0") +
         "'/>\n"
         "  <extension>\n" + instances + "  </extension>\n"
         "  <worldbody>\n"
         "    <geom name='seabed' type='plane' size='100 100 1' pos='0 0 -20'/>\n"
         "    <body name='rov' pos='0 0 -5'>\n"
         "      <freejoint/>\n"
         "      <geom type='box' size='0.2 0.15 0.1' density='1000' contype='0' conaffinity='0'/>\n"
         "      <site name='imu' pos='0.2 0.1 -0.05' euler='5 -3 10'/>\n"
         "      <site name='dvl' pos='0.1 -0.05 -0.1' euler='180 0 30'/>\n"
         "    </body>\n" + more_bodies +
         "  </worldbody>\n"
         "  <sensor>\n" + sensor_elements + "  </sensor>\n"
         "</mujoco>\n";
}

std::string Instance(const std::string& plugin, const std::string& name, const std::string& site,
                     const std::string& config = "") {
  return "    <plugin plugin='nereid." + plugin + "'><instance name='" + name + "'>\n" +
         "      <config key='site' value='" + site + "'/>\n" + config + "    </instance></plugin>\n";
}
std::string Config(const std::string& key, const std::string& value) {
  return "      <config key='" + key + "' value='" + value + "'/>\n";
}
std::string Element(const std::string& name, const std::string& attributes = "") {
  return "    <plugin name='" + name + "' instance='" + name + "' " + attributes + "/>\n";
}

std::vector<double> Reading(const Simulation& sim, const char* name) {
  const mjModel* m = sim.model();
  const int id = mj_name2id(m, mjOBJ_SENSOR, name);
  REQUIRE(id >= 0);
  const mjtNum* s = sim.data()->sensordata + m->sensor_adr[id];
  return std::vector<double>(s, s + m->sensor_dim[id]);
}

// Sets a tilted, moving, turning state. The sensors took their first sample when the model
// was loaded; restarting them (SeedSensors resets their clocks) makes the next pipeline call
// sample this state.
void SetMotion(Simulation* sim) {
  SeedSensors(sim->model(), sim->data(), 0);
  mjData* d = sim->data();
  // a tilted, moving, turning vehicle
  const double q[4] = {std::cos(0.2), std::sin(0.2) * 0.6, std::sin(0.2) * 0.0, std::sin(0.2) * 0.8};
  for (int i = 0; i < 4; ++i) d->qpos[3 + i] = q[i];
  const double v[6] = {0.7, -0.2, 0.15, 0.3, -0.1, 0.4};
  for (int i = 0; i < 6; ++i) d->qvel[i] = v[i];
}

// The sample standard deviation. (doctest's Approx(x).epsilon(e) accepts |a - x| < e (scale +
// max(|a|, |x|)) with scale 1: for the small deviations compared here that is an absolute
// tolerance of about e; the statistical checks add .scale(0), so that e is relative.)
double Mean(const std::vector<double>& x) {
  double mean = 0;
  for (double v : x) mean += v;
  return mean / static_cast<double>(x.size());
}
double Std(const std::vector<double>& x) {
  const double mean = Mean(x);
  double var = 0;
  for (double v : x) var += (v - mean) * (v - mean);
  return std::sqrt(var / static_cast<double>(x.size() - 1));
}

// ---- pure functions ----------------------------------------------------------------------

TEST_SUITE("sensor_math") {
  TEST_CASE("the random streams are reproducible, distinct and standard normal") {
    CHECK(sensors::Normal(7, 3, 11) == sensors::Normal(7, 3, 11));  // bitwise
    CHECK(sensors::Normal(7, 3, 11) != sensors::Normal(7, 4, 11));
    CHECK(sensors::Normal(7, 3, 11) != sensors::Normal(8, 3, 11));
    CHECK(sensors::StreamId("dvl") != sensors::StreamId("imu"));
    // a Stream's draws are the pure function's
    sensors::Stream stream(7, 3);
    for (uint64_t k = 0; k < 9; ++k) CHECK(stream.Normal() == sensors::Normal(7, 3, k));
    // 200000 draws: the mean's standard error is 0.0022, the std's 0.0016; 0.01 is > 4 of them
    sensors::Stream s(1, sensors::StreamId("test"));
    std::vector<double> x(200000);
    double mean = 0;
    for (double& v : x) mean += (v = s.Normal());
    mean /= static_cast<double>(x.size());
    CHECK(std::abs(mean) < 0.01);
    CHECK(Std(x) == doctest::Approx(1.0).epsilon(0.01).scale(0));
  }

  TEST_CASE("the ziggurat's normal draws follow the normal distribution, tails and wedges included") {
    // 10^7 draws in 0.1-wide bins over [-4.5, 4.5] and the two tails beyond, against the
    // normal's probabilities: Pearson's chi-square with 91 degrees of freedom has mean 91
    // and standard deviation 13.5; 160 is 5 of them. Box 0's tail (|z| > r = 3.654,
    // p = 2.6e-4) and each box's wedge are drawn by their own paths: the tail started at
    // 3.7 instead of r adds about 170 to the chi-square, and box 0 made 1 % wider sends
    // 13 % more draws to the tail (about 6.5 of its binomial standard deviations, 51).
    constexpr int kDraws = 10000000, kBins = 90;
    constexpr double kLow = -4.5, kWidth = 0.1;
    std::vector<double> count(kBins + 2, 0.0);
    int tail = 0;
    for (int k = 0; k < kDraws; ++k) {
      const double z = sensors::Normal(3, 5, static_cast<uint64_t>(k));
      tail += std::abs(z) > 3.6541528853610088;
      const double bin = std::floor((z - kLow) / kWidth);
      count[static_cast<size_t>(std::clamp(bin + 1, 0.0, kBins + 1.0))] += 1;
    }
    auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
    double chi2 = 0;
    for (int b = 0; b < kBins + 2; ++b) {
      const double lo = b == 0 ? -INFINITY : kLow + (b - 1) * kWidth, hi = b == kBins + 1 ? INFINITY : kLow + b * kWidth;
      const double expected = kDraws * (cdf(hi) - cdf(lo));
      chi2 += (count[static_cast<size_t>(b)] - expected) * (count[static_cast<size_t>(b)] - expected) / expected;
    }
    CAPTURE(chi2);
    CHECK(chi2 < 160);
    // the tail's own count: expected 2583 (binomial standard deviation 51)
    CHECK(std::abs(tail - kDraws * std::erfc(3.6541528853610088 / std::sqrt(2.0))) < 5 * 51);
  }

  TEST_CASE("the sample clock holds samples at its rate and delivers them after the latency") {
    sensors::SampleClock clock(10, 0.25);  // every 0.1 s, 0.25 s late
    std::vector<double> taken, delivered;
    int idle_steps = 0;
    for (int k = 0; k <= 100; ++k) {
      const double t = 0.01 * k;
      const bool idle = clock.Idle(t);  // (as a sensor asks it, before Due)
      if (clock.Due(t)) {
        CHECK_FALSE(idle);
        clock.Push(t, {t});
        taken.push_back(t);
      }
      CHECK_FALSE(clock.Due(t));  // a second call at the same time takes no sample
      const double before = delivered.empty() ? -2 : delivered.back();
      const sensors::Reading* y = clock.Deliver(t);
      delivered.push_back(y ? (*y)[0] : -1);
      if (idle) CHECK(delivered.back() == before);  // idle: nothing new to deliver
      idle_steps += idle;
    }
    // busy at the 11 sample instants and the 8 deliveries at 0.25, 0.35, ..., 0.95
    CHECK(idle_steps == 101 - 11 - 8);
    REQUIRE(taken.size() == 11);  // 0, 0.1, ..., 1.0
    for (size_t i = 0; i < taken.size(); ++i) CHECK(taken[i] == doctest::Approx(0.1 * static_cast<double>(i)));
    CHECK(delivered[24] == -1);                           // t = 0.24: nothing yet
    CHECK(delivered[25] == doctest::Approx(0.0));         // t = 0.25: the sample of t = 0
    CHECK(delivered[34] == doctest::Approx(0.0));         // t = 0.34
    CHECK(delivered[35] == doctest::Approx(0.1));         // t = 0.35: the sample of 0.1
    CHECK(delivered[100] == doctest::Approx(0.7));        // t = 1.0: 0.75 -> 0.7
    // time set back to 0.5 without a reset: a new sample there, delivered 0.25 s later
    REQUIRE(clock.Due(0.5));
    clock.Push(0.5, {-0.5});
    CHECK(clock.Deliver(0.7) == nullptr);
    REQUIRE(clock.Deliver(0.75) != nullptr);
    CHECK((*clock.Deliver(0.75))[0] == -0.5);
    CHECK_FALSE(clock.Due(0.55));
    CHECK(clock.Due(0.6));
  }

  TEST_CASE("Janus beams solve the velocity exactly from 4 or 3 beams, not 2") {
    const std::vector<Vec3> beams = sensors::JanusBeams(4, 25 * kDeg, 45 * kDeg);
    for (const Vec3& b : beams) {
      CHECK(b.norm() == doctest::Approx(1.0).epsilon(1e-15));
      CHECK(b.z() == doctest::Approx(std::cos(25 * kDeg)).epsilon(1e-15));
    }
    const Vec3 v(0.31, -0.72, 0.05);
    std::vector<double> r;
    for (const Vec3& b : beams) r.push_back(sensors::RadialVelocity(v, b));
    Vec3 out;
    REQUIRE(sensors::SolveVelocity(beams, r, {true, true, true, true}, &out));
    CHECK((out - v).norm() < 1e-14);
    REQUIRE(sensors::SolveVelocity(beams, r, {true, false, true, true}, &out));
    CHECK((out - v).norm() < 1e-14);
    CHECK_FALSE(sensors::SolveVelocity(beams, r, {true, false, true, false}, &out));
  }

  TEST_CASE("Allan deviation: white noise N/sqrt(tau), bias random walk K sqrt(tau/3)") {
    // a simulated axis at 10 Hz for 2e5 s (2e6 samples): one record of white noise, one of
    // a bias random walk. Overlapping estimates from n/m clusters have a relative error of
    // about 1/sqrt(n/m): 0.3 % at tau = 1 s, 7 % at tau = 1000 s; tolerances 3 % and 20 %.
    const double dt = 0.1, N = 1e-3, K = 1e-4;
    const int n = 2000000;
    sensors::Stream s(42, sensors::StreamId("allan"));
    sensors::AxisNoise white{N, 0, 0, 0, 0}, walk{0, K, 0, 0, 0};
    sensors::AxisState a, b;
    a.Start(white, &s);
    b.Start(walk, &s);
    std::vector<double> yw(n), yk(n);
    for (int i = 0; i < n; ++i) {
      yw[static_cast<size_t>(i)] = a.Sample(white, dt, 0, &s);
      yk[static_cast<size_t>(i)] = b.Sample(walk, dt, 0, &s);
    }
    CHECK(AllanDeviation(yw, dt, 10) == doctest::Approx(N / std::sqrt(1.0)).epsilon(0.03).scale(0));
    CHECK(AllanDeviation(yw, dt, 1000) == doctest::Approx(N / std::sqrt(100.0)).epsilon(0.05).scale(0));
    CHECK(AllanDeviation(yk, dt, 10000) == doctest::Approx(K * std::sqrt(1000.0 / 3)).epsilon(0.2).scale(0));
  }

  TEST_CASE("pressure and depth are inverse; quantisation rounds to the step") {
    const double p = sensors::PressureAtDepth(101325, 1025, 9.81, 12.5);
    CHECK(p == 101325 + 1025 * 9.81 * 12.5);
    CHECK(sensors::DepthFromPressure(101325, 1025, 9.81, p) == doctest::Approx(12.5).epsilon(1e-15));
    CHECK(sensors::PressureAtDepth(101325, 1025, 9.81, -1) == 101325);  // above the surface
    CHECK(sensors::Quantise(1.26, 0.5) == 1.5);
    CHECK(sensors::Quantise(1.24, 0.5) == 1.0);
    CHECK(sensors::Quantise(1.24, 0) == 1.24);
    CHECK(sensors::Quantise(-1.26, 0.5) == -1.5);
    CHECK(sensors::Quantise(0.75, 0.5) == 1.0);   // a tie: to the even multiple (2 x 0.5)
    CHECK(sensors::Quantise(1.25, 0.5) == 1.0);   // (2 x 0.5, not 3 x 0.5)
    CHECK(sensors::Quantise(-0.25, 0.5) == 0.0);
    CHECK(sensors::Quantise(3e15, 1e-3) == 3e15);  // |x / resolution| beyond 2^51
  }
}

// ---- the plugins -------------------------------------------------------------------------

TEST_SUITE("sensors") {
  TEST_CASE("exact pressure is p_atm + rho g depth; exact depth is the site's depth") {
    ExactSensors exact(true);
    auto sim = Simulation::LoadString(
        Model(Instance("pressure", "baro", "imu", Config("fluid_density", "1025") + Config("rate", "200")),
              Element("baro")));
    SetMotion(sim.get());
    for (int i = 0; i < 50; ++i) sim->Step();
    sim->Forward();
    const double z = sim->data()->site_xpos[3 * mj_name2id(sim->model(), mjOBJ_SITE, "imu") + 2];
    const std::vector<double> y = Reading(*sim, "baro");
    CHECK(y[0] == doctest::Approx(101325 + 1025 * 9.81 * -z).epsilon(1e-15));
    CHECK(std::abs(y[1] - -z) < 1e-12);
  }

  TEST_CASE("exact pressure under a regular wave is linear wave theory's closed form") {
    ExactSensors exact(true);
    // H 0.6 m, T 3 s towards 40 deg, deep water; the gauge 1.2 m below the mean surface
    const std::string waves = "    <plugin plugin='nereid.current'><instance name='sea'>\n" +
                              Config("wave_type", "regular") + Config("wave_height", "0.6") +
                              Config("wave_period", "3") + Config("wave_direction", "0.6981317007977318") +
                              "    </instance></plugin>\n";
    auto sim = Simulation::LoadString(
        Model(waves + Instance("pressure", "baro", "imu", Config("fluid_density", "1025") + Config("rate", "200")),
              Element("baro")));
    sim->data()->qpos[0] = 2.5;
    sim->data()->qpos[2] = -1.2;
    const double a = 0.3, w = 2 * std::numbers::pi / 3, k = w * w / 9.81, beta = 40 * kDeg;
    const int site = mj_name2id(sim->model(), mjOBJ_SITE, "imu");
    double largest = 0;
    for (int i = 0; i < 60; ++i) {
      sim->data()->qvel[2] = 0;  // hold the depth (no buoyancy in this model)
      sim->Step();
      sim->Forward();
      const mjData* d = sim->data();
      const mjtNum* x = d->site_xpos + 3 * site;
      const double theta = k * (x[0] * std::cos(beta) + x[1] * std::sin(beta)) - w * d->time;
      const double dynamic = 1025 * 9.81 * a * std::exp(k * x[2]) * std::cos(theta);
      const double expected = 101325 - 1025 * 9.81 * x[2] + dynamic;
      const std::vector<double> y = Reading(*sim, "baro");
      CHECK(y[0] == doctest::Approx(expected).epsilon(1e-14));
      largest = std::max(largest, std::abs(dynamic));
    }
    CHECK(largest > 0.9 * 1025 * 9.81 * a * std::exp(-k * 1.25));  // the wave was there: ~1.75 kPa
  }

  TEST_CASE("exact DVL: velocity of the DVL point in its frame to 1e-12, ranges = distance to the plane") {
    ExactSensors exact(true);
    auto sim = Simulation::LoadString(
        Model(Instance("dvl", "dvl", "dvl", Config("beam_angle", "30") + Config("rate", "200")), Element("dvl"),
              0.005, false));
    SetMotion(sim.get());
    sim->Forward();
    const mjModel* m = sim->model();
    const mjData* d = sim->data();
    const int site = mj_name2id(m, mjOBJ_SITE, "dvl"), body = mj_name2id(m, mjOBJ_BODY, "rov");
    // the truth from the free joint: v of the body origin (world), omega (body frame)
    Mat3 Rb, Rs;
    for (int i = 0; i < 9; ++i) Rb(i / 3, i % 3) = d->xmat[9 * body + i], Rs(i / 3, i % 3) = d->site_xmat[9 * site + i];
    const Vec3 v(d->qvel[0], d->qvel[1], d->qvel[2]);
    const Vec3 omega = Rb * Vec3(d->qvel[3], d->qvel[4], d->qvel[5]);
    const Vec3 p(d->site_xpos[3 * site], d->site_xpos[3 * site + 1], d->site_xpos[3 * site + 2]);
    const Vec3 origin(d->xpos[3 * body], d->xpos[3 * body + 1], d->xpos[3 * body + 2]);
    const Vec3 truth = Rs.transpose() * sensors::PointVelocity(v, omega, p - origin);
    const std::vector<double> y = Reading(*sim, "dvl");
    CHECK(y[3] == 1);  // bottom lock
    CHECK(std::abs(y[0] - truth.x()) < 1e-12);
    CHECK(std::abs(y[1] - truth.y()) < 1e-12);
    CHECK(std::abs(y[2] - truth.z()) < 1e-12);
    const std::vector<Vec3> beams = sensors::JanusBeams(4, 30 * kDeg, 45 * kDeg);
    for (int i = 0; i < 4; ++i) {
      const Vec3 dir = Rs * beams[static_cast<size_t>(i)];
      const double range = (p.z() - -20) / -dir.z();  // to the plane z = -20
      CHECK(std::abs(y[static_cast<size_t>(5 + i)] - range) < 1e-9);
      CHECK(std::abs(y[static_cast<size_t>(9 + i)] - dir.dot(Rs * truth)) < 1e-12);  // radial
    }
  }

  TEST_CASE("DVL: beyond max_altitude it loses bottom lock: water track through the current, or no lock") {
    ExactSensors exact(true);
    const std::string current = "    <plugin plugin='nereid.current'><instance name='water'>\n" +
                                Config("velocity", "0.3 0.1 0") + "    </instance></plugin>\n";
    auto sim = Simulation::LoadString(Model(current + Instance("dvl", "dvl", "dvl", Config("max_altitude", "10") +
                                                                                         Config("rate", "200")),
                                            Element("dvl"), 0.005, false));
    SetMotion(sim.get());
    sim->Forward();  // 15 m above the seabed: no bottom
    std::vector<double> y = Reading(*sim, "dvl");
    CHECK(y[3] == 2);  // water track
    for (int i = 0; i < 4; ++i) CHECK(y[static_cast<size_t>(5 + i)] == -1);
    // the velocity through the water, in the DVL frame
    const mjModel* m = sim->model();
    const mjData* d = sim->data();
    const int site = mj_name2id(m, mjOBJ_SITE, "dvl");
    mjtNum vel[6];
    mj_objectVelocity(m, d, mjOBJ_SITE, site, vel, 1);
    Mat3 Rs;
    for (int i = 0; i < 9; ++i) Rs(i / 3, i % 3) = d->site_xmat[9 * site + i];
    const Vec3 expected = Vec3(vel[3], vel[4], vel[5]) - Rs.transpose() * Vec3(0.3, 0.1, 0);
    CHECK((Vec3(y[0], y[1], y[2]) - expected).norm() < 1e-12);
    // lower: bottom lock again
    sim->data()->qpos[2] = -12;
    sim->Step();
    sim->Forward();  // the next sample instant (rate = physics rate)
    CHECK(Reading(*sim, "dvl")[3] == 1);

    auto no_water = Simulation::LoadString(Model(Instance("dvl", "dvl", "dvl", Config("max_altitude", "10") +
                                                                                 Config("water_track", "false")),
                                                 Element("dvl"), 0.005, false));
    no_water->Forward();
    CHECK(Reading(*no_water, "dvl")[3] == 0);
  }

  TEST_CASE("exact IMU equals MuJoCo's accelerometer and gyro on the same site") {
    ExactSensors exact(true);
    auto sim = Simulation::LoadString(Model(Instance("imu", "imu", "imu", Config("rate", "200")),
                                            Element("imu") + "    <accelerometer name='acc' site='imu'/>\n"
                                                             "    <gyro name='gyro' site='imu'/>\n"));
    SetMotion(sim.get());
    for (int i = 0; i < 40; ++i) {
      sim->data()->xfrc_applied[6 + 0] = 5 * std::sin(0.1 * i);  // a varying push and twist
      sim->data()->xfrc_applied[6 + 5] = 0.5;
      sim->Step();
      sim->Forward();
      const std::vector<double> y = Reading(*sim, "imu"), acc = Reading(*sim, "acc"), gyro = Reading(*sim, "gyro");
      for (size_t k = 0; k < 3; ++k) {
        CHECK(std::abs(y[k] - acc[k]) < 1e-12);
        CHECK(std::abs(y[3 + k] - gyro[k]) < 1e-12);
      }
    }
  }

  TEST_CASE("exact IMU without MuJoCo's accelerometer: mj_rnePostConstraint left out, the reading unchanged") {
    ExactSensors exact(true);
    // the IMU alone (Nereid's engine leaves MuJoCo's cacc out) and beside MuJoCo's
    // accelerometer (which needs it), driven alike
    auto alone = Simulation::LoadString(Model(Instance("imu", "imu", "imu", Config("rate", "200")), Element("imu")));
    auto twin = Simulation::LoadString(Model(Instance("imu", "imu", "imu", Config("rate", "200")),
                                             Element("imu") + "    <accelerometer name='acc' site='imu'/>\n"));
    CHECK(SensorsSkipRnePost(alone->model()));
    CHECK_FALSE(SensorsSkipRnePost(twin->model()));
    SetMotion(alone.get());
    SetMotion(twin.get());
    for (int i = 0; i < 40; ++i) {
      for (Simulation* sim : {alone.get(), twin.get()}) {
        sim->data()->xfrc_applied[6 + 1] = 4 * std::cos(0.13 * i);
        sim->data()->xfrc_applied[6 + 3] = 0.3;
        sim->Step();
      }
      CHECK(alone->data()->flg_rnepost == 0);  // cacc was not computed
      CHECK(twin->data()->flg_rnepost == 1);
      const std::vector<double> y = Reading(*alone, "imu"), acc = Reading(*twin, "acc");
      for (size_t k = 0; k < 3; ++k) CHECK(std::abs(y[k] - acc[k]) < 1e-12);
    }
  }

  TEST_CASE("Nereid's engine computes its sensor plugins itself, with MuJoCo's stages' readings bit for bit") {
    // noisy sensors of every stage: pressure and DVL (position), acoustic fix, IMU (acceleration)
    const std::string instances =
        Instance("pressure", "depth", "imu") + Instance("dvl", "dvl", "dvl", Config("max_altitude", "30")) +
        Instance("acoustic", "usbl", "imu", Config("rate", "10") + Config("latency", "0.2")) +
        Instance("imu", "imu", "imu", Config("rate", "100"));
    const std::string elements = Element("depth") + Element("dvl") + Element("usbl") + Element("imu");
    // the same sensors beside a built-in one, which MuJoCo's stages must compute: the
    // engine leaves them to MuJoCo (mj_rnePostConstraint still left out: a clock needs none)
    auto own = Simulation::LoadString(Model(instances, elements));
    auto stages = Simulation::LoadString(Model(instances, elements + "    <clock name='clock'/>\n"));
    const std::optional<SensorCalls> calls = NereidSensorCalls(own->model());
    REQUIRE(calls.has_value());
    CHECK((*calls)[0].size() == 3);  // pressure, DVL, acoustic fix at the position stage
    CHECK((*calls)[1].empty());
    CHECK((*calls)[2].size() == 1);  // the IMU
    CHECK_FALSE(NereidSensorCalls(stages->model()).has_value());
    CHECK(PluginsBeforeTrailingSensors(own->model(), *calls) == 0);  // sensors only
    CHECK(SensorsSkipRnePost(stages->model()));
    SetMotion(own.get());
    SetMotion(stages.get());
    int differing = 0;
    for (int i = 0; i < 300; ++i) {
      for (Simulation* sim : {own.get(), stages.get()}) {
        sim->data()->xfrc_applied[6 + 0] = 3 * std::sin(0.07 * i);
        sim->data()->xfrc_applied[6 + 5] = 0.2;
        sim->Step();
      }
      for (const char* name : {"depth", "dvl", "usbl", "imu"}) differing += Reading(*own, name) != Reading(*stages, name);
      for (long k = 0; k < own->model()->nq; ++k) differing += own->data()->qpos[k] != stages->data()->qpos[k];
    }
    CHECK(differing == 0);
    CHECK(Reading(*stages, "clock")[0] > 1.0);  // MuJoCo's stages ran there
    // sensors disabled: neither path writes them
    own->mutable_model()->opt.disableflags |= mjDSBL_SENSOR;
    own->data()->sensordata[0] = -123;
    own->Step();
    CHECK(own->data()->sensordata[0] == -123);
  }

  TEST_CASE("exact acoustic fix is the site's position, lost outside the cone, delivered after the latency") {
    ExactSensors exact(true);
    auto sim = Simulation::LoadString(
        Model(Instance("acoustic", "usbl", "imu",
                       Config("rate", "10") + Config("latency", "0.5") + Config("transceiver", "1 2 0") +
                           Config("cone", "60")),
              Element("usbl"), 0.005, false));
    SetMotion(sim.get());
    const int site = mj_name2id(sim->model(), mjOBJ_SITE, "imu");
    std::vector<Vec3> truth;  // site position at each 0.1 s
    for (int i = 0; i <= 200; ++i) {
      sim->Step();  // its forward pass samples the state at 0.005 i
      if (i % 20 == 0) {
        const mjtNum* p = sim->data()->site_xpos + 3 * site;
        truth.emplace_back(p[0], p[1], p[2]);
      }
    }
    sim->Forward();  // t = 1.005 s: the sample of 0.5 s
    const std::vector<double> y = Reading(*sim, "usbl");
    REQUIRE(y[6] == 1);
    // the sample of t = 0.5: the 6th entry of truth
    CHECK((Vec3(y[0], y[1], y[2]) - truth[5]).norm() < 1e-9);
    // from straight above, 0.5 s out of a 60 deg cone around the downward axis: lost
    auto far = Simulation::LoadString(Model(Instance("acoustic", "usbl", "imu",
                                                     Config("rate", "10") + Config("transceiver", "20 0 -4") +
                                                         Config("cone", "60")),
                                            Element("usbl"), 0.005, false));
    far->Forward();
    CHECK(Reading(*far, "usbl")[6] == 0);
  }

  TEST_CASE("exact altimeter: the distance along the site's z axis to the seabed") {
    ExactSensors exact(true);
    auto sim = Simulation::LoadString(Model(Instance("altimeter", "alt", "dvl"), Element("alt"), 0.005, false));
    sim->Forward();
    const int site = mj_name2id(sim->model(), mjOBJ_SITE, "dvl");
    const double z = sim->data()->site_xpos[3 * site + 2];
    const std::vector<double> y = Reading(*sim, "alt");
    CHECK(y[1] == 1);
    CHECK(std::abs(y[0] - (z - -20)) < 1e-9);  // the site looks straight down
  }

  TEST_CASE("exact marker: its pose in the camera frame; lost outside the view, from behind or behind a body") {
    ExactSensors exact(true);
    // a camera fixed 3 m below the vehicle looking up (+z) at the marker on its DVL site,
    // whose +z looks down at the camera
    auto model = [](const std::string& camera_pose, const std::string& config, const std::string& more = "") {
      return Model(Instance("marker", "cam", "cam", Config("marker", "dvl") + config), Element("cam"), 0.005, false,
                   "    <body name='dock' " + camera_pose + "><site name='cam'/></body>\n" + more);
    };
    auto sim = Simulation::LoadString(model("pos='0.3 -0.2 -8'", Config("rate", "200") + Config("fov", "45")));
    SetMotion(sim.get());
    for (int i = 0; i < 40; ++i) sim->Step();
    sim->Forward();
    const mjData* d = sim->data();
    const int cam = mj_name2id(sim->model(), mjOBJ_SITE, "cam"), marker = mj_name2id(sim->model(), mjOBJ_SITE, "dvl");
    const auto rotation = [d](int site) {
      return Mat3(Eigen::Map<const Eigen::Matrix<mjtNum, 3, 3, Eigen::RowMajor>>(d->site_xmat + 9 * site));
    };
    const Vec3 p = rotation(cam).transpose() * (Vec3::Map(d->site_xpos + 3 * marker) - Vec3::Map(d->site_xpos + 3 * cam));
    const Mat3 R = rotation(cam).transpose() * rotation(marker);
    const std::vector<double> y = Reading(*sim, "cam");
    REQUIRE(y[7] == 1);
    CHECK((Vec3(y[0], y[1], y[2]) - p).norm() < 1e-12);
    CHECK(y[6] == doctest::Approx(p.norm()).epsilon(1e-12));
    const Vec3 r(y[3], y[4], y[5]);
    CHECK((Mat3(Eigen::AngleAxisd(r.norm(), r.normalized())) - R).norm() < 1e-12);
    CHECK(r.norm() > 0.1);  // a real rotation: the vehicle is tilted and turned
    // no detection: the camera tilted 60 deg away (fov 45), beyond max_range, looking down
    // at the marker's back from above, and with a plate of another body in between
    auto lost = [&](const std::string& pose, const std::string& config, const std::string& more = "") {
      auto s = Simulation::LoadString(model(pose, config, more));
      s->Forward();
      const std::vector<double> reading = Reading(*s, "cam");
      return reading[7] == 0 && reading[6] == -1 && reading[0] == 0;
    };
    CHECK_FALSE(lost("pos='0.3 -0.2 -8'", Config("fov", "45")));
    CHECK(lost("pos='0.3 -0.2 -8' euler='60 0 0'", Config("fov", "45")));
    CHECK(lost("pos='0.3 -0.2 -8'", Config("max_range", "2.5")));
    CHECK(lost("pos='0.1 -0.05 -3' euler='180 0 0'", ""));
    CHECK(lost("pos='0.3 -0.2 -8'", "", "    <body name='plate' pos='0.2 -0.1 -6.5'><geom type='box' size='0.5 0.5 0.01'/></body>\n"));
    CHECK_FALSE(lost("pos='0.3 -0.2 -8'", "", "    <body name='plate' pos='3 3 -6.5'><geom type='box' size='0.5 0.5 0.01'/></body>\n"));
  }

  TEST_CASE("noise: the marker's position and angle standard deviations match their settings") {
    ExactSensors exact(false);
    // a fixed vehicle (gravity off, at rest): 8000 samples, the std's standard error 0.8 %;
    // tolerance 4 %
    auto sim = Simulation::LoadString(
        Model(Instance("marker", "cam", "cam",
                       Config("marker", "dvl") + Config("rate", "100") + Config("position_noise", "0.02") +
                           Config("angle_noise", "0.03")),
              Element("cam"), 0.01, false, "    <body name='dock' pos='0.1 -0.05 -8'><site name='cam'/></body>\n"));
    std::vector<double> x, z, angle;
    double range = 0;
    for (int i = 0; i < 8000; ++i) {
      sim->Step();
      const std::vector<double> y = Reading(*sim, "cam");
      REQUIRE(y[7] == 1);
      x.push_back(y[0]);
      z.push_back(y[2]);
      // the marker faces the camera turned by pi about x (euler 180 0 30 on a camera with
      // the world's axes): the error is the reading's deviation from that rotation
      const Vec3 r(y[3], y[4], y[5]);
      const Mat3 truth =
          (Eigen::AngleAxisd(std::numbers::pi, Vec3::UnitX()) * Eigen::AngleAxisd(30 * kDeg, Vec3::UnitZ())).toRotationMatrix();
      const Eigen::AngleAxisd error(truth.transpose() * Mat3(Eigen::AngleAxisd(r.norm(), r.normalized())));
      angle.push_back((error.angle() * error.axis()).x());
      range = 2.9;  // -5.1 - -8
    }
    CHECK(Std(x) == doctest::Approx(0.02 * range).epsilon(0.04).scale(0));
    CHECK(Std(z) == doctest::Approx(0.02 * range).epsilon(0.04).scale(0));
    CHECK(Std(angle) == doctest::Approx(0.03).epsilon(0.04).scale(0));
  }

  TEST_CASE("noise: pressure and DVL standard deviations and rates match their settings") {
    ExactSensors exact(false);
    // a fixed vehicle (gravity off, at rest): every variation is noise. 20000 samples: the
    // std's standard error is 0.5 %; tolerance 3 %.
    auto sim = Simulation::LoadString(
        Model(Instance("pressure", "baro", "imu",
                       Config("rate", "20") + Config("noise", "30") + Config("resolution", "0")) +
                  Instance("dvl", "dvl", "dvl",
                           Config("rate", "100") + Config("velocity_noise", "0.01") +
                               Config("velocity_noise_per_speed", "0") + Config("beam_angle", "30")),
              Element("baro") + Element("dvl"), 0.01, false));
    std::vector<double> p, vx, vz;
    int changes = 0;
    double last = 0;
    for (int i = 0; i < 20000; ++i) {
      sim->Step();
      const std::vector<double> b = Reading(*sim, "baro"), v = Reading(*sim, "dvl");
      if (i == 0 || b[0] != last) ++changes, p.push_back(b[0]);
      last = b[0];
      vx.push_back(v[0]);
      vz.push_back(v[2]);
    }
    // 200 s at 20 Hz: 4000 samples
    CHECK(changes == 4000);
    CHECK(Std(p) == doctest::Approx(30).epsilon(0.03).scale(0));
    // least squares over 4 beams at angle a: std(vx) = sigma / (sqrt(2) sin a),
    // std(vz) = sigma / (2 cos a)
    CHECK(Std(vx) == doctest::Approx(0.01 / (std::sqrt(2.0) * std::sin(30 * kDeg))).epsilon(0.03).scale(0));
    CHECK(Std(vz) == doctest::Approx(0.01 / (2 * std::cos(30 * kDeg))).epsilon(0.03).scale(0));
  }

  TEST_CASE("noise: DVL dropouts, its speed- and range-dependent beam noise and range noise match their settings") {
    ExactSensors exact(false);
    const double a = 30 * kDeg;
    // a fixed vehicle (gravity off, at rest), its DVL 14.9 m above the seabed: each beam's
    // slant range 14.9 / cos a; a new sample every step
    auto dvl = [&](const std::string& config) {
      return Simulation::LoadString(Model(Instance("dvl", "dvl", "dvl", Config("rate", "100") + Config("beam_angle", "30") +
                                                                             Config("water_track", "false") + config),
                                          Element("dvl"), 0.01, false));
    };
    {  // dropouts: each beam lost with p = 0.2; lock with >= 3 of 4: (1-p)^4 + 4 p (1-p)^3 = 0.8192
      auto sim = dvl(Config("dropout", "0.2"));
      long beams = 0, lost = 0, locked = 0;
      const int n = 20000;
      for (int i = 0; i < n; ++i) {
        sim->Step();
        const std::vector<double> y = Reading(*sim, "dvl");
        for (int b = 0; b < 4; ++b) ++beams, lost += y[static_cast<size_t>(5 + b)] == -1;
        locked += y[3] == 1;
        CHECK((y[3] == 1 || y[3] == 0));  // no water track: lock or none
      }
      // binomial standard errors 0.0014 and 0.0027: tolerances about 7 of them
      CHECK(static_cast<double>(lost) / static_cast<double>(beams) == doctest::Approx(0.2).epsilon(0.05).scale(0));
      CHECK(static_cast<double>(locked) / n == doctest::Approx(0.8192).epsilon(0.02).scale(0));
    }
    {  // at rest, range-dependent noise: sigma = 0.001 + 0.002 x 17.2 m; the range's own
       // noise a fraction 0.005 of it. 20000 samples: the std's standard error 0.5 %; tolerance 3 %
      auto sim = dvl(Config("velocity_noise", "0.001") + Config("velocity_noise_per_speed", "0") +
                     Config("velocity_noise_per_range", "0.002") + Config("range_noise", "0.005"));
      std::vector<double> vx, vz, range;
      for (int i = 0; i < 20000; ++i) {
        sim->Step();
        const std::vector<double> y = Reading(*sim, "dvl");
        REQUIRE(y[3] == 1);
        vx.push_back(y[0]);
        vz.push_back(y[2]);
        range.push_back(y[5]);
      }
      const double slant = 14.9 / std::cos(a), sigma = 0.001 + 0.002 * slant;
      CHECK(Mean(range) == doctest::Approx(slant).epsilon(1e-3).scale(0));
      CHECK(Std(range) == doctest::Approx(0.005 * slant).epsilon(0.03).scale(0));
      CHECK(Std(vx) == doctest::Approx(sigma / (std::sqrt(2.0) * std::sin(a))).epsilon(0.03).scale(0));
      CHECK(Std(vz) == doctest::Approx(sigma / (2 * std::cos(a))).epsilon(0.03).scale(0));
    }
    {  // descending at 0.5 m/s: every beam's radial speed 0.5 cos a, sigma = 0.001 + 0.02 x
       // 0.5 cos a; vz constant. 2000 samples (20 s, 10 m of descent): standard error 1.6 %, tolerance 5 %
      auto sim = dvl(Config("velocity_noise", "0.001") + Config("velocity_noise_per_speed", "0.02") +
                     Config("velocity_noise_per_range", "0") + Config("range_noise", "0"));
      sim->data()->qvel[2] = -0.5;
      SeedSensors(sim->model(), sim->data(), 0);  // the first sample of this motion
      std::vector<double> vz, vx;
      for (int i = 0; i < 2000; ++i) {
        sim->Step();
        const std::vector<double> y = Reading(*sim, "dvl");
        REQUIRE(y[3] == 1);
        vz.push_back(y[2]);
        vx.push_back(y[0]);
      }
      const double sigma = 0.001 + 0.02 * 0.5 * std::cos(a);
      CHECK(std::abs(Mean(vz)) == doctest::Approx(0.5).epsilon(2e-3).scale(0));  // the site's z looks down
      CHECK(Std(vz) == doctest::Approx(sigma / (2 * std::cos(a))).epsilon(0.05).scale(0));
      CHECK(Std(vx) == doctest::Approx(sigma / (std::sqrt(2.0) * std::sin(a))).epsilon(0.05).scale(0));
    }
  }

  TEST_CASE("noise: the acoustic fix's range and angles, the altimeter's range and the IMU's accelerometer match their settings") {
    ExactSensors exact(false);
    const int n = 20000;  // samples: the std's standard error 0.5 %; tolerance 3 %
    {  // a transceiver 10.2 m behind, 5.1 m to the side and 5.05 m above the transponder
      auto sim = Simulation::LoadString(
          Model(Instance("acoustic", "usbl", "imu",
                         Config("rate", "100") + Config("transceiver", "-10 -5 0") + Config("range_noise", "0.2") +
                             Config("angle_noise", "0.02")),
                Element("usbl"), 0.01, false));
      std::vector<double> range, bearing, elevation;
      for (int i = 0; i < n; ++i) {
        sim->Step();
        const std::vector<double> y = Reading(*sim, "usbl");
        REQUIRE(y[6] == 1);
        range.push_back(y[3]);
        bearing.push_back(y[4]);
        elevation.push_back(y[5]);
      }
      CHECK(Std(range) == doctest::Approx(0.2).epsilon(0.03).scale(0));
      CHECK(Std(bearing) == doctest::Approx(0.02).epsilon(0.03).scale(0));
      CHECK(Std(elevation) == doctest::Approx(0.02).epsilon(0.03).scale(0));
    }
    {  // beyond max_range no fix: the same geometry, max_range 12 m < 12.5 m
      auto sim = Simulation::LoadString(
          Model(Instance("acoustic", "usbl", "imu", Config("transceiver", "-10 -5 0") + Config("max_range", "12")),
                Element("usbl"), 0.01, false));
      sim->Step();
      CHECK(Reading(*sim, "usbl")[6] == 0);
    }
    {  // the altimeter looking down 14.9 m: sigma = 0.01 + 0.005 x 14.9 m
      auto sim = Simulation::LoadString(
          Model(Instance("altimeter", "alt", "dvl",
                         Config("rate", "100") + Config("noise", "0.01") + Config("noise_per_range", "0.005")),
                Element("alt"), 0.01, false));
      std::vector<double> range;
      for (int i = 0; i < n; ++i) {
        sim->Step();
        const std::vector<double> y = Reading(*sim, "alt");
        REQUIRE(y[1] == 1);
        range.push_back(y[0]);
      }
      CHECK(Std(range) == doctest::Approx(0.01 + 0.005 * 14.9).epsilon(0.03).scale(0));
    }
    {  // the accelerometer at rest without gravity reads b0 + white noise: sigma_w / sqrt(T)
      auto sim = Simulation::LoadString(
          Model(Instance("imu", "imu", "imu",
                         Config("rate", "100") + Config("accel_noise_density", "0.002") + Config("accel_bias_walk", "0") +
                             Config("accel_resolution", "0") + Config("accel_turn_on_bias", "0.1")),
                Element("imu"), 0.01, false));
      std::vector<double> ax;
      for (int i = 0; i < n; ++i) {
        sim->Step();
        ax.push_back(Reading(*sim, "imu")[0]);
      }
      CHECK(Std(ax) == doctest::Approx(0.002 / std::sqrt(0.01)).epsilon(0.03).scale(0));
    }
    {  // the turn-on bias: one draw per axis and run, standard deviation 0.1 m/s^2; 600 draws
       // (200 seeds x 3 axes, white noise 100 times smaller): standard error 2.9 %, tolerance 10 %
      auto sim = Simulation::LoadString(
          Model(Instance("imu", "imu", "imu",
                         Config("rate", "100") + Config("accel_noise_density", "0.0001") + Config("accel_bias_walk", "0") +
                             Config("accel_resolution", "0") + Config("accel_turn_on_bias", "0.1")),
                Element("imu"), 0.01, false));
      std::vector<double> b0;
      for (uint64_t seed = 1; seed <= 200; ++seed) {
        mj_resetData(sim->model(), sim->data());
        SeedSensors(sim->model(), sim->data(), seed);
        sim->Step();
        const std::vector<double> y = Reading(*sim, "imu");
        b0.insert(b0.end(), y.begin(), y.begin() + 3);
      }
      CHECK(Std(b0) == doctest::Approx(0.1).epsilon(0.1).scale(0));
    }
    {  // scale factor and quantisation: at rest under gravity, noise and biases off, the up
       // axis reads q((1 + s) 9.81), a whole number of resolution steps
      auto sim = Simulation::LoadString(
          Model(Instance("imu", "imu", "imu",
                         Config("accel_noise_density", "0") + Config("accel_bias_walk", "0") +
                             Config("accel_turn_on_bias", "0") + Config("accel_scale_factor", "0.02") +
                             Config("accel_resolution", "0.05")),
                Element("imu"), 0.005, true, ""));
      // held still: the vehicle's weight balanced by an applied force, so that it stays at rest
      const mjModel* m = sim->model();
      const int body = mj_name2id(m, mjOBJ_BODY, "rov");
      sim->data()->xfrc_applied[6 * body + 2] = -m->opt.gravity[2] * m->body_subtreemass[body];
      for (int i = 0; i < 10; ++i) sim->Step();
      const std::vector<double> y = Reading(*sim, "imu");
      // the imu site is turned (euler 5 -3 10 deg): the specific force's components in its frame
      const int site = mj_name2id(m, mjOBJ_SITE, "imu");
      const mjtNum* R = sim->data()->site_xmat + 9 * site;
      for (int i = 0; i < 3; ++i) {
        const double truth = 9.81 * R[6 + i];  // world up (0 0 9.81) in the site's axes: row z of R
        CAPTURE(i);
        CHECK(y[static_cast<size_t>(i)] == doctest::Approx(0.05 * std::nearbyint(1.02 * truth / 0.05)).epsilon(1e-9));
        CHECK(std::abs(y[static_cast<size_t>(i)] / 0.05 - std::nearbyint(y[static_cast<size_t>(i)] / 0.05)) < 1e-9);
      }
    }
  }

  TEST_CASE("noise: Allan deviation of a static IMU record matches the white noise density") {
    ExactSensors exact(false);
    // 400 s at 100 Hz on a vehicle held still (gravity off); white noise N at tau = 0.1 s and
    // 1 s (400 and 40 clusters' worth of independent estimates: 1.5 % and 5 %); tolerance
    // 5 % and 10 %. The bias random walk is checked over a longer record in sensor_math.
    const double N = 2e-3;
    auto sim = Simulation::LoadString(
        Model(Instance("imu", "imu", "imu",
                       Config("rate", "100") + Config("gyro_noise_density", "0.002") +
                           Config("gyro_bias_walk", "0") + Config("gyro_resolution", "0") +
                           Config("gyro_turn_on_bias", "0.01")),
              Element("imu"), 0.01, false));
    std::vector<double> gx;
    for (int i = 0; i < 40000; ++i) {
      sim->Step();
      gx.push_back(Reading(*sim, "imu")[3]);
    }
    CHECK(AllanDeviation(gx, 0.01, 10) == doctest::Approx(N / std::sqrt(0.1)).epsilon(0.05).scale(0));
    CHECK(AllanDeviation(gx, 0.01, 100) == doctest::Approx(N / std::sqrt(1.0)).epsilon(0.1).scale(0));
  }

  TEST_CASE("noisy runs are bitwise reproducible, follow the seed and survive mj_copyData") {
    ExactSensors exact(false);
    const std::string xml = Model(Instance("imu", "imu", "imu") + Instance("dvl", "dvl", "dvl"),
                                  Element("imu") + Element("dvl"));
    auto run = [&](uint64_t seed) {
      auto sim = Simulation::LoadString(xml);
      SetMotion(sim.get());
      SeedSensors(sim->model(), sim->data(), seed);
      std::vector<double> out;
      for (int i = 0; i < 300; ++i) {
        sim->Step();
        for (const char* s : {"imu", "dvl"}) {
          const std::vector<double> y = Reading(*sim, s);
          out.insert(out.end(), y.begin(), y.end());
        }
      }
      return out;
    };
    const std::vector<double> a = run(1), b = run(1), c = run(2);
    CHECK(a == b);
    CHECK(a != c);

    auto sim = Simulation::LoadString(xml);
    SetMotion(sim.get());
    for (int i = 0; i < 50; ++i) sim->Step();
    mjData* copy = mj_copyData(nullptr, sim->model(), sim->data());
    const mjModel* m = sim->model();
    for (int i = 0; i < 50; ++i) {
      sim->Step();
      mj_step(m, copy);
    }
    const int imu = mj_name2id(m, mjOBJ_SENSOR, "imu");
    for (int k = 0; k < 7; ++k) {
      CHECK(copy->sensordata[m->sensor_adr[imu] + k] == sim->data()->sensordata[m->sensor_adr[imu] + k]);
    }
    mj_deleteData(copy);
  }

  TEST_CASE("SetSensorsExact makes a data's sensors exact as NEREID_EXACT_SENSORS does, and noisy again") {
    const std::string xml = Model(Instance("imu", "imu", "imu") + Instance("dvl", "dvl", "dvl") +
                                      Instance("pressure", "depth", "imu"),
                                  Element("imu") + Element("dvl") + Element("depth"));
    // 200 steps of the three sensors' readings, the sensors made exact or noisy first (or not)
    auto run = [&](bool by_environment, std::optional<bool> set) {
      ExactSensors exact(by_environment);
      auto sim = Simulation::LoadString(xml);
      SetMotion(sim.get());
      if (set) SetSensorsExact(sim->model(), sim->data(), *set);
      SeedSensors(sim->model(), sim->data(), 7);
      std::vector<double> out;
      for (int i = 0; i < 200; ++i) {
        sim->Step();
        for (const char* s : {"imu", "dvl", "depth"}) {
          const std::vector<double> y = Reading(*sim, s);
          out.insert(out.end(), y.begin(), y.end());
        }
      }
      return out;
    };
    const std::vector<double> noisy = run(false, std::nullopt), exact = run(true, std::nullopt);
    REQUIRE(noisy != exact);
    CHECK(run(false, true) == exact);   // bit for bit, the IMU's turn-on biases included
    CHECK(run(true, false) == noisy);   // the environment's choice undone
    CHECK(run(false, false) == noisy);  // and nothing else changed
  }

  TEST_CASE("the BlueROV2 Heavy's sensor suite does not change its motion; its exact readings are the truth") {
    ExactSensors exact(true);
    auto plain = Simulation::LoadFile(test::ModelPath("bluerov2_heavy/bluerov2_heavy.xml"));
    auto suite = Simulation::LoadFile(test::ModelPath("bluerov2_heavy/bluerov2_heavy_sensors.xml"));
    REQUIRE(suite->model()->nsensor == 4);
    for (Simulation* sim : {plain.get(), suite.get()}) {
      for (int i = 0; i < sim->model()->nu; ++i) sim->data()->ctrl[i] = 1500 + 40 * (i % 3);  // PWM, us
    }
    // the suite's four instances come last: MuJoCo's stages step without them (its stage
    // model), whose options must follow the model's when a program changes them
    const std::optional<SensorCalls> calls = NereidSensorCalls(suite->model());
    REQUIRE(calls.has_value());
    CHECK(PluginsBeforeTrailingSensors(suite->model(), *calls) == suite->model()->nplugin - 4);
    for (int k = 0; k < 400; ++k) {
      for (Simulation* sim : {plain.get(), suite.get()}) {
        mjOption& opt = sim->mutable_model()->opt;
        if (k == 100) opt.gravity[2] = -9.7, opt.timestep = 0.004;
        if (k == 200) opt.integrator = mjINT_RK4, opt.density = 1020;
        if (k == 300) opt.integrator = mjINT_IMPLICITFAST, opt.timestep = 0.005;
        if (k == 350) opt.integrator = mjINT_EULER, opt.disableflags |= mjDSBL_GRAVITY;
      }
      plain->Step();
      suite->Step();
    }
    CHECK(suite->data()->time == doctest::Approx(1.8));  // a 25 Hz sample instant of the Bar30
    const long nq = plain->model()->nq, nv = plain->model()->nv;
    for (long i = 0; i < nq; ++i) CHECK(plain->data()->qpos[i] == suite->data()->qpos[i]);  // bitwise
    for (long i = 0; i < nv; ++i) CHECK(plain->data()->qvel[i] == suite->data()->qvel[i]);
    suite->Forward();
    const double z = suite->data()->site_xpos[3 * mj_name2id(suite->model(), mjOBJ_SITE, "bar30") + 2];
    CHECK(std::abs(Reading(*suite, "bar30")[1] - -z) < 1e-9);
    CHECK(Reading(*suite, "usbl")[6] == 1);  // below the transceiver
    // at rest and level after loading: bottom lock on the floor at z = -20, altitude = height
    auto fresh = Simulation::LoadFile(test::ModelPath("bluerov2_heavy/bluerov2_heavy_sensors.xml"));
    fresh->Forward();
    const double dvl_z = fresh->data()->site_xpos[3 * mj_name2id(fresh->model(), mjOBJ_SITE, "dvl") + 2];
    CHECK(Reading(*fresh, "dvl")[3] == 1);
    CHECK(Reading(*fresh, "dvl")[4] == doctest::Approx(dvl_z + 20).epsilon(1e-9));
  }

  TEST_CASE("the Raybot's rangefinders measure the stand-off to a quay wall; its motion is unchanged") {
    ExactSensors exact(true);
    SimulationOptions o;
    o.edit = [](mjSpec* spec) {  // a wall whose face is the plane x = 1.5
      mjsGeom* wall = mjs_addGeom(mjs_findBody(spec, "world"), nullptr);
      wall->type = mjGEOM_BOX;
      wall->size[0] = 0.05, wall->size[1] = 10, wall->size[2] = 10;
      wall->pos[0] = 1.55;
      wall->contype = wall->conaffinity = 0;
    };
    auto suite = Simulation::LoadFile(test::ModelPath("raybot/raybot_sensors.xml"), o);
    auto plain = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"), o);
    suite->Forward();
    const double x = suite->data()->xpos[3 * mj_name2id(suite->model(), mjOBJ_BODY, "raybot")];
    for (const char* name : {"range_upper", "range_lower"}) {
      CAPTURE(name);
      const std::vector<double> y = Reading(*suite, name);
      CHECK(y[1] == 1);
      CHECK(std::abs(y[0] - (1.5 - 0.16 - x)) < 1e-9);  // the sites are 0.16 m ahead of the origin
    }
    for (int k = 0; k < 200; ++k) {
      suite->Step();
      plain->Step();
    }
    for (long i = 0; i < plain->model()->nq; ++i) CHECK(plain->data()->qpos[i] == suite->data()->qpos[i]);
  }

  TEST_CASE("the fields of a Nereid sensor are named; others are numbered") {
    auto sim = Simulation::LoadString(Model(Instance("dvl", "dvl", "dvl"),
                                            Element("dvl") + "    <gyro name='g' site='imu'/>\n"));
    const std::vector<std::string> dvl = SensorFieldNames(sim->model(), 0), g = SensorFieldNames(sim->model(), 1);
    REQUIRE(dvl.size() == 13);
    CHECK(dvl[0] == "vx");
    CHECK(dvl[3] == "status");
    CHECK(g == std::vector<std::string>{"0", "1", "2"});
    CHECK(SensorFieldIndex(sim->model(), 0, "range0") == 5);
    CHECK(SensorFieldIndex(sim->model(), 0, "heading") == -1);
    CHECK(SensorFieldIndex(sim->model(), 1, "2") == 2);
    CHECK(SensorFieldIndex(sim->model(), 7, "vx") == -1);  // no sensor 7
  }

  TEST_CASE("a sensor's mount: its site, clock and element, a DVL's beams; nothing for other instances") {
    auto sim = Simulation::LoadString(Model(
        Instance("dvl", "dvl", "dvl", Config("rate", "4") + Config("latency", "0.05") + Config("beam_angle", "30") +
                                          Config("max_altitude", "40")) +
            Instance("pressure", "depth", "imu") +
            "    <plugin plugin='nereid.current'><instance name='water'/></plugin>\n",
        "    <gyro name='g' site='imu'/>\n" + Element("dvl") + Element("depth")));
    const mjModel* m = sim->model();
    const mjData* d = sim->data();
    const int dvl_instance = FindPluginInstances(m, kDvlPlugin).at(0);
    const std::optional<SensorMount> dvl = SensorMountOf(m, d, dvl_instance);
    REQUIRE(dvl);
    CHECK(dvl->plugin == kDvlPlugin);
    CHECK(dvl->site == mj_name2id(m, mjOBJ_SITE, "dvl"));
    CHECK(dvl->sensor == 1);  // after the gyro
    CHECK(dvl->period == doctest::Approx(0.25));
    CHECK(dvl->latency == doctest::Approx(0.05));
    CHECK(dvl->max_altitude == 40);
    REQUIRE(dvl->beams.size() == 4);
    for (const Vec3& beam : dvl->beams) {
      CHECK(beam.norm() == doctest::Approx(1).epsilon(1e-12));
      CHECK(beam.z() == doctest::Approx(std::cos(30 * kDeg)).epsilon(1e-12));  // from the boresight +z
    }
    // another sensor: its own element and site, no beams
    const std::optional<SensorMount> depth = SensorMountOf(m, d, FindPluginInstances(m, kPressurePlugin).at(0));
    REQUIRE(depth);
    CHECK(depth->plugin == kPressurePlugin);
    CHECK(depth->sensor == 2);
    CHECK(depth->site == mj_name2id(m, mjOBJ_SITE, "imu"));
    CHECK(depth->beams.empty());
    // not a sensor, or no instance of that index
    CHECK_FALSE(SensorMountOf(m, d, FindPluginInstances(m, kCurrentPlugin).at(0)));
    CHECK_FALSE(SensorMountOf(m, d, -1));
    CHECK_FALSE(SensorMountOf(m, d, static_cast<int>(m->nplugin)));
  }
}

// ---- bad input -----------------------------------------------------------------------------

std::string LoadFailure(const std::string& xml) {
  try {
    Simulation::LoadString(xml, {}, "vehicle.xml");
  } catch (const ConfigError& e) {
    return e.what();
  } catch (const Error& e) {
    FAIL("unexpected exception type: " << std::string(e.what()));
  }
  FAIL("the model loaded");
  return "";
}

std::string DvlError(const std::string& config, const std::string& attributes = "") {
  return LoadFailure(Model(Instance("dvl", "dvl", "dvl", config), Element("dvl", attributes)));
}

TEST_SUITE("sensor_errors") {
  TEST_CASE("a DVL without beams, or with beam angles outside (0, 90) degrees") {
    const std::string none = DvlError(Config("beams", "0"));
    CHECK(none.find("vehicle.xml") != std::string::npos);
    CHECK(none.find("nereid.dvl instance 'dvl': key 'beams' = '0': a DVL has 3 or 4 beams") != std::string::npos);
    CHECK(DvlError(Config("beam_angle", "0")).find("key 'beam_angle' = '0': must be in (0, 90) degrees") !=
          std::string::npos);
    CHECK(DvlError(Config("beam_angle", "90")).find("key 'beam_angle' = '90'") != std::string::npos);
    CHECK(DvlError(Config("beam_angle", "-10")).find("key 'beam_angle' = '-10'") != std::string::npos);
  }
  TEST_CASE("negative noise") {
    CHECK(DvlError(Config("velocity_noise", "-0.1")).find("key 'velocity_noise' = '-0.1': must be >= 0") !=
          std::string::npos);
    CHECK(LoadFailure(Model(Instance("pressure", "baro", "imu", Config("noise", "-1")), Element("baro")))
              .find("nereid.pressure instance 'baro': key 'noise' = '-1': must be >= 0") != std::string::npos);
    CHECK(LoadFailure(Model(Instance("imu", "imu", "imu", Config("gyro_noise_density", "-1e-3")), Element("imu")))
              .find("nereid.imu instance 'imu': key 'gyro_noise_density' = '-1e-3': must be >= 0") !=
          std::string::npos);
  }
  TEST_CASE("a marker camera without its marker, on its own body, or with angles, ranges or noise out of range") {
    auto error = [](const std::string& config) {
      return LoadFailure(Model(Instance("marker", "cam", "cam", config), Element("cam"), 0.005, true,
                               "    <body name='dock' pos='0 0 -8'><site name='cam'/></body>\n"));
    };
    CHECK(error("").find("nereid.marker instance 'cam': missing required key 'marker'") != std::string::npos);
    CHECK(error(Config("marker", "beacon")).find("key 'marker' = 'beacon': no site of that name in the model") !=
          std::string::npos);
    CHECK(LoadFailure(Model(Instance("marker", "cam", "imu", Config("marker", "dvl")), Element("cam")))
              .find("key 'marker' = 'dvl': is on the camera's own body") != std::string::npos);
    CHECK(error(Config("marker", "dvl") + Config("fov", "0")).find("key 'fov' = '0': must be in (0, 90] degrees") !=
          std::string::npos);
    CHECK(error(Config("marker", "dvl") + Config("fov", "120")).find("key 'fov' = '120'") != std::string::npos);
    CHECK(error(Config("marker", "dvl") + Config("max_view_angle", "-5")).find("key 'max_view_angle' = '-5'") !=
          std::string::npos);
    CHECK(error(Config("marker", "dvl") + Config("max_range", "0.01"))
              .find("key 'max_range' = '0.01': must be > min_range") != std::string::npos);
    CHECK(error(Config("marker", "dvl") + Config("position_noise", "-0.01"))
              .find("key 'position_noise' = '-0.01': must be >= 0") != std::string::npos);
    CHECK(error(Config("marker", "dvl") + Config("angle_noise", "nan")).find("key 'angle_noise' = 'nan'") !=
          std::string::npos);
  }
  TEST_CASE("a rate above the physics rate") {
    CHECK(DvlError(Config("rate", "500")).find("key 'rate' = '500': is above the physics rate 1/timestep = 200 Hz") !=
          std::string::npos);
    CHECK(DvlError(Config("rate", "0")).find("key 'rate' = '0': must be > 0") != std::string::npos);
  }
  TEST_CASE("a sensor on a site that does not exist, or with no sensor element") {
    CHECK(LoadFailure(Model(Instance("imu", "imu", "mast"), Element("imu")))
              .find("nereid.imu instance 'imu': key 'site' = 'mast': no site of that name in the model") !=
          std::string::npos);
    CHECK(LoadFailure(Model(Instance("imu", "imu", "imu"), "")).find("no sensor element refers to it") !=
          std::string::npos);
  }
  TEST_CASE("MuJoCo's delay, interval and noise on a Nereid sensor are refused") {
    // MJCF has no such attributes on <sensor><plugin>: MuJoCo's parser names them
    for (const char* attribute : {"noise='0.1'", "delay='0.1' nsample='10'", "interval='0.1'"}) {
      CAPTURE(attribute);
      try {
        Simulation::LoadString(Model(Instance("dvl", "dvl", "dvl"), Element("dvl", attribute)), {}, "vehicle.xml");
        FAIL("the model loaded");
      } catch (const LoadError& e) {
        CHECK(std::string(e.what()).find("unrecognized attribute") != std::string::npos);
      }
    }
    // set through an mjSpec edit in Nereid's loading (SimulationOptions::edit): refused
    // before the compile, naming
    // the file, the plugin instance, the sensor, the attribute and its value
    struct Field {
      const char* attribute;
      void (*set)(mjsSensor*);
      const char* expected;
    };
    const Field fields[] = {
        {"noise", [](mjsSensor* s) { s->noise = 0.1; },
         "vehicle.xml: nereid.dvl instance 'dvl': sensor 'dvl' sets MuJoCo's noise=\"0.1\"; Nereid's sensors take "
         "their noise from the plugin's own keys"},
        {"delay", [](mjsSensor* s) { s->delay = 0.25, s->nsample = 100; },
         "vehicle.xml: nereid.dvl instance 'dvl': sensor 'dvl' sets MuJoCo's delay=\"0.25\"; Nereid's sensors take "
         "their latency"},
        {"interval", [](mjsSensor* s) { s->interval[0] = 0.5; },
         "vehicle.xml: nereid.dvl instance 'dvl': sensor 'dvl' sets MuJoCo's interval=\"0.5\"; Nereid's sensors "
         "take their rate"}};
    const std::string xml = Model(Instance("dvl", "dvl", "dvl"), Element("dvl"));
    for (const Field& f : fields) {
      CAPTURE(f.attribute);
      SimulationOptions options;
      options.edit = [&](mjSpec* spec) {
        mjsSensor* sensor = mjs_asSensor(mjs_findElement(spec, mjOBJ_SENSOR, "dvl"));
        REQUIRE(sensor);
        f.set(sensor);
      };
      CHECK_THROWS_WITH_AS(Simulation::LoadString(xml, options, "vehicle.xml"), doctest::Contains(f.expected),
                           ConfigError);
    }
    CHECK_NOTHROW(Simulation::LoadString(xml, {}, "vehicle.xml"));
    // stock MuJoCo's compiler (no Nereid loading in front): the plugin itself refuses noise
    // and interval when it starts (a delay is left out here: MuJoCo 3.14's compiler then
    // frees the sensor's history twice, CheckSensorSpecs)
    for (const Field& f : {fields[0], fields[2]}) {
      CAPTURE(f.attribute);
      char error[1024] = "";
      mjSpec* spec = mj_parseXMLString(xml.c_str(), nullptr, error, sizeof(error));
      REQUIRE(spec);
      f.set(mjs_asSensor(mjs_findElement(spec, mjOBJ_SENSOR, "dvl")));
      mjModel* m = nullptr;
      {
        EngineScope scope;  // keep the plugin's message instead of printing it
        m = mj_compile(spec, nullptr);
      }
      CHECK(m == nullptr);
      if (m) mj_deleteModel(m);
      const std::string message = TakeLastPluginError();
      MESSAGE(message);
      CHECK(message.find(std::string(f.expected).substr(std::string("vehicle.xml: ").size())) != std::string::npos);
      mj_deleteSpec(spec);
    }
  }
}

}  // namespace
}  // namespace nereid
