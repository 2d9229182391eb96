// Copyright Nereid authors.
// Linear (Airy) waves: include/nereid/waves.h.
#include "nereid/waves.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <sstream>

#include "nereid/sensors.h"
#include "wave_tracker_pass.h"

namespace nereid::waves {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDeepKh = 20;  // beyond k h = 20, tanh k h = 1 to 1e-17: deep water

bool Deep(double depth) { return !(depth > 0) || !std::isfinite(depth); }

// One component at a point: the cosine and sine of its phase and its depth factors
// cosh k(z+h) / sinh kh and sinh k(z+h) / sinh kh (both e^{kz} in deep water), z already
// clamped to the water column. WaveField::At and WaveField::Velocity take the same numbers
// from here.
struct Terms {
  double cos_t, sin_t, ch, sh;
};

// z clamped to the water column [-depth, 0] (depth <= 0: deep water, no floor)
double ClampedZ(double z, double depth) { return std::clamp(z, depth > 0 ? -depth : -1e300, 0.0); }

// a component's phase at (x, y) and time t
double Phase(const Component& c, const Vec3& p, double t) {
  return c.k * (p.x() * c.cos_direction + p.y() * c.sin_direction) - c.omega * t + c.phase;
}

Terms ComponentTerms(const Component& c, const Vec3& p, double z, double t, bool deep, double depth) {
  const double theta = Phase(c, p, t);
  Terms out{std::cos(theta), std::sin(theta), 0, 0};
  if (deep || c.k * depth > kDeepKh) {
    out.ch = out.sh = std::exp(c.k * z);
  } else {
    out.ch = std::cosh(c.k * (z + depth)) / c.sinh_kh;
    out.sh = std::sinh(c.k * (z + depth)) / c.sinh_kh;
  }
  return out;
}

// a counter-based stream on SplitMix64's finaliser (sensors::Mix), the same on every
// platform (std's distributions are not)
double Uniform(std::uint64_t seed, std::uint64_t counter) {
  return static_cast<double>(sensors::Mix(seed * 0x100000001b3ULL + counter) >> 11) * 0x1.0p-53;
}

// the unnormalised shape of a spectrum: PM's w^-5 exp(-5/4 (wp/w)^4), JONSWAP's gamma^r
double Shape(const SeaState& sea, double omega) {
  if (!(omega > 0)) return 0;
  const double wp = 2 * kPi / sea.peak_period;
  const double base = std::pow(omega, -5) * std::exp(-1.25 * std::pow(wp / omega, 4));
  if (sea.kind == SpectrumKind::kPiersonMoskowitz || sea.gamma == 1) return base;
  const double sigma = omega <= wp ? 0.07 : 0.09;
  const double r = std::exp(-(omega - wp) * (omega - wp) / (2 * sigma * sigma * wp * wp));
  return base * std::pow(sea.gamma, r);
}

// the integral of Shape over 0 < w < infinity: Simpson's rule on 0.2 .. 20 w_p, 20000
// panels (the shape is below 1e-40 of its peak under 0.2 w_p; the tail beyond 20 w_p,
// ~ w^-4 / 4, is added in closed form)
double ShapeIntegral(const SeaState& sea) {
  const double wp = 2 * kPi / sea.peak_period;
  const double lo = 0.2 * wp, hi = 20 * wp;
  const int n = 20000;
  const double h = (hi - lo) / n;
  double sum = Shape(sea, lo) + Shape(sea, hi);
  for (int i = 1; i < n; ++i) sum += (i % 2 ? 4 : 2) * Shape(sea, lo + i * h);
  return sum * h / 3 + std::pow(hi, -4) / 4;
}

}  // namespace

double WaveNumber(double omega, double depth, double g) {
  if (!(omega > 0)) return 0;
  const double deep = omega * omega / g;
  if (Deep(depth) || deep * depth > kDeepKh) return deep;
  // Eckart (1952): k0 h / sqrt(tanh k0 h) within 5 %, then Newton on f(k) = g k tanh(kh) - w^2
  double k = deep / std::sqrt(std::tanh(deep * depth));
  for (int i = 0; i < 50; ++i) {
    const double t = std::tanh(k * depth);
    const double f = g * k * t - omega * omega;
    if (std::abs(f) <= 1e-13 * omega * omega) break;
    const double df = g * t + g * k * depth * (1 - t * t);
    k -= f / df;
  }
  return k;
}

double SpectralScale(const SeaState& sea) {
  return sea.significant_height * sea.significant_height / 16 / ShapeIntegral(sea);
}

double SpectralDensity(const SeaState& sea, double omega, double scale) { return scale * Shape(sea, omega); }

WaveField WaveField::Regular(double height, double period, double direction, double depth, double phase) {
  Component c;
  c.amplitude = height / 2;
  c.omega = 2 * kPi / period;
  c.direction = direction;
  c.phase = phase;
  return FromComponents({c}, depth);
}

WaveField WaveField::Irregular(const SeaState& sea, double depth) {
  const double wp = 2 * kPi / sea.peak_period;
  const int n = sea.components;
  const double dw = (sea.high - sea.low) * wp / n;
  const double scale = SpectralScale(sea);
  std::vector<Component> components;
  components.reserve(n);
  for (int i = 0; i < n; ++i) {
    Component c;
    c.omega = sea.low * wp + (i + 0.5) * dw;
    c.amplitude = std::sqrt(2 * scale * Shape(sea, c.omega) * dw);
    c.phase = 2 * kPi * Uniform(sea.seed, 2 * static_cast<std::uint64_t>(i));
    c.direction = sea.direction;
    if (sea.spreading > 0) {
      // D(b) ~ cos^2s(b / 2) on (-pi, pi]: rejection sampling against the uniform law
      for (std::uint64_t draw = 0;; draw += 2) {
        const std::uint64_t at = (static_cast<std::uint64_t>(i) << 32) + draw + 1;
        const double b = kPi * (2 * Uniform(sea.seed, at) - 1);
        if (Uniform(sea.seed, at + 1) <= std::pow(std::cos(b / 2), 2 * sea.spreading)) {
          c.direction = sea.direction + b;
          break;
        }
      }
    }
    components.push_back(c);
  }
  return FromComponents(std::move(components), depth);
}

WaveField WaveField::FromComponents(std::vector<Component> components, double depth) {
  WaveField f;
  f.depth_ = Deep(depth) ? 0 : depth;
  for (Component& c : components) {
    c.k = WaveNumber(c.omega, f.depth_);
    c.cos_direction = std::cos(c.direction);
    c.sin_direction = std::sin(c.direction);
    c.sinh_kh = f.depth_ > 0 ? std::sinh(c.k * f.depth_) : 0.0;
  }
  f.components_ = std::move(components);
  return f;
}

std::string WaveField::RegularRule(double height, double period, double depth) {
  if (!(period > 0) || !std::isfinite(period)) return "the period must be > 0 s";
  if (!(height > 0) || !std::isfinite(height)) return "the height must be > 0 m";
  const double length = 2 * kPi / WaveNumber(2 * kPi / period, depth);
  if (height / length > kBreakingSteepness) {
    std::ostringstream s;
    s << "the wave breaks: H / L = " << height << " / " << length << " m = " << height / length
      << " exceeds 1/7 (the Airy wave of height H and period T is " << length << " m long; at most H = "
      << length * kBreakingSteepness << " m)";
    return s.str();
  }
  return "";
}

std::string WaveField::SeaStateRule(const SeaState& sea, double depth) {
  if (!(sea.peak_period > 0) || !std::isfinite(sea.peak_period)) return "the peak period must be > 0 s";
  if (!(sea.significant_height > 0) || !std::isfinite(sea.significant_height)) {
    return "the significant height must be > 0 m";
  }
  if (sea.kind == SpectrumKind::kJonswap && !(sea.gamma >= 1 && sea.gamma <= 7)) {
    return "gamma must be in 1..7 (JONSWAP's peak enhancement; 3.3 the mean of the North Sea data)";
  }
  if (!(sea.spreading >= 0 && sea.spreading <= 100)) return "the spreading exponent s must be in 0..100";
  if (sea.components < 1 || sea.components > kMaxComponents) {
    return "components must be in 1.." + std::to_string(kMaxComponents);
  }
  if (!(sea.low > 0 && sea.low < 1 && sea.high > 1 && sea.high <= 10)) {
    return "the band must hold the peak: 0 < low < 1 < high <= 10";
  }
  const double length = 2 * kPi / WaveNumber(2 * kPi / sea.peak_period, depth);
  if (sea.significant_height / length > kBreakingSteepness) {
    std::ostringstream s;
    s << "the sea breaks: Hs / L_p = " << sea.significant_height << " / " << length
      << " m exceeds 1/7 (L_p: the Airy wave length at the peak period)";
    return s.str();
  }
  return "";
}

double WaveField::SignificantHeight() const {
  double sum = 0;
  for (const Component& c : components_) sum += c.amplitude * c.amplitude / 2;
  return 4 * std::sqrt(sum);
}

double WaveField::Elevation(double x, double y, double t) const {
  double eta = 0;
  for (const Component& c : components_) {
    eta += c.amplitude * std::cos(c.k * (x * c.cos_direction + y * c.sin_direction) - c.omega * t + c.phase);
  }
  return eta;
}

double WaveField::Pressure(const Vec3& p, double t, double rho, double g, double p_atm) const {
  const bool deep = depth_ <= 0;
  const double z = ClampedZ(p.z(), depth_);
  double head = -p.z();  // m of water above the point: the hydrostatic part, then the waves'
  for (const Component& c : components_) {
    const double theta = Phase(c, p, t);
    const double K = deep || c.k * depth_ > kDeepKh ? std::exp(c.k * z)
                                                    : std::cosh(c.k * (z + depth_)) / std::cosh(c.k * depth_);
    head += c.amplitude * K * std::cos(theta);
  }
  return p_atm + rho * g * std::max(head, 0.0);
}

Kinematics WaveField::At(const Vec3& p, double t) const {
  Kinematics out;
  const bool deep = depth_ <= 0;
  const double z = ClampedZ(p.z(), depth_);
  const double inside = z == p.z() ? 1.0 : 0.0;  // 0: extrapolated, no z derivative
  for (const Component& c : components_) {
    const double cb = c.cos_direction, sb = c.sin_direction;
    const auto [cos_t, sin_t, ch, sh] = ComponentTerms(c, p, z, t, deep, depth_);
    const double aw = c.amplitude * c.omega, aw2 = aw * c.omega;
    out.elevation += c.amplitude * cos_t;
    const double uh = aw * ch * cos_t, duh = aw2 * ch * sin_t;
    out.velocity += Vec3(uh * cb, uh * sb, aw * sh * sin_t);
    out.acceleration += Vec3(duh * cb, duh * sb, -aw2 * sh * cos_t);
    // d/dx_j: dtheta/dx = k cb, dtheta/dy = k sb; d ch/dz = k sh, d sh/dz = k ch
    const double awk = aw * c.k;
    const Vec3 dh(-awk * ch * sin_t * cb, -awk * ch * sin_t * sb, inside * awk * sh * cos_t);  // d u_h
    out.gradient.row(0) += cb * dh.transpose();
    out.gradient.row(1) += sb * dh.transpose();
    out.gradient.row(2) += Vec3(awk * sh * cos_t * cb, awk * sh * cos_t * sb, inside * awk * ch * sin_t).transpose();
  }
  return out;
}

Vec3 WaveField::Velocity(const Vec3& p, double t) const {
  // At's velocity, the same operations in the same order
  Vec3 velocity = Vec3::Zero();
  const bool deep = depth_ <= 0;
  const double z = ClampedZ(p.z(), depth_);
  for (const Component& c : components_) {
    const double cb = c.cos_direction, sb = c.sin_direction;
    const auto [cos_t, sin_t, ch, sh] = ComponentTerms(c, p, z, t, deep, depth_);
    const double aw = c.amplitude * c.omega;
    const double uh = aw * ch * cos_t;
    velocity += Vec3(uh * cb, uh * sb, aw * sh * sin_t);
  }
  return velocity;
}

Vec3 LocalWaves::Offset(const Vec3& q) const {
  return Vec3(q.x() - point.x(), q.y() - point.y(), std::clamp(q.z(), seabed, 0.0) - point.z());
}

Kinematics LocalWaves::Near(const Vec3& q) const {
  if (q == point) return at;
  Kinematics out = at;
  const Vec3 d = Offset(q);
  out.elevation += slope_x * d.x() + slope_y * d.y();
  out.velocity += at.gradient * d;
  out.acceleration += acceleration_gradient * d;
  if (!(q.z() >= seabed && q.z() <= 0.0)) out.gradient.col(2).setZero();  // outside the water column, as At
  return out;
}

Vec3 LocalWaves::VelocityNear(const Vec3& q) const {
  if (q == point) return at.velocity;
  return at.velocity + at.gradient * Offset(q);
}

void Tracker::Rebuild() {
  const std::vector<Component>& cs = field_->components();
  const size_t n = (cs.size() + 3) / 4 * 4;  // padded with silent components (amplitude 0)
  for (std::vector<double>* v : {&kc_, &ks_, &k_, &w_, &cb_, &sb_, &a_, &aw_, &aw2_, &ak_, &awk_, &aw2k_, &c_,
                                 &s_, &f_, &g_}) {
    v->assign(n, 0.0);
  }
  one_direction_ = true;
  k_max_ = w_max_ = 0;
  for (size_t i = 0; i < cs.size(); ++i) {
    const Component& c = cs[i];
    k_max_ = std::max(k_max_, c.k);
    w_max_ = std::max(w_max_, c.omega);
    kc_[i] = c.k * c.cos_direction;
    ks_[i] = c.k * c.sin_direction;
    k_[i] = c.k;
    w_[i] = c.omega;
    cb_[i] = c.cos_direction;
    sb_[i] = c.sin_direction;
    a_[i] = c.amplitude;
    aw_[i] = c.amplitude * c.omega;
    aw2_[i] = aw_[i] * c.omega;
    ak_[i] = c.amplitude * c.k;
    awk_[i] = aw_[i] * c.k;
    aw2k_[i] = aw2_[i] * c.k;
    one_direction_ = one_direction_ && c.direction == cs.front().direction;
  }
}

void Tracker::Exact(const Vec3& p, double t) {
  const std::vector<Component>& cs = field_->components();
  const double depth = field_->depth();
  const bool deep = depth <= 0;
  for (size_t i = 0; i < cs.size(); ++i) {
    const Component& c = cs[i];
    const double theta = Phase(c, p, t);
    c_[i] = std::cos(theta);
    s_[i] = std::sin(theta);
    if (deep || c.k * depth > kDeepKh) {  // ch = sh = e^{kz}
      f_[i] = std::exp(c.k * p.z());
      g_[i] = 0;
    } else {  // ch = F + G, sh = F - G: cosh k(z+h) / sinh kh, sinh k(z+h) / sinh kh
      f_[i] = std::exp(c.k * (p.z() + depth)) / (2 * c.sinh_kh);
      g_[i] = std::exp(-c.k * (p.z() + depth)) / (2 * c.sinh_kh);
    }
  }
  updates_ = 0;
  ++exact_;
}

bool Tracker::Pass(bool advance, const Vec3& delta, double dt) {
  detail::PassArrays x;
  x.n = c_.size();
  x.k_max = k_max_, x.w_max = w_max_;
  x.kc = kc_.data(), x.ks = ks_.data(), x.k = k_.data(), x.w = w_.data(), x.cb = cb_.data(), x.sb = sb_.data();
  x.a = a_.data(), x.aw = aw_.data(), x.aw2 = aw2_.data(), x.ak = ak_.data(), x.awk = awk_.data();
  x.aw2k = aw2k_.data();
  x.c = c_.data(), x.s = s_.data(), x.f = f_.data(), x.g = g_.data();
  const double d[3] = {delta.x(), delta.y(), delta.z()};
  double sum[21];
  const bool done = detail::HaveAvx2() ? detail::PassAvx2(x, advance, one_direction_, d, dt, kMaxIncrement, sum)
                                       : detail::Pass(x, advance, one_direction_, d, dt, kMaxIncrement, sum);
  if (!done) return false;
  // sum (wave_tracker_pass.h): 0 eta; 1-2 a k s; 3-5 the velocity's parts; 6-8 the
  // acceleration's; 9-14 the velocity gradient's; 15-20 the acceleration gradient's
  const double inside = inside_ ? 1.0 : 0.0;
  Kinematics& k = out_.at;
  k.elevation = sum[0];
  out_.slope_x = -sum[1];
  out_.slope_y = -sum[2];
  k.velocity = Vec3(sum[3], sum[4], sum[5]);
  k.acceleration = Vec3(sum[6], sum[7], -sum[8]);
  // du_i/dx_j: u_h = a w ch cos(theta) along (cos b, sin b), w = a w sh sin(theta)
  k.gradient << -sum[9], -sum[10], inside * sum[13],  //
      -sum[10], -sum[11], inside * sum[14],           //
      sum[13], sum[14], inside * sum[12];
  // da_i/dx_j: a_h = a w^2 ch sin(theta), a_z = -a w^2 sh cos(theta)
  out_.acceleration_gradient << sum[15], sum[16], inside * sum[19],  //
      sum[16], sum[17], inside * sum[20],                            //
      sum[19], sum[20], -inside * sum[18];
  if (advance) ++updates_;
  return true;
}

const LocalWaves& Tracker::Sample(const std::shared_ptr<const WaveField>& field, const Vec3& p, double t) {
  if (valid_ && t == t_ && p == p_ && field == field_) return out_;
  const Vec3 clamped(p.x(), p.y(), ClampedZ(p.z(), field->depth()));
  if (field != field_) {
    field_ = field;
    Rebuild();
    valid_ = false;
  }
  inside_ = clamped.z() == p.z();
  if (!(valid_ && updates_ < kResync && Pass(true, clamped - out_.point, t - t_))) {
    Exact(clamped, t);
    Pass(false, Vec3::Zero(), 0);
  }
  valid_ = true;
  t_ = t;
  p_ = p;
  out_.point = clamped;
  out_.seabed = field_->depth() > 0 ? -field_->depth() : -1e300;
  return out_;
}

}  // namespace nereid::waves
