// Copyright Nereid authors.
// The navigation filter (include/nereid/navigation.h, physics/navigation.cc) and its use on a
// model's sensors (include/nereid/navigator.h): its helper functions against closed forms
// and finite differences, dead reckoning's random walk against sigma_v sqrt(T t), the
// estimate against the truth with exact sensors. Its consistency (NEES) on whole runs is
// checked by nereid validate (tools/validate_navigation.py): too long for a ctest.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <memory>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "nereid/error.h"
#include "nereid/navigation.h"
#include "nereid/navigator.h"
#include "nereid/plugins.h"
#include "nereid/runner.h"
#include "nereid/sensors.h"
#include "nereid/simulation.h"
#include "test_util.h"

namespace nereid {
namespace {

using nav::ErrorStateKf;
using nav::MatN;
using nav::NavState;

// chi-square quantile by the Wilson-Hilferty approximation (relative error < 1e-3 for k > 50)
double ChiSquareQuantile(double k, double z) {
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1 - a + z * std::sqrt(a), 3);
}

TEST_SUITE("navigation") {
  TEST_CASE("quaternion exponential and logarithm, heading Jacobian, fix and DVL covariances") {
    const Vec3 theta(0.3, -0.2, 0.9);
    CHECK((nav::LogQuat(nav::ExpQuat(theta)) - theta).norm() < 1e-14);
    CHECK((nav::ExpQuat(theta).toRotationMatrix() - Eigen::AngleAxisd(theta.norm(), theta.normalized()).toRotationMatrix()).norm() < 1e-14);
    CHECK((nav::LogQuat(nav::ExpQuat(Vec3(1e-10, 0, 0))) - Vec3(1e-10, 0, 0)).norm() < 1e-22);
    // heading Jacobian: central differences of Heading(R Exp(δθ))
    const Mat3 R = nav::ExpQuat(Vec3(0.2, -0.3, 2.5)).toRotationMatrix();
    const Eigen::RowVector3d J = nav::HeadingJacobian(R);
    for (int i = 0; i < 3; ++i) {
      Vec3 e = Vec3::Zero();
      e[i] = 1e-6;
      const double num = std::remainder(nav::Heading(R * nav::ExpQuat(e).toRotationMatrix()) -
                                            nav::Heading(R * nav::ExpQuat(-e).toRotationMatrix()), 2 * M_PI) / 2e-6;
      CHECK(J[i] == doctest::Approx(num).epsilon(1e-7));
    }
    // a fix at range 10 straight below: the range's variance vertical, the angles' horizontal
    const Mat3 C = nav::SphericalFixCovariance(10, 0.0, -M_PI / 2, 0.1, 0.035);
    CHECK(C(2, 2) == doctest::Approx(0.01).epsilon(1e-12));
    CHECK(C(0, 0) == doctest::Approx(0.35 * 0.35).epsilon(1e-12));
    // four Janus beams at angle a: sigma_x^2 = 1/(2 sin^2 a), sigma_z^2 = 1/(4 cos^2 a) per unit beam variance
    const double a = 22.5 * M_PI / 180;
    const Mat3 G = nav::DvlGeometry(sensors::JanusBeams(4, a, M_PI / 4));
    CHECK(G(0, 0) == doctest::Approx(1 / (2 * std::sin(a) * std::sin(a))).epsilon(1e-12));
    CHECK(G(2, 2) == doctest::Approx(1 / (4 * std::cos(a) * std::cos(a))).epsilon(1e-12));
  }

  // Three filters over the same IMU readings and aiding measurements, one position fix
  // sampled at step kSample: A updates with it at once (no latency: the reference), B clones
  // the pose then and takes the fix kLatency steps later through the clone, C takes it late
  // without a clone (the buffered state's innovation with the present covariance).
  struct DelayedFixRun {
    NavState a, b, c;
    MatN Pa, Pb, Pc;
    int clones_after = -1;
  };
  DelayedFixRun RunDelayedFix(bool linear) {
    nav::ImuNoise imu;
    imu.accel_density = 2e-3;
    imu.period = 0.01;
    if (!linear) imu.accel_walk = 1e-3, imu.gyro_density = 1e-3, imu.gyro_walk = 1e-4;
    MatN P0 = MatN::Zero();
    for (int i = 0; i < 3; ++i) {
      P0(nav::kP + i, nav::kP + i) = 0.05 * 0.05;
      P0(nav::kV + i, nav::kV + i) = 0.02 * 0.02;
      // linear: no attitude or bias uncertainty and no rate, so that the attitude and the
      // biases stay exactly as they start and the filter is a linear Kalman filter in (p, v)
      // whose transition is the nominal state's exactly (the error state's F is first order:
      // it leaves out a bias error's h²/2 in the position)
      if (!linear) {
        P0(nav::kBa + i, nav::kBa + i) = 0.05 * 0.05;
        P0(nav::kTheta + i, nav::kTheta + i) = 0.01 * 0.01;
        P0(nav::kBg + i, nav::kBg + i) = 1e-6;
      }
    }
    NavState x0;
    x0.p = Vec3(1, -2, -3);
    x0.q = linear ? Eigen::Quaterniond::Identity() : nav::ExpQuat(Vec3(0.1, -0.05, 0.7));
    const Vec3 g(0, 0, -9.81);
    ErrorStateKf A(x0, P0, imu, g), B(x0, P0, imu, g), C(x0, P0, imu, g);
    std::mt19937 rng(5);
    std::normal_distribution<double> n01;
    constexpr int kSample = 20, kLatency = 60, kSteps = 120;
    constexpr double h = 0.005;
    const Vec3 r_fix(0.1, -0.2, 0.3), r_depth(0, 0, 0.1);
    Mat3 fix_cov = Mat3::Identity() * 0.02 * 0.02;
    fix_cov(0, 1) = fix_cov(1, 0) = 1e-4;
    const Vec3 fix(1.05, -1.97, -3.02);
    double t_sample = 0;
    DelayedFixRun out;
    for (int k = 0; k < kSteps; ++k) {
      const double t = A.state().time;
      if (k % 10 == 5) {  // a velocity and a depth measurement, the same for the three
        const Vec3 v(0.01 * n01(rng), 0.02 + 0.01 * n01(rng), 0.01 * n01(rng));
        const Vec3 w = linear ? Vec3::Zero() : Vec3(0.01, -0.02, 0.05);
        const double depth = 3 + 0.01 * n01(rng);
        for (ErrorStateKf* f : {&A, &B, &C}) {
          f->UpdateVelocity(v, Mat3::Identity(), Vec3::Zero(), w, Mat3::Identity() * 1e-4);
          f->UpdateDepth(depth, r_depth, 1e-4);
        }
      }
      if (k == kSample) {
        t_sample = t;
        A.UpdatePosition(fix, r_fix, fix_cov, t);
        B.ClonePose(t);
      }
      if (k == kSample + kLatency) {
        B.UpdatePosition(fix, r_fix, fix_cov, t_sample);
        C.UpdatePosition(fix, r_fix, fix_cov, t_sample);
        out.clones_after = B.clones();
      }
      const Vec3 f(0.02 + 0.01 * n01(rng), -0.01, 9.81 + 0.01 * n01(rng));
      const Vec3 w = linear ? Vec3::Zero() : Vec3(0.01, -0.02, 0.05);
      for (ErrorStateKf* filter : {&A, &B, &C}) filter->Propagate(f, w, h);
    }
    out.a = A.state(), out.b = B.state(), out.c = C.state();
    out.Pa = A.covariance(), out.Pb = B.covariance(), out.Pc = C.covariance();
    return out;
  }

  TEST_CASE("a delayed fix through its clone equals the update at its sample time carried forward (linear case)") {
    const DelayedFixRun r = RunDelayedFix(true);
    CHECK(r.clones_after == 0);
    CHECK(r.b.q.coeffs() == r.a.q.coeffs());  // the attitude never moved
    // B against the reference A: the same Kalman filter up to rounding
    CHECK((r.b.p - r.a.p).norm() < 1e-12);
    CHECK((r.b.v - r.a.v).norm() < 1e-12);
    CHECK(r.b.ba == r.a.ba);
    CHECK((r.Pb - r.Pa).norm() < 1e-12 * r.Pa.norm());
    // C, without the cross covariance, is not (the test would pass it otherwise)
    MESSAGE("position after the fix, clone / approximation vs reference: " << (r.b.p - r.a.p).norm() << " / "
            << (r.c.p - r.a.p).norm() << " m; covariance " << (r.Pb - r.Pa).norm() / r.Pa.norm() << " / "
            << (r.Pc - r.Pa).norm() / r.Pa.norm());
    CHECK((r.c.p - r.a.p).norm() > 1e-4);
    CHECK((r.Pc - r.Pa).norm() > 1e-3 * r.Pa.norm());
  }

  TEST_CASE("a delayed fix through its clone, rotating and with attitude error: close to the update at its sample time") {
    // nonlinear: the reference relinearises after the fix, the clone before it; both are
    // first-order, so they differ by second-order terms, far less than the approximation
    const DelayedFixRun r = RunDelayedFix(false);
    CHECK(r.clones_after == 0);
    const double clone = (r.b.p - r.a.p).norm(), approximation = (r.c.p - r.a.p).norm();
    const double clone_P = (r.Pb - r.Pa).norm() / r.Pa.norm(), approximation_P = (r.Pc - r.Pa).norm() / r.Pa.norm();
    MESSAGE("position vs reference: clone " << clone << " m, approximation " << approximation
            << " m; covariance (relative) " << clone_P << ", " << approximation_P);
    CHECK(clone < 0.05 * approximation);
    CHECK(clone_P < approximation_P);
  }

  TEST_CASE("water track: with position fixes the current is estimated; without, it is known as well as the velocity") {
    // a vehicle at constant world velocity v in a current c, level and heading north, with
    // an exact IMU; the DVL's water track measures v - c (DVL frame = IMU frame, no lever
    // arm) at 4 Hz with 3 mm/s noise, the depth at 25 Hz, and (in the first filter only) a
    // position fix every second with 5 cm noise. The filter starts at the true state but
    // with the current unknown (0, 0.5 m/s standard deviation).
    const Vec3 v(0.3, 0.1, 0.0), current(0.2, -0.15, 0.05), g(0, 0, -9.81);
    nav::ImuNoise imu;
    imu.accel_density = 1e-4;
    imu.gyro_density = 1e-5;
    MatN P0 = MatN::Zero();
    for (int i = 0; i < 3; ++i) {
      P0(nav::kP + i, nav::kP + i) = 0.01 * 0.01;
      P0(nav::kV + i, nav::kV + i) = 0.01 * 0.01;
      P0(nav::kTheta + i, nav::kTheta + i) = 1e-6;
      P0(nav::kBa + i, nav::kBa + i) = 1e-6;
      P0(nav::kBg + i, nav::kBg + i) = 1e-10;
      P0(nav::kC + i, nav::kC + i) = 0.5 * 0.5;
    }
    NavState x0;
    x0.v = v;
    x0.p = Vec3(0, 0, -5);
    ErrorStateKf with_fixes(x0, P0, imu, g, 1e-4), without(x0, P0, imu, g, 1e-4);
    std::mt19937 rng(9);
    std::normal_distribution<double> n01;
    const double h = 0.01;
    for (int k = 0; k < 12000; ++k) {  // 120 s
      const double t = k * h;
      const Vec3 p = x0.p + v * t;
      for (ErrorStateKf* f : {&with_fixes, &without}) {
        if (k % 25 == 0) {
          const Vec3 z = v - current + 0.003 * Vec3(n01(rng), n01(rng), n01(rng));
          CHECK(f->UpdateWaterVelocity(z, Mat3::Identity(), Vec3::Zero(), Vec3::Zero(), Mat3::Identity() * 9e-6) >= 0);
        }
        if (k % 4 == 0) f->UpdateDepth(-p.z() + 0.005 * n01(rng), Vec3::Zero(), 0.005 * 0.005);
        if (f == &with_fixes && k % 100 == 50) {
          const Vec3 fix = p + 0.05 * Vec3(n01(rng), n01(rng), n01(rng));
          f->UpdatePosition(fix, Vec3::Zero(), Mat3::Identity() * 0.05 * 0.05, f->state().time);
        }
        f->Propagate(-g, Vec3::Zero(), h);
      }
    }
    const Vec3 error = with_fixes.state().c - current;
    const Mat3 Pc = with_fixes.covariance().block<3, 3>(nav::kC, nav::kC);
    MESSAGE("water track with fixes, 120 s: current error " << error.transpose() << " m/s, filter sd "
            << Pc.diagonal().cwiseSqrt().transpose() << "; velocity error "
            << (with_fixes.state().v - v).norm() << " m/s");
    // the horizontal current within 4 of the filter's own standard deviations, and those small
    for (int i = 0; i < 3; ++i) CHECK(std::abs(error[i]) < 4 * std::sqrt(Pc(i, i)));
    CHECK(std::sqrt(Pc(0, 0)) < 0.01);
    CHECK(std::sqrt(Pc(1, 1)) < 0.01);
    CHECK((with_fixes.state().v - v).norm() < 0.03);
    // without fixes (nor bottom lock) the water track gives v - c only: the horizontal
    // current is known no better than the velocity, whose error the exact IMU carries from
    // the start (0.01 m/s); the vertical one follows the depth. The estimate stays
    // consistent with its (larger) uncertainty.
    const MatN& P = without.covariance();
    const Vec3 error_without = without.state().c - current;
    for (int i = 0; i < 2; ++i) {
      CHECK(std::sqrt(P(nav::kC + i, nav::kC + i)) > 0.009);
      CHECK(std::sqrt(P(nav::kC + i, nav::kC + i)) > 10 * std::sqrt(Pc(i, i)));
      CHECK(std::abs(error_without[i]) < 4 * std::sqrt(P(nav::kC + i, nav::kC + i)));
    }
    CHECK(std::sqrt(P(nav::kC + 2, nav::kC + 2)) < 0.005);
  }

  TEST_CASE("pending clones are bounded; a fix without its clone falls back; DropClone drops older ones") {
    nav::ImuNoise imu;
    imu.accel_density = 2e-3;
    MatN P0 = MatN::Identity() * 1e-3;
    ErrorStateKf f(NavState{}, P0, imu, Vec3(0, 0, -9.81));
    for (int k = 0; k < ErrorStateKf::kMaxClones + 5; ++k) {
      f.ClonePose(0.01 * k);
      f.Propagate(Vec3(0, 0, 9.81), Vec3::Zero(), 0.01);
    }
    CHECK(f.clones() == ErrorStateKf::kMaxClones);
    // the oldest five went: a fix sampled at 0.02 s has no clone, updates all the same and
    // drops nothing newer
    CHECK(f.UpdatePosition(Vec3(0.01, 0, 0), Vec3::Zero(), Mat3::Identity() * 1e-4, 0.02) >= 0);
    CHECK(f.clones() == ErrorStateKf::kMaxClones);
    // the fix of 0.10 s consumes its clone and the older ones
    CHECK(f.UpdatePosition(Vec3(0.01, 0, 0), Vec3::Zero(), Mat3::Identity() * 1e-4, 0.10) >= 0);
    CHECK(f.clones() == ErrorStateKf::kMaxClones + 5 - 11);
    f.DropClone(0.15);
    CHECK(f.clones() == ErrorStateKf::kMaxClones + 5 - 16);
    // the covariance stays symmetric and positive definite through it all
    CHECK((f.covariance() - f.covariance().transpose()).norm() == 0.0);
    CHECK(Eigen::LLT<MatN>(f.covariance()).info() == Eigen::Success);
  }

  TEST_CASE("dead reckoning: the horizontal error is a random walk sigma_v sqrt(T t)") {
    // A vehicle at rest: IMU (50 Hz, its noise), DVL velocity with white noise sigma_v per
    // axis at T = 0.25 s, depth and heading; no position fix. The filter's velocity error
    // passes the DVL noise at zero frequency with gain 1, so each horizontal axis's
    // position error has variance sigma_v^2 T t. 40 seeded runs of 100 s, 2 axes each:
    // 80 samples of the error at t = 100 s; their mean square / (sigma_v^2 T t) must lie
    // in the chi-square(80) 95 % interval [0.71, 1.32].
    nav::ImuNoise imu;
    imu.accel_density = 9.8e-4, imu.accel_walk = 1e-4, imu.gyro_density = 7e-5, imu.gyro_walk = 1e-5;
    imu.period = 0.02;
    const double sigma_v = 0.002, T = 0.25, t_end = 100, sigma_heading = 0.0175, sigma_depth = 0.002;
    const Vec3 g(0, 0, -9.81);
    const int runs = 40;
    double sum_sq = 0;
    int samples = 0;
    for (int run = 0; run < runs; ++run) {
      std::mt19937_64 rng(1000 + run);
      std::normal_distribution<double> n(0, 1);
      MatN P0 = MatN::Zero();
      P0.diagonal() << Vec3::Constant(1e-8), Vec3::Constant(1e-6), Vec3::Constant(1e-6), Vec3::Constant(1e-4),
          Vec3::Constant(1e-8), Vec3::Constant(0.25);  // the current: no water track reads it
      NavState x0;
      x0.p = Vec3(0, 0, -5);
      ErrorStateKf kf(x0, P0, imu, g);
      const int steps = static_cast<int>(std::lround(t_end / imu.period));
      const int per_dvl = static_cast<int>(std::lround(T / imu.period));
      const double sa = imu.accel_density / std::sqrt(imu.period), sg = imu.gyro_density / std::sqrt(imu.period);
      for (int k = 0; k < steps; ++k) {
        if (k % per_dvl == 0 && k > 0) {
          const Vec3 v(sigma_v * n(rng), sigma_v * n(rng), sigma_v * n(rng));
          kf.UpdateVelocity(v, Mat3::Identity(), Vec3::Zero(), Vec3::Zero(), sigma_v * sigma_v * Mat3::Identity());
          kf.UpdateDepth(5 + sigma_depth * n(rng), Vec3::Zero(), sigma_depth * sigma_depth);
          kf.UpdateHeading(sigma_heading * n(rng), sigma_heading * sigma_heading);
        }
        const Vec3 f = Vec3(0, 0, 9.81) + sa * Vec3(n(rng), n(rng), n(rng));
        const Vec3 w = sg * Vec3(n(rng), n(rng), n(rng));
        kf.Propagate(f, w, imu.period);
      }
      const Vec3 e = kf.state().p - x0.p;
      sum_sq += e.x() * e.x() + e.y() * e.y();
      samples += 2;
      // the filter's own variance agrees with the closed form
      CHECK(kf.covariance()(0, 0) == doctest::Approx(nav::DeadReckoningSigma(sigma_v, T, t_end) *
                                                      nav::DeadReckoningSigma(sigma_v, T, t_end)).epsilon(0.1));
    }
    const double expected = std::pow(nav::DeadReckoningSigma(sigma_v, T, t_end), 2);
    const double ratio = sum_sq / samples / expected;
    MESSAGE("dead reckoning: mean square horizontal error / (sigma_v^2 T t) = " << ratio);
    CHECK(ratio > ChiSquareQuantile(samples, -1.959964) / samples);
    CHECK(ratio < ChiSquareQuantile(samples, 1.959964) / samples);
  }
}

// Runs a scenario as nereid run does (ScenarioControl before every step) for `seconds`,
// with the run's sensor seed; calls check(navigator, d) every `every` steps, right after
// the navigator's update (the estimate and d at the same time).
template <class F>
void FlyScenario(const std::string& file, double seconds, uint64_t seed, int every, F&& check) {
  ResolvedInput input = ResolveInput(file);
  input.scenario->seed = seed;
  auto sim = Simulation::LoadFile(input.model, input.options);
  input.scenario->Apply(*sim);
  ScenarioControl control(*input.scenario, *sim);
  REQUIRE(control.navigator());
  const mjModel* m = sim->model();
  const mjData* d = sim->data();
  const long steps = std::lround(seconds / m->opt.timestep);
  for (long k = 0; k < steps; ++k) {
    control.BeforeStep();
    if (k % every == 0 && k > 0) check(*control.navigator(), d);
    sim->Step();
  }
}

// seed 002's zig-zag flown by the PID on the estimate (the Raybot with raybot_nav.xml)
const std::string kQuayWall = test::ModelPath("../scenarios/sensors/raybot_quay_wall_estimate.json");

TEST_SUITE("navigation") {
  TEST_CASE("exact sensors: the estimate tracks the truth") {
    setenv("NEREID_EXACT_SENSORS", "1", 1);
    double max_p = 0, max_v = 0, max_r = 0;
    FlyScenario(kQuayWall, 30, 0, 20, [&](const Navigator& nav, const mjData* d) {
      std::vector<double> row;
      nav.EstRow(d, &row);  // est.* columns: 10 estimates, then errors of p, v, attitude
      max_p = std::max(max_p, Vec3(row[10], row[11], row[12]).norm());
      max_v = std::max(max_v, Vec3(row[13], row[14], row[15]).norm());
      max_r = std::max(max_r, Vec3(row[16], row[17], row[18]).norm());
    });
    unsetenv("NEREID_EXACT_SENSORS");
    MESSAGE("exact sensors, zig-zag on the estimate, 30 s: max |error| position " << max_p << " m, velocity " << max_v << " m/s, attitude "
                                                          << max_r << " rad");
    CHECK(max_p < 5e-3);
    CHECK(max_v < 5e-3);
    CHECK(max_r < 2e-3);
  }

  TEST_CASE("docs/outputs.md names every est.* column") {
    std::ifstream in(test::ModelPath("../docs/outputs.md"));
    REQUIRE(in.good());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const std::string& c : Navigator::EstColumns()) {
      INFO(c);
      CHECK(text.find("`" + c + "`") != std::string::npos);
    }
  }

  TEST_CASE("a body without the sensors the filter needs is refused, naming the sensor") {
    auto sim = Simulation::LoadFile(test::ModelPath("bluerov2_heavy/bluerov2_heavy.xml"));
    const int body = mj_name2id(sim->model(), mjOBJ_BODY, "heavy");
    CHECK_THROWS_WITH_AS(Navigator(sim->model(), sim->data(), body, NavigationSettings{}, "s.json", "heavy.xml"),
                         doctest::Contains("s.json: \"feedback\": \"estimate\" needs a nereid.imu sensor"), ConfigError);
  }
}

}  // namespace
}  // namespace nereid
