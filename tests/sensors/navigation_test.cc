// Copyright Nereid authors.
// The navigation filter (include/nereid/navigation.h, physics/navigation.cc) and its use on a
// model's sensors (include/nereid/navigator.h): its helper functions against closed forms
// and finite differences, dead reckoning's random walk against sigma_v sqrt(T t), the
// estimate against the truth with exact sensors. Its consistency (NEES) on whole runs is
// checked by nereid validate (tools/validate_navigation.py): too long for a ctest.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/navigation.h"
#include "nereid/navigator.h"
#include "nereid/plugins.h"
#include "nereid/runner.h"
#include "nereid/scenario.h"
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

  // The augmented filter written out whole: one (kN + 6n)-state Kalman filter over the
  // state's error and the clones', each operation on the full matrix (the header's F, Q and
  // H; Joseph form; the reset G on the state's and every clone's attitude), against which
  // ErrorStateKf's blocks (P, X, Y) are compared.
  struct AugmentedReference {
    Eigen::MatrixXd P;
    int n() const { return static_cast<int>((P.rows() - nav::kN) / 6); }
    Eigen::Index clone(int c) const { return nav::kN + 6 * c; }
    Eigen::VectorXd Update(const Eigen::MatrixXd& H, const Eigen::VectorXd& y, const Eigen::MatrixXd& R) {
      const Eigen::MatrixXd S = H * P * H.transpose() + R;
      const Eigen::MatrixXd K = P * H.transpose() * S.inverse();
      const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(P.rows(), P.rows());
      P = (I - K * H) * P * (I - K * H).transpose() + K * R * K.transpose();
      const Eigen::VectorXd dx = K * y;
      Eigen::MatrixXd G = I;
      G.block<3, 3>(nav::kTheta, nav::kTheta) -= nav::Skew(0.5 * dx.segment<3>(nav::kTheta));
      for (int c = 0; c < n(); ++c) G.block<3, 3>(clone(c) + 3, clone(c) + 3) -= nav::Skew(0.5 * dx.segment<3>(clone(c) + 3));
      P = G * P * G.transpose();
      return dx;
    }
    void Remove(int c) {  // the rows and columns of clone c out
      std::vector<Eigen::Index> keep;
      for (Eigen::Index i = 0; i < P.rows(); ++i) {
        if (i < clone(c) || i >= clone(c) + 6) keep.push_back(i);
      }
      P = P(keep, keep).eval();
    }
  };

  TEST_CASE("clones: the filter's blocks equal the augmented filter written out whole, over 3000 random operations") {
    // propagation with rotation and attitude error, depth, heading and DVL updates, clones
    // (up to the limit), fixes through any pending clone, dropped clones; several clones
    // pending at once. Rounding only: 1e-9 relative at every operation.
    std::mt19937 rng(3);
    std::normal_distribution<double> n01;
    std::uniform_real_distribution<double> u01;
    nav::ImuNoise imu;
    imu.accel_density = 2e-3, imu.accel_walk = 1e-3, imu.gyro_density = 1e-3, imu.gyro_walk = 1e-4;
    MatN P0 = MatN::Zero();
    for (int i = 0; i < 3; ++i) {
      P0(nav::kP + i, nav::kP + i) = 0.25, P0(nav::kV + i, nav::kV + i) = 0.01, P0(nav::kTheta + i, nav::kTheta + i) = 0.01;
      P0(nav::kBa + i, nav::kBa + i) = 2.5e-3, P0(nav::kBg + i, nav::kBg + i) = 1e-4, P0(nav::kC + i, nav::kC + i) = 0.04;
    }
    NavState x0;
    x0.p = Vec3(1, -2, -3);
    x0.q = nav::ExpQuat(Vec3(0.3, -0.2, 1.1));
    const Vec3 g(0, 0, -9.81);
    const double current_walk = 1e-3;
    ErrorStateKf kf(x0, P0, imu, g, current_walk);
    AugmentedReference ref{P0};
    double worst = 0;
    int max_pending = 0, fixes = 0;
    for (int k = 0; k < 3000; ++k) {
      const double r = u01(rng);
      const Mat3 R = kf.state().q.toRotationMatrix();
      const auto N = ref.P.rows();
      if (r < 0.35) {  // propagation (the header's F and Q)
        const Vec3 f(0.3 * n01(rng), 0.3 * n01(rng), 9.81 + 0.3 * n01(rng)), w(0.2 * n01(rng), 0.2 * n01(rng), 0.3 * n01(rng));
        const double h = 0.01;
        Eigen::MatrixXd F = Eigen::MatrixXd::Identity(N, N), Q = Eigen::MatrixXd::Zero(N, N);
        F.block<3, 3>(nav::kP, nav::kV) = Mat3::Identity() * h;
        F.block<3, 3>(nav::kV, nav::kTheta) = -R * nav::Skew(f - kf.state().ba) * h;
        F.block<3, 3>(nav::kV, nav::kBa) = -R * h;
        F.block<3, 3>(nav::kTheta, nav::kTheta) = nav::ExpQuat((w - kf.state().bg) * h).toRotationMatrix().transpose();
        F.block<3, 3>(nav::kTheta, nav::kBg) = -Mat3::Identity() * h;
        for (int i = 0; i < 3; ++i) {
          Q(nav::kV + i, nav::kV + i) = imu.accel_density * imu.accel_density * h;
          Q(nav::kTheta + i, nav::kTheta + i) = imu.gyro_density * imu.gyro_density * h;
          Q(nav::kBa + i, nav::kBa + i) = imu.accel_walk * imu.accel_walk * h;
          Q(nav::kBg + i, nav::kBg + i) = imu.gyro_walk * imu.gyro_walk * h;
          Q(nav::kC + i, nav::kC + i) = current_walk * current_walk * h;
        }
        ref.P = F * ref.P * F.transpose() + Q;
        kf.Propagate(f, w, h);
      } else if (r < 0.5) {  // depth of a point at r_p
        const Vec3 r_p(0.1, 0.2, -0.3);
        const double depth = -(kf.state().p + R * r_p).z() + 0.1 * n01(rng);
        Eigen::MatrixXd H = Eigen::MatrixXd::Zero(1, N);
        H(0, nav::kP + 2) = -1;
        H.block(0, nav::kTheta, 1, 3) = (R * nav::Skew(r_p)).row(2);
        ref.Update(H, Eigen::VectorXd::Constant(1, depth + (kf.state().p + R * r_p).z()), Eigen::MatrixXd::Constant(1, 1, 0.01));
        kf.UpdateDepth(depth, r_p, 0.01);
      } else if (r < 0.62) {  // heading
        const double heading = nav::Heading(R) + 0.05 * n01(rng);
        Eigen::MatrixXd H = Eigen::MatrixXd::Zero(1, N);
        H.block(0, nav::kTheta, 1, 3) = nav::HeadingJacobian(R);
        ref.Update(H, Eigen::VectorXd::Constant(1, WrapAngle(heading - nav::Heading(R))), Eigen::MatrixXd::Constant(1, 1, 0.0025));
        kf.UpdateHeading(heading, 0.0025);
      } else if (r < 0.75) {  // DVL, bottom lock or water track, with a mounting and a lever arm
        const bool water = u01(rng) < 0.5;
        const Mat3 C = nav::ExpQuat(Vec3(0.1, 0.2, 0.3)).toRotationMatrix();
        const Vec3 r_d(0.3, 0, 0.1), w(0.01, 0.02, -0.03);
        const Vec3 v_body = R.transpose() * (water ? Vec3(kf.state().v - kf.state().c) : kf.state().v);
        const Vec3 predicted = C.transpose() * (v_body + (w - kf.state().bg).cross(r_d));
        const Vec3 z = predicted + 0.05 * Vec3(n01(rng), n01(rng), n01(rng));
        Eigen::MatrixXd H = Eigen::MatrixXd::Zero(3, N);
        H.block(0, nav::kV, 3, 3) = C.transpose() * R.transpose();
        H.block(0, nav::kTheta, 3, 3) = C.transpose() * nav::Skew(v_body);
        H.block(0, nav::kBg, 3, 3) = C.transpose() * nav::Skew(r_d);
        if (water) H.block(0, nav::kC, 3, 3) = -C.transpose() * R.transpose();
        ref.Update(H, z - predicted, Mat3::Identity() * 0.0025);
        if (water) {
          kf.UpdateWaterVelocity(z, C, r_d, w, Mat3::Identity() * 0.0025);
        } else {
          kf.UpdateVelocity(z, C, r_d, w, Mat3::Identity() * 0.0025);
        }
      } else if (r < 0.87) {  // a clone (J selects δp and δθ), none beyond the limit
        if (ref.n() < ErrorStateKf::kMaxClones) {
          Eigen::MatrixXd T = Eigen::MatrixXd::Zero(N + 6, N);
          T.topLeftCorner(N, N).setIdentity();
          T.block(N, nav::kP, 3, 3).setIdentity();
          T.block(N + 3, nav::kTheta, 3, 3).setIdentity();
          ref.P = T * ref.P * T.transpose();
        }
        kf.ClonePose(kf.state().time + 1e-6 * k);
      } else if (r < 0.96 && ref.n() > 0) {  // a fix through any pending clone
        const int c = std::uniform_int_distribution<int>(0, ref.n() - 1)(rng);
        const Vec3 r_u(0.2, -0.1, 0.4);
        const Mat3 Rc = kf.clone_attitude(c).toRotationMatrix();
        const Vec3 predicted = kf.clone_position(c) + Rc * r_u;
        const Vec3 fix = predicted + 0.1 * Vec3(n01(rng), n01(rng), n01(rng));
        Mat3 cov = Mat3::Identity() * 0.01;
        cov(0, 1) = cov(1, 0) = 0.002;
        Eigen::MatrixXd H = Eigen::MatrixXd::Zero(3, N);
        H.block(0, ref.clone(c), 3, 3).setIdentity();
        H.block(0, ref.clone(c) + 3, 3, 3) = -Rc * nav::Skew(r_u);
        ref.Update(H, fix - predicted, cov);
        for (int i = 0; i <= c; ++i) ref.Remove(0);  // this clone and the older ones
        kf.UpdatePosition(fix, r_u, cov, kf.clone_time(c));
        ++fixes;
      } else if (ref.n() > 0) {  // an invalid fix drops its clone and the older ones
        const int c = std::uniform_int_distribution<int>(0, ref.n() - 1)(rng);
        const double t = kf.clone_time(c);
        for (int i = 0; i <= c; ++i) ref.Remove(0);
        kf.DropClone(t);
      }
      max_pending = std::max(max_pending, ref.n());
      REQUIRE(kf.clones() == ref.n());
      const double e = (kf.AugmentedCovariance() - ref.P).norm() / ref.P.norm();
      worst = std::max(worst, e);
      REQUIRE(e < 1e-9);
    }
    MESSAGE("augmented filter: worst relative difference " << worst << " over 3000 operations, " << fixes
            << " fixes, up to " << max_pending << " clones pending");
    CHECK(max_pending >= 8);
    CHECK(fixes >= 100);
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

  TEST_CASE("pending clones are bounded (a sample beyond them gets none); a fix without its clone falls back; DropClone drops older ones") {
    nav::ImuNoise imu;
    imu.accel_density = 2e-3;
    MatN P0 = MatN::Identity() * 1e-3;
    ErrorStateKf f(NavState{}, P0, imu, Vec3(0, 0, -9.81));
    for (int k = 0; k < ErrorStateKf::kMaxClones + 5; ++k) {
      f.ClonePose(0.01 * k);
      f.Propagate(Vec3(0, 0, 9.81), Vec3::Zero(), 0.01);
    }
    // the first 16 samples (0.00-0.15 s) keep their clones, the last five (0.16-0.20 s) got none
    CHECK(f.clones() == ErrorStateKf::kMaxClones);
    // the fix of 0.02 s consumes its clone and the older ones (0.00, 0.01)
    CHECK(f.UpdatePosition(Vec3(0.01, 0, 0), Vec3::Zero(), Mat3::Identity() * 1e-4, 0.02) >= 0);
    CHECK(f.clones() == ErrorStateKf::kMaxClones - 3);
    // a slot is free again: the next sample gets a clone
    f.ClonePose(0.21);
    CHECK(f.clones() == ErrorStateKf::kMaxClones - 2);
    f.DropClone(0.10);
    CHECK(f.clones() == ErrorStateKf::kMaxClones - 10);
    // the fix of 0.18 s had no clone: it updates all the same (the approximation) and drops
    // the older clones (0.11-0.15), not the newer one (0.21)
    CHECK(f.UpdatePosition(Vec3(0.01, 0, 0), Vec3::Zero(), Mat3::Identity() * 1e-4, 0.18) >= 0);
    CHECK(f.clones() == 1);
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
                                                      nav::DeadReckoningSigma(sigma_v, T, t_end)).epsilon(0.1).scale(0));
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

  TEST_CASE("stabilize on the estimate: the Heavy's depth hold brings it to its depth, read from its sensors") {
    // the Heavy with its suite, released 0.5 m above the held depth (5 m), its depth and
    // attitude holds reading the navigation filter (noisy sensors, seeded)
    const std::string file = (std::filesystem::temp_directory_path() /
                              ("nereid_stabilize_estimate_" + std::to_string(::getpid()) + ".json")).string();
    struct Remove {
      std::string path;
      ~Remove() { std::filesystem::remove(path); }
    } remove{file};
    const std::string model = test::ModelPath("bluerov2_heavy/bluerov2_heavy_sensors.xml");
    REQUIRE(model.find_first_of("\"\\") == std::string::npos);  // written into JSON as it is
    {
      std::ofstream out(file);
      out << R"({"model": ")" << model
          << R"(", "duration": 30, "dt": 0.005, "integrator": "rk4",
              "initial_state": {"bodies": {"heavy": {"position": [0, 0, -4.5], "quaternion": [1, 0, 0, 0]}}},
              "stabilize": [{"body": "heavy", "depth": 5}], "feedback": "estimate"})";
    }
    double depth = 0, estimated = 0, tilt = 0;
    FlyScenario(file, 30, 7, 200, [&](const Navigator& nav, const mjData* d) {
      const int b = nav.body();
      depth = -d->xpos[3 * b + 2];
      estimated = -nav.estimate().position.z();
      if (d->time > 20) tilt = std::max(tilt, std::acos(std::clamp(d->xmat[9 * b + 8], -1.0, 1.0)));
    });
    MESSAGE("stabilize on the estimate after 30 s: true depth " << depth << " m, estimated " << estimated
                                                               << " m; largest tilt after 20 s " << tilt << " rad");
    CHECK(std::abs(depth - 5) < 0.05);           // the hold's own steady error is about a centimetre
    CHECK(std::abs(estimated - depth) < 0.02);   // the Bar30's noise and resolution: millimetres
    CHECK(tilt < 0.05);
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
                         doctest::Contains("s.json: the navigation filter (\"feedback\": \"estimate\" or \"navigation\") "
                                           "needs a nereid.imu sensor"),
                         ConfigError);
  }

  TEST_CASE("without its acoustic fixes the filter needs a DVL: a body with IMU, depth and acoustic fix only is refused") {
    // one free body with the three sensors on sites of its own, no DVL
    const std::string xml =
        "<mujoco model='no_dvl'>\n"
        "  <extension>\n"
        "    <plugin plugin='nereid.imu'><instance name='imu'><config key='site' value='imu'/></instance></plugin>\n"
        "    <plugin plugin='nereid.pressure'><instance name='depth'><config key='site' value='depth'/></instance></plugin>\n"
        "    <plugin plugin='nereid.acoustic'><instance name='usbl'><config key='site' value='usbl'/></instance></plugin>\n"
        "  </extension>\n"
        "  <worldbody><body name='rov' pos='0 0 -5'><freejoint/>\n"
        "    <geom type='box' size='0.2 0.15 0.1' density='1000'/>\n"
        "    <site name='imu'/><site name='depth' pos='0.1 0 0'/><site name='usbl' pos='0 0 0.1'/>\n"
        "  </body></worldbody>\n"
        "  <sensor><plugin name='imu' instance='imu'/><plugin name='depth' instance='depth'/>"
        "<plugin name='usbl' instance='usbl'/></sensor>\n"
        "</mujoco>\n";
    auto sim = Simulation::LoadString(xml);
    const int body = mj_name2id(sim->model(), mjOBJ_BODY, "rov");
    REQUIRE(body > 0);
    NavigationSettings fixes;  // acoustic fixes on: IMU, depth and fixes suffice
    CHECK_NOTHROW(Navigator(sim->model(), sim->data(), body, fixes, "s.json", "no_dvl.xml"));
    NavigationSettings dead_reckoning;
    dead_reckoning.use_acoustic = false;
    CHECK_THROWS_WITH_AS(Navigator(sim->model(), sim->data(), body, dead_reckoning, "s.json", "no_dvl.xml"),
                         doctest::Contains("s.json: the navigation filter (\"feedback\": \"estimate\" or \"navigation\") "
                                           "needs a nereid.dvl sensor (horizontal "
                                           "velocity: the acoustic fixes are off, /navigation/acoustic false) on body "
                                           "'rov' of model no_dvl.xml"),
                         ConfigError);
  }

  TEST_CASE("a latency on the IMU, the DVL or the pressure sensor is refused (the filter compensates the acoustic fix's)") {
    // one free body with IMU, depth, DVL and acoustic fix; `latency` on one of them
    auto model = [](const std::string& delayed, const std::string& latency) {
      auto instance = [&](const std::string& plugin, const std::string& name) {
        return "    <plugin plugin='nereid." + plugin + "'><instance name='" + name + "'><config key='site' value='" +
               name + "'/>" + (name == delayed ? "<config key='latency' value='" + latency + "'/>" : "") +
               "</instance></plugin>\n";
      };
      return "<mujoco model='delayed'>\n  <extension>\n" + instance("imu", "imu") + instance("pressure", "depth") +
             instance("dvl", "dvl") + instance("acoustic", "usbl") +
             "  </extension>\n"
             "  <worldbody><geom type='plane' size='50 50 1' pos='0 0 -20'/><body name='rov' pos='0 0 -5'><freejoint/>\n"
             "    <geom type='box' size='0.2 0.15 0.1' density='1000'/>\n"
             "    <site name='imu'/><site name='depth' pos='0.1 0 0'/><site name='dvl' pos='0 0 -0.1' euler='180 0 0'/>"
             "<site name='usbl' pos='0 0 0.1'/>\n"
             "  </body></worldbody>\n"
             "  <sensor><plugin name='imu' instance='imu'/><plugin name='depth' instance='depth'/>"
             "<plugin name='dvl' instance='dvl'/><plugin name='usbl' instance='usbl'/></sensor>\n"
             "</mujoco>\n";
    };
    auto navigator = [&](const std::string& delayed, const std::string& latency) {
      auto sim = Simulation::LoadString(model(delayed, latency));
      Navigator(sim->model(), sim->data(), mj_name2id(sim->model(), mjOBJ_BODY, "rov"), NavigationSettings{}, "s.json",
                "delayed.xml");
    };
    CHECK_NOTHROW(navigator("usbl", "0.3"));  // the acoustic fix's latency: through its clone
    for (const auto& [name, plugin] : {std::pair{"imu", "imu"}, {"depth", "pressure"}, {"dvl", "dvl"}}) {
      INFO(name);
      const std::string message = "s.json: the navigation filter (\"feedback\": \"estimate\" or \"navigation\") "
                                  "compensates only the acoustic fix's latency: nereid." + std::string(plugin) +
                                  " instance '" + name +
                                  "' on body 'rov' of model delayed.xml has key 'latency' = '0.05' (s)";
      CHECK_THROWS_WITH_AS(navigator(name, "0.05"), doctest::Contains(message.c_str()), ConfigError);
    }
  }

  TEST_CASE("a scenario's feedback and navigation keys: a bad value is refused, naming the file, key and value") {
    auto refused = [](const std::string& keys, const std::string& message) {
      INFO(keys);
      CHECK_THROWS_WITH_AS(Scenario::FromString(R"({"model": "m.xml", )" + keys + "}", "s.json", ""),
                           doctest::Contains(message.c_str()), ConfigError);
    };
    // a mistyped choice is not read as "truth"
    refused(R"("feedback": "estimated")", "s.json: /feedback: expected \"truth\" or \"estimate\"");
    refused(R"("feedback": "Estimate")", "\"Estimate\"");
    refused(R"("feedback": true)", "s.json: /feedback: expected a string");
    for (const char* key : {"initial_position_sd", "initial_velocity_sd", "initial_attitude_sd", "initial_current_sd",
                            "current_walk"}) {
      refused(std::string(R"("navigation": {")") + key + R"(": 0})", std::string("s.json: /navigation/") + key + ": must be > 0");
      refused(std::string(R"("navigation": {")") + key + R"(": -0.1})", "-0.1");
    }
    refused(R"("navigation": {"acoustic": "no"})", "s.json: /navigation/acoustic: expected true or false");
    refused(R"("navigation": {"acustic": false})", "acoustic");  // the nearest valid key
    CHECK(Scenario::FromString(R"({"model": "m.xml", "feedback": "estimate"})", "s.json", "").feedback_estimate);
    CHECK_FALSE(Scenario::FromString(R"({"model": "m.xml", "feedback": "truth"})", "s.json", "").feedback_estimate);
  }

  TEST_CASE("navigation.body names a body of the model, and a filter needs a vehicle") {
    auto sim = Simulation::LoadFile(test::ModelPath("bluerov2_heavy/bluerov2_heavy_sensors.xml"));
    auto control = [&](const std::string& keys) {
      const Scenario s = Scenario::FromString(R"({"model": "m.xml", )" + keys + "}", "s.json", "");
      ScenarioControl c(s, *sim);
      return c.navigator() != nullptr;
    };
    CHECK(control(R"("navigation": {"body": "heavy"})"));
    CHECK_THROWS_WITH_AS(control(R"("navigation": {"body": "hevy"})"),
                         doctest::Contains("s.json: /navigation/body: no body named 'hevy' in"), ConfigError);
    CHECK_THROWS_WITH_AS(control(R"("navigation": {"body": "world"})"),
                         doctest::Contains("s.json: /navigation/body: 'world' is not a vehicle"), ConfigError);
    CHECK_THROWS_WITH_AS(control(R"("feedback": "estimate")"),
                         doctest::Contains("s.json: /navigation: no vehicle to estimate"), ConfigError);
  }
}

}  // namespace
}  // namespace nereid
