// Copyright Nereid authors.
#include "nereid/sensors.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <utility>

#include <Eigen/Dense>

namespace nereid::sensors {

uint64_t StreamId(std::string_view name) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (const char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ull;
  }
  return h;
}

namespace {
// The ziggurat for f(x) = exp(-x²/2) on x >= 0 (Marsaglia and Tsang, "The Ziggurat Method
// for Generating Random Variables", J. Stat. Softw. 5(8), 2000): 256 boxes of equal area v.
// Box 0 is [0, r] x [0, f(r)] with the tail beyond r; box k (1..255) is [0, x_k] x
// [f(x_k), f(x_k+1)], from x_1 = r down to x_256 = 0. r is the paper's for 256 boxes and
// v follows from it: v = r f(r) + √(π/2) erfc(r/√2).
struct Ziggurat {
  static constexpr int kBoxes = 256;
  static constexpr double kR = 3.6541528853610088;
  static double F(double x) { return std::exp(-0.5 * x * x); }
  // box[k].width: box k's width (box 0's is v / f(r), its tail folded in); box[k].edge =
  // x_k+1, the abscissa below which box k lies under the curve (side by side: a draw's fast
  // path reads one cache line); lower[k], upper[k] = f(x_k), f(x_k+1)
  struct Box {
    double width = 0, edge = 0;
  };
  std::array<Box, kBoxes> box{};
  std::array<double, kBoxes> lower{}, upper{};
  double v = 0;
  Ziggurat() {
    v = kR * F(kR) + std::sqrt(std::numbers::pi / 2) * std::erfc(kR / std::numbers::sqrt2);
    std::array<double, kBoxes + 1> x{};
    x[1] = kR;
    for (int k = 1; k < kBoxes - 1; ++k) x[k + 1] = std::sqrt(-2.0 * std::log(v / x[k] + F(x[k])));
    x[kBoxes] = 0;
    box[0] = {v / F(kR), kR};
    for (int k = 1; k < kBoxes; ++k) {
      box[static_cast<size_t>(k)] = {x[k], x[k + 1]};
      lower[k] = F(x[k]);
      upper[k] = F(x[k + 1]);
    }
  }
};

// built when the library is loaded (nothing draws before: draws come from sensor plugin
// instances, made at run time)
const Ziggurat kTable;

// What a word proposes: low 8 bits the box, bit 8 the sign, the top 53 the abscissa, scaled
// to the box's width (disjoint bits, so that box and abscissa are independent: the remedy
// of Doornik 2005 for the original).
struct Candidate {
  size_t box;
  double x;
  bool negative;
  double Signed(double magnitude) const { return negative ? -magnitude : magnitude; }
};
Candidate Propose(uint64_t word) {
  const auto k = static_cast<size_t>(word & 0xFF);
  return {k, (static_cast<double>(word >> 11) + 0.5) * 0x1.0p-53 * kTable.box[k].width, ((word >> 8) & 1) != 0};
}

// The first word's candidate beyond its box's part under the curve (NormalFromKey's fast
// path did not take it): the tail of box 0 or the wedge of another box, then further words
// Mix(first + j); out of line and from the word alone, so that the fast path stays small.
[[gnu::noinline]] double NormalBeyondBox(uint64_t first) {
  const Ziggurat& z = kTable;
  Candidate c = Propose(first);
  uint64_t j = 0;
  for (;;) {
    if (c.box == 0) {  // the tail beyond r (Marsaglia 1964): r + a, a ~ Exp(r) accepted w.p. e^(-a²/2)
      for (;;) {
        const double a = -std::log(UniformFromKey(first, ++j)) / Ziggurat::kR;
        const double b = -std::log(UniformFromKey(first, ++j));
        if (2 * b >= a * a) return c.Signed(Ziggurat::kR + a);
      }
    }
    // the wedge between the box's edge and its width: under the curve with its probability
    const double y = z.lower[c.box] + UniformFromKey(first, ++j) * (z.upper[c.box] - z.lower[c.box]);
    if (y < Ziggurat::F(c.x)) return c.Signed(c.x);
    c = Propose(Mix(first + ++j));
    if (c.x < z.box[c.box].edge) return c.Signed(c.x);  // inside the box's part under the curve
  }
}
}  // namespace

double NormalFromKey(uint64_t key, uint64_t k) {
  // the first word's candidate inside its box's part under the curve (about 99 % of draws)
  const uint64_t first = Mix(key + k);
  const Candidate c = Propose(first);
  if (c.x < kTable.box[c.box].edge) return c.Signed(c.x);
  return NormalBeyondBox(first);
}

bool SampleClock::DueSlow(double time) {
  // time set back (a state restored without mj_resetData): start again from there
  if (started_ && time + tolerance_ < last_) Reset();
  if (!started_) {
    started_ = true;
    start_ = time;
    next_ = 0;
  }
  // instants k period after the start; a relative tolerance absorbs the rounding of time
  const double instant = start_ + static_cast<double>(next_) * period_;
  if (time + tolerance_ < instant) {
    next_instant_ = instant;
    return false;
  }
  // the next instant after `time` (a step longer than the period skips instants)
  next_ = static_cast<uint64_t>(std::floor((time - start_) / period_ + 1e-9)) + 1;
  next_instant_ = start_ + static_cast<double>(next_) * period_;
  last_ = time;
  return true;
}

// (ring indices wrap by a subtraction: head_ < size and count_ < size)
void SampleClock::PushPending(double time, const Reading& values) {
  if (count_ == ring_.size()) {  // full: a larger ring, the pending samples first in order
    std::vector<Sample> larger(std::max<size_t>(4, 2 * ring_.size()));
    for (size_t i = 0; i < count_; ++i) larger[i] = ring_[(head_ + i) % ring_.size()];
    ring_ = std::move(larger);
    head_ = 0;
  }
  size_t slot = head_ + count_;
  if (slot >= ring_.size()) slot -= ring_.size();
  Sample& s = ring_[slot];
  s.time = time;
  s.values = values;
  ++count_;
}

const Reading* SampleClock::DeliverPending(double time) {
  const double due = time - latency_ + tolerance_;
  while (count_ > 0 && ring_[head_].time <= due) {
    held_ = ring_[head_].values;
    has_held_ = true;
    if (++head_ == ring_.size()) head_ = 0;
    --count_;
  }
  return has_held_ ? &held_ : nullptr;
}

double AxisState::Sample(const AxisNoise& n, double period, double truth, Stream* s) {
  // a term that is off draws nothing; √period is kept from the last sample (the same number)
  if (period != period_) period_ = period, root_period_ = std::sqrt(period), inverse_root_period_ = 1 / root_period_;
  const double white = n.white_density > 0 ? n.white_density * inverse_root_period_ * s->Normal() : 0.0;
  const double walk = n.bias_walk > 0 ? n.bias_walk * root_period_ * s->Normal() : 0.0;
  const double y = (1.0 + n.scale_factor) * truth + turn_on_ + bias_ + white;
  bias_ += walk;  // the bias of the next sample
  return Quantise(y, n.resolution);
}

double PressureAtDepth(double p_atm, double rho, double g, double depth) {
  return p_atm + rho * g * std::max(depth, 0.0);
}

double DepthFromPressure(double p_atm, double rho, double g, double p) { return (p - p_atm) / (rho * g); }

std::vector<Vec3> JanusBeams(int n, double angle, double azimuth0) {
  std::vector<Vec3> beams;
  beams.reserve(static_cast<size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) {
    const double az = azimuth0 + 2.0 * std::numbers::pi * i / n;
    beams.emplace_back(std::sin(angle) * std::cos(az), std::sin(angle) * std::sin(az), std::cos(angle));
  }
  return beams;
}

bool SolveVelocity(const std::vector<Vec3>& beams, const std::vector<double>& radial,
                   const std::vector<bool>& valid, Vec3* v) {
  Eigen::Matrix3d A = Eigen::Matrix3d::Zero();
  Vec3 b = Vec3::Zero();
  int count = 0;
  for (size_t i = 0; i < beams.size(); ++i) {
    if (!valid[i]) continue;
    A += beams[i] * beams[i].transpose();
    b += beams[i] * radial[i];
    ++count;
  }
  if (count < 3) return false;
  const Eigen::LDLT<Eigen::Matrix3d> ldlt(A);
  // beams that do not span 3D: the normal matrix is singular
  if (ldlt.info() != Eigen::Success || !(ldlt.rcond() > 1e-9)) return false;
  *v = ldlt.solve(b);
  return true;
}

double AllanDeviation(const std::vector<double>& y, double dt, int m) {
  const size_t n = y.size();
  if (m < 1 || n < static_cast<size_t>(2 * m + 1)) return std::nan("");
  // θ: the integral of the rate, θ_k = dt Σ_{i<k} y_i
  std::vector<double> theta(n + 1, 0.0);
  for (size_t i = 0; i < n; ++i) theta[i + 1] = theta[i] + dt * y[i];
  const double tau = m * dt;
  const size_t mm = static_cast<size_t>(m);
  double sum = 0;
  size_t count = 0;
  for (size_t k = 0; k + 2 * mm <= n; ++k) {
    const double d = theta[k + 2 * mm] - 2.0 * theta[k + mm] + theta[k];
    sum += d * d;
    ++count;
  }
  return std::sqrt(sum / (2.0 * tau * tau * static_cast<double>(count)));
}

}  // namespace nereid::sensors
