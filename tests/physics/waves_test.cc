// Copyright Nereid authors.
// Linear (Airy) waves (include/nereid/waves.h) against the dispersion relation, the
// closed-form kinematics and the boundary conditions of linear theory, and a spectrum's
// sampled sea against its significant height and peak period.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "nereid/waves.h"
#include "wave_tracker_pass.h"

namespace nereid::waves {
namespace {

constexpr double kPi = std::numbers::pi;

TEST_SUITE("waves") {

TEST_CASE("the dispersion relation w^2 = g k tanh(k h) is solved to 1e-12") {
  double worst = 0;
  for (double period : {0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 25.0}) {
    for (double depth : {0.1, 1.0, 5.0, 20.0, 100.0, 1000.0}) {
      const double w = 2 * kPi / period;
      const double k = WaveNumber(w, depth);
      const double residual = std::abs(kGravity * k * std::tanh(k * depth) - w * w) / (w * w);
      worst = std::max(worst, residual);
    }
  }
  MESSAGE("largest relative residual " << worst);
  CHECK(worst <= 1e-12);
  // deep water: k = w^2 / g exactly; shallow water: k -> w / sqrt(g h)
  CHECK(WaveNumber(1.0, 0) == doctest::Approx(1.0 / kGravity).epsilon(1e-15));
  CHECK(WaveNumber(1.0, -1) == WaveNumber(1.0, INFINITY));
  const double shallow = WaveNumber(0.05, 0.5);  // k h = 0.0045
  CHECK(shallow == doctest::Approx(0.05 / std::sqrt(kGravity * 0.5)).epsilon(1e-5));
  // T = 8 s in 10 m of water: L = 70.898 m (SciPy's brentq on the same relation; the
  // deep-water length g T^2 / 2 pi is 99.9 m)
  CHECK(2 * kPi / WaveNumber(2 * kPi / 8, 10) == doctest::Approx(70.8984).epsilon(1e-5));
}

TEST_CASE("a regular deep-water wave: elevation, orbital velocity and acceleration in closed form") {
  const double H = 0.5, T = 4, beta = 0.3;
  const WaveField f = WaveField::Regular(H, T, beta, 0);
  const double w = 2 * kPi / T, k = w * w / kGravity;
  for (const Vec3& p : {Vec3(0, 0, 0), Vec3(1.3, -2.1, -0.7), Vec3(-4, 3, -5)}) {
    for (double t : {0.0, 0.7, 3.1}) {
      const double theta = k * (p.x() * std::cos(beta) + p.y() * std::sin(beta)) - w * t;
      const double e = std::exp(k * p.z());
      const Kinematics kin = f.At(p, t);
      CHECK(kin.elevation == doctest::Approx(H / 2 * std::cos(theta)).epsilon(1e-12));
      const double uh = H / 2 * w * e * std::cos(theta);
      CHECK(kin.velocity.x() == doctest::Approx(uh * std::cos(beta)).epsilon(1e-12));
      CHECK(kin.velocity.y() == doctest::Approx(uh * std::sin(beta)).epsilon(1e-12));
      CHECK(kin.velocity.z() == doctest::Approx(H / 2 * w * e * std::sin(theta)).epsilon(1e-12));
      // the orbit is a circle of radius H/2 e^{kz}: |u| = w H/2 e^{kz} at every phase
      CHECK(kin.velocity.norm() == doctest::Approx(w * H / 2 * e).epsilon(1e-12));
      CHECK(kin.acceleration.norm() == doctest::Approx(w * w * H / 2 * e).epsilon(1e-12));
      // the acceleration is du/dt (central difference, 1e-6 relative)
      const double dt = 1e-5;
      const Vec3 fd = (f.At(p, t + dt).velocity - f.At(p, t - dt).velocity) / (2 * dt);
      CHECK((kin.acceleration - fd).norm() <= 1e-6 * w * w * H);
    }
  }
  // above the mean surface: the kinematics of z = 0
  CHECK((f.At(Vec3(1, 2, 0.2), 1).velocity - f.At(Vec3(1, 2, 0), 1).velocity).norm() == 0);
}

TEST_CASE("finite depth: continuity, the free-surface and seabed conditions of linear theory") {
  const double h = 6;
  SeaState sea;
  sea.significant_height = 0.8;
  sea.peak_period = 5;
  sea.spreading = 10;
  sea.components = 16;
  const WaveField f = WaveField::Irregular(sea, h);
  const double d = 1e-4;
  for (const Vec3& p : {Vec3(0.5, 1, -1), Vec3(-3, 2, -4.5), Vec3(7, -1, -0.1)}) {
    const double t = 2.3;
    // du/dx + dv/dy + dw/dz = 0 (incompressible, central differences)
    const double div = (f.At(p + Vec3(d, 0, 0), t).velocity.x() - f.At(p - Vec3(d, 0, 0), t).velocity.x() +
                        f.At(p + Vec3(0, d, 0), t).velocity.y() - f.At(p - Vec3(0, d, 0), t).velocity.y() +
                        f.At(p + Vec3(0, 0, d), t).velocity.z() - f.At(p - Vec3(0, 0, d), t).velocity.z()) /
                       (2 * d);
    CHECK(std::abs(div) <= 1e-6);
    // the velocity gradient: central differences (1e-7), trace zero (continuity) and
    // symmetric (potential flow: the curl is zero) to rounding
    const Kinematics at = f.At(p, t);
    for (int j = 0; j < 3; ++j) {
      const Vec3 e = d * Vec3::Unit(j);
      const Vec3 column = (f.At(p + e, t).velocity - f.At(p - e, t).velocity) / (2 * d);
      CHECK((at.gradient.col(j) - column).norm() <= 1e-7);
    }
    CHECK(std::abs(at.gradient.trace()) <= 1e-12);
    CHECK((at.gradient - at.gradient.transpose()).norm() <= 1e-12);
    // w = d eta / dt at z = 0; w = 0 at the seabed
    const Vec3 top(p.x(), p.y(), 0);
    const double deta = (f.Elevation(p.x(), p.y(), t + d) - f.Elevation(p.x(), p.y(), t - d)) / (2 * d);
    CHECK(f.At(top, t).velocity.z() == doctest::Approx(deta).epsilon(1e-6));
    CHECK(std::abs(f.At(Vec3(p.x(), p.y(), -h), t).velocity.z()) <= 1e-15);
  }
  // a regular wave: the horizontal amplitude at the seabed, a w / sinh(k h)
  const WaveField r = WaveField::Regular(0.4, 6, 0, h);
  const double w = 2 * kPi / 6, k = WaveNumber(w, h);
  CHECK(r.At(Vec3(0, 0, -h), 0).velocity.x() == doctest::Approx(0.2 * w / std::sinh(k * h)).epsilon(1e-12));
}

TEST_CASE("wave pressure: the closed form, hydrostatic under a crest, and the linearised Euler equation") {
  const double rho = 1025, g = 9.81, p_atm = 101325;
  // a regular deep-water wave H 0.5 m, T 4 s towards 30 deg: p = p_atm - rho g z + rho g a e^{kz} cos theta
  const double a = 0.25, w = 2 * kPi / 4, beta = kPi / 6, k = w * w / kGravity;
  const WaveField deep = WaveField::Regular(2 * a, 4, beta, 0);
  for (const Vec3& p : {Vec3(1.3, -0.4, -3.0), Vec3(-2.0, 5.0, -0.2), Vec3(0.0, 0.0, -12.0)}) {
    for (double t : {0.0, 0.7, 2.9}) {
      const double theta = k * (p.x() * std::cos(beta) + p.y() * std::sin(beta)) - w * t;
      const double expected = p_atm - rho * g * p.z() + rho * g * a * std::exp(k * p.z()) * std::cos(theta);
      CHECK(deep.Pressure(p, t, rho, g, p_atm) == doctest::Approx(expected).epsilon(1e-14));
    }
  }
  // finite depth, T 8 s in 10 m: K = cosh k(z+h) / cosh kh
  const double h = 10, w8 = 2 * kPi / 8, k8 = WaveNumber(w8, h);
  const WaveField finite = WaveField::Regular(0.6, 8, 0, h);
  for (double z : {-0.5, -4.0, -9.9}) {
    const Vec3 p(3.0, 1.0, z);
    const double expected = p_atm - rho * g * z + rho * g * 0.3 * std::cosh(k8 * (z + h)) / std::cosh(k8 * h) *
                                                      std::cos(k8 * 3.0 - w8 * 1.1);
    CHECK(finite.Pressure(p, 1.1, rho, g, p_atm) == doctest::Approx(expected).epsilon(1e-14));
  }
  // at the crest (x = 0, t = 0, eta = a): hydrostatic below the moving surface, p_atm above it
  CHECK(deep.Pressure(Vec3(0, 0, 0.1), 0, rho, g, p_atm) == doctest::Approx(p_atm + rho * g * (a - 0.1)).epsilon(1e-15));
  CHECK(deep.Pressure(Vec3(0, 0, 0.3), 0, rho, g, p_atm) == p_atm);
  CHECK(WaveField().Pressure(Vec3(0, 0, -7), 0, rho, g, p_atm) == p_atm + rho * g * 7);
  // the linearised Euler equation rho du/dt = -grad p - rho g e_z against the kinematics
  // (central differences of the pressure, step 1e-4 m)
  for (const WaveField* field : {&deep, &finite}) {
    const Vec3 p(2.0, -1.0, -2.5);
    const double t = 0.9, e = 1e-4;
    Vec3 grad;
    for (int i = 0; i < 3; ++i) {
      Vec3 dp = Vec3::Zero();
      dp[i] = e;
      grad[i] = (field->Pressure(p + dp, t, rho, kGravity, p_atm) - field->Pressure(p - dp, t, rho, kGravity, p_atm)) / (2 * e);
    }
    const Vec3 euler = -(grad + Vec3(0, 0, rho * kGravity)) / rho;
    const Vec3 a_f = field->At(p, t).acceleration;
    CHECK((euler - a_f).norm() < 1e-6 * (1 + a_f.norm()));
  }
}

TEST_CASE("a JONSWAP and a Pierson-Moskowitz sea reproduce Hs and Tp (seeded)") {
  for (SpectrumKind kind : {SpectrumKind::kJonswap, SpectrumKind::kPiersonMoskowitz}) {
    SeaState sea;
    sea.kind = kind;
    sea.significant_height = 0.3;
    sea.peak_period = 4;
    sea.seed = 42;
    CAPTURE(static_cast<int>(kind));
    const double wp = 2 * kPi / sea.peak_period;
    // the density integrates to Hs^2 / 16 and peaks at w_p
    double m0 = 0, peak = 0, at = 0;
    const double dw = 1e-4 * wp, scale = SpectralScale(sea);
    for (double w = 0.2 * wp; w < 20 * wp; w += dw) {
      const double s = SpectralDensity(sea, w, scale);
      m0 += s * dw;
      if (s > peak) peak = s, at = w;
    }
    CHECK(m0 == doctest::Approx(sea.significant_height * sea.significant_height / 16).epsilon(1e-3).scale(0));
    CHECK(at == doctest::Approx(wp).epsilon(2e-4).scale(0));
    // 64 components over 0.5..3 w_p: Hs within 3 % (the band leaves the tails out)
    const WaveField f = WaveField::Irregular(sea, 0);
    REQUIRE(f.components().size() == 64);
    MESSAGE("sampled Hs " << f.SignificantHeight() << " m of " << sea.significant_height);
    CHECK(f.SignificantHeight() == doctest::Approx(sea.significant_height).epsilon(0.03).scale(0));
    // the largest component is the one nearest the peak
    const Component* largest = &f.components()[0];
    for (const Component& c : f.components()) {
      if (c.amplitude > largest->amplitude) largest = &c;
    }
    const double spacing = f.components()[1].omega - f.components()[0].omega;
    CHECK(std::abs(largest->omega - wp) <= spacing / 2 + 1e-12);
    // the elevation's record: 4 std(eta) over 3 repeat periods (2 pi / dw) within 3 %
    const double repeat = 2 * kPi / spacing;
    double sum = 0, sum2 = 0;
    const int n = 30000;
    for (int i = 0; i < n; ++i) {
      const double eta = f.Elevation(0, 0, 3 * repeat * i / n);
      sum += eta;
      sum2 += eta * eta;
    }
    const double hs_record = 4 * std::sqrt(sum2 / n - (sum / n) * (sum / n));
    MESSAGE("4 std(eta) " << hs_record << " m");
    CHECK(hs_record == doctest::Approx(f.SignificantHeight()).epsilon(0.03).scale(0));
  }
}

TEST_CASE("the seed fixes the sea; spreading draws directions about the mean") {
  SeaState sea;
  sea.seed = 7;
  const WaveField a = WaveField::Irregular(sea, 0), b = WaveField::Irregular(sea, 0);
  sea.seed = 8;
  const WaveField c = WaveField::Irregular(sea, 0);
  CHECK(a.components()[5].phase == b.components()[5].phase);
  CHECK(a.components()[5].phase != c.components()[5].phase);
  for (const Component& k : a.components()) CHECK(k.direction == 0);
  sea.spreading = 20;  // cos^40(b / 2): a standard deviation of about 18 deg
  sea.direction = 1.0;
  sea.components = 1024;
  const WaveField s = WaveField::Irregular(sea, 0);
  double mean = 0, var = 0;
  for (const Component& k : s.components()) mean += k.direction / 1024;
  for (const Component& k : s.components()) var += (k.direction - mean) * (k.direction - mean) / 1024;
  MESSAGE("spread directions: mean " << mean << " rad, std " << std::sqrt(var) << " rad");
  CHECK(mean == doctest::Approx(1.0).epsilon(0.03).scale(0));
  // the std of cos^2s(b / 2) is about sqrt(2 / (s + 1)) rad for large s: 0.309
  CHECK(std::sqrt(var) == doctest::Approx(std::sqrt(2.0 / 21)).epsilon(0.1).scale(0));
}

TEST_CASE("bad waves are refused with the rule they break") {
  CHECK(WaveField::RegularRule(0.5, 4, 0) == "");
  CHECK(WaveField::RegularRule(0.5, 0, 0) == "the period must be > 0 s");
  CHECK(WaveField::RegularRule(0.5, -2, 0) == "the period must be > 0 s");
  CHECK(WaveField::RegularRule(0, 4, 0) == "the height must be > 0 m");
  // T = 2 s in deep water: L = 6.245 m, H = 1 m is steeper than 1/7
  CHECK(WaveField::RegularRule(1, 2, 0).rfind("the wave breaks: H / L = 1 / 6.24", 0) == 0);
  SeaState sea;
  CHECK(WaveField::SeaStateRule(sea, 0) == "");
  sea.gamma = 8;
  CHECK(WaveField::SeaStateRule(sea, 0).rfind("gamma must be in 1..7", 0) == 0);
  sea.gamma = 3.3;
  sea.components = 0;
  CHECK(WaveField::SeaStateRule(sea, 0) == "components must be in 1..1024");
  sea.components = 64;
  sea.significant_height = 20;
  sea.peak_period = 4;
  CHECK(WaveField::SeaStateRule(sea, 0).rfind("the sea breaks", 0) == 0);
}

// the largest difference between two kinematics, per quantity
double Gap(const Kinematics& a, const Kinematics& b) {
  return std::max({std::abs(a.elevation - b.elevation), (a.velocity - b.velocity).cwiseAbs().maxCoeff(),
                   (a.acceleration - b.acceleration).cwiseAbs().maxCoeff(),
                   (a.gradient - b.gradient).cwiseAbs().maxCoeff()});
}

// the sum over components of a w^2 k (1 + k): a bound on every number Kinematics holds
double Scale(const WaveField& f) {
  double s = 0;
  for (const Component& c : f.components()) s += c.amplitude * (1 + c.omega * c.omega) * (1 + c.k) * (1 + c.k);
  return s;
}

// a point at depth z on a widening spiral: radius 0.6 s m, turned 0.3 s rad
Vec3 Spiral(double s, double z) { return Vec3(0.6 * s * std::cos(0.3 * s), 0.6 * s * std::sin(0.3 * s), z); }

TEST_CASE("a Tracker following a moving point equals At to 1e-13 of the sea's scale") {
  SeaState sea;
  sea.significant_height = 0.3;
  sea.peak_period = 4;
  sea.spreading = 5;  // many directions
  // steps of 2, 8 and 15 ms: the fastest component (4.7 rad/s, k 2.3 /m) turns by up to
  // 0.01, 0.04 and 0.09 rad (Taylor series of 4, 5 and 6 terms; 0.1 is Tracker::kMaxIncrement)
  for (auto [depth, dt] : {std::pair{0.0, 0.002}, {20.0, 0.002}, {3.0, 0.002}, {20.0, 0.008}, {0.0, 0.015}, {20.0, 0.015}}) {
    const auto field = std::make_shared<const WaveField>(WaveField::Irregular(sea, depth));
    Tracker tracker;
    double worst = 0, worst_slope = 0, worst_accel_gradient = 0;
    // a vehicle diving from above the surface to 2.5 m on a widening spiral (under 2 mm a
    // step), and at step 300 a jump of 1 m and 5 s (a reset): exact evaluations start afresh
    for (int step = 0; step < 600; ++step) {
      const double jump = step >= 300 ? 5.0 : 0.0, t = dt * step + jump, s = 0.002 * step + jump;
      const Vec3 p = Spiral(s, 0.2 - 0.004 * step);
      const LocalWaves& w = tracker.Sample(field, p, t);
      worst = std::max(worst, Gap(w.at, field->At(p, t)));
      if (step % 50 == 7 && p.z() < -0.01) {
        // the derivatives against central differences of At (h = 1e-5 m: error ~1e-9)
        const double h = 1e-5;
        for (int j = 0; j < 3; ++j) {
          Vec3 e = Vec3::Zero();
          e[j] = h;
          const Kinematics plus = field->At(p + e, t), minus = field->At(p - e, t);
          if (j < 2) {
            const double slope = j == 0 ? w.slope_x : w.slope_y;
            worst_slope = std::max(worst_slope, std::abs(slope - (plus.elevation - minus.elevation) / (2 * h)));
          }
          worst_accel_gradient = std::max(worst_accel_gradient,
              (w.acceleration_gradient.col(j) - (plus.acceleration - minus.acceleration) / (2 * h)).cwiseAbs().maxCoeff());
        }
      }
    }
    MESSAGE("depth " << depth << ", step " << dt << " s: largest gap to At " << worst << " (scale " << Scale(*field) << "), slope "
                     << worst_slope << ", acceleration gradient " << worst_accel_gradient << "; exact evaluations "
                     << tracker.exact_evaluations() << " of 600");
    CHECK(worst <= 1e-13 * Scale(*field));
    CHECK(worst_slope <= 1e-7);
    CHECK(worst_accel_gradient <= 1e-6);
    // once at the start, every kResync updates, at the jump, and where the point crossed
    // the surface: no more than that (no increment above kMaxIncrement)
    CHECK(tracker.exact_evaluations() >= 600 / (Tracker::kResync + 1));
    CHECK(tracker.exact_evaluations() <= 600 / Tracker::kResync + 3);
  }
}

TEST_CASE("the tracker's portable and AVX2 builds agree to rounding, each equal to At") {
  SeaState sea;
  sea.significant_height = 0.3;
  sea.peak_period = 4;
  sea.spreading = 5;
  const auto field = std::make_shared<const WaveField>(WaveField::Irregular(sea, 20));
  // the same diving spiral followed by each build (8 ms steps)
  std::vector<Vec3> path;
  std::vector<double> times;
  for (int step = 0; step < 400; ++step) {
    path.push_back(Spiral(0.002 * step, -0.5 - 0.004 * step));
    times.push_back(0.008 * step);
  }
  auto follow = [&](bool avx2) {
    waves::detail::AllowAvx2(avx2);
    Tracker tracker;
    std::vector<Kinematics> out;
    for (size_t i = 0; i < path.size(); ++i) out.push_back(tracker.Sample(field, path[i], times[i]).at);
    waves::detail::AllowAvx2(true);
    return out;
  };
  waves::detail::AllowAvx2(true);
  const bool avx2 = waves::detail::HaveAvx2();
  const std::vector<Kinematics> fast = follow(true), portable = follow(false);
  double between = 0, portable_to_at = 0;
  for (size_t i = 0; i < fast.size(); ++i) {
    between = std::max(between, Gap(fast[i], portable[i]));
    portable_to_at = std::max(portable_to_at, Gap(portable[i], field->At(path[i], times[i])));
  }
  MESSAGE("AVX2 build " << std::string(avx2 ? "used" : "not available: both runs portable") << "; largest difference between the builds "
                        << between << ", portable build to At " << portable_to_at << " (scale " << Scale(*field) << ")");
  CHECK(portable_to_at <= 1e-13 * Scale(*field));
  CHECK(between <= 1e-13 * Scale(*field));
}

TEST_CASE("LocalWaves::Near is At to second order in k r") {
  SeaState sea;
  sea.significant_height = 0.3;
  sea.peak_period = 4;
  const auto field = std::make_shared<const WaveField>(WaveField::Irregular(sea, 20));
  Tracker tracker;
  const Vec3 origin(1.0, -2.0, -1.5);
  const LocalWaves& w = tracker.Sample(field, origin, 3.7);
  CHECK(Gap(w.Near(origin), field->At(origin, 3.7)) <= 1e-13 * Scale(*field));
  for (const Vec3& r : {Vec3(0.3, 0.2, 0.1), Vec3(-0.25, 0.1, -0.2), Vec3(0.0, 0.0, 0.3)}) {
    const Kinematics exact = field->At(origin + r, 3.7);
    const double err_v = (w.Near(origin + r).velocity - exact.velocity).norm();
    const double err_half = (w.Near(origin + r / 2).velocity - field->At(origin + r / 2, 3.7).velocity).norm();
    const double err_eta = std::abs(w.Near(origin + r).elevation - exact.elevation);
    const double err_eta_half = std::abs(w.Near(origin + r / 2).elevation - field->At(origin + r / 2, 3.7).elevation);
    MESSAGE("r = " << r.transpose() << " m: velocity error " << err_v << " m/s of |u| " << exact.velocity.norm()
                   << ", at r / 2 " << err_half << "; elevation error " << err_eta << " m, at r / 2 " << err_eta_half);
    // second order: halving r quarters the error (the third-order terms move it by k r)
    CHECK(err_v / err_half == doctest::Approx(4).epsilon(0.15).scale(0));
    if (r.head<2>().norm() > 0) CHECK(err_eta / err_eta_half == doctest::Approx(4).epsilon(0.25).scale(0));
    CHECK(err_v <= 0.02 * exact.velocity.norm());  // a thruster's 0.3 m in this sea: under 2 %
    CHECK((w.VelocityNear(origin + r) - w.Near(origin + r).velocity).norm() == 0);
    // better than the sample at the origin held (zeroth order)
    CHECK(err_v < (w.at.velocity - exact.velocity).norm());
  }
}

}  // TEST_SUITE

}  // namespace
}  // namespace nereid::waves
