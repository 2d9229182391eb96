// Copyright Nereid authors.
#include "nereid/sensors.h"

#include <algorithm>
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
// Box-Muller on uniforms 2j and 2j+1 of the stream with key `key`: draws 2j and 2j+1 of
// its normals (independent), r cos a and r sin a
std::pair<double, double> NormalPair(uint64_t key, uint64_t j) {
  const double u1 = UniformFromKey(key, 2 * j);
  const double u2 = UniformFromKey(key, 2 * j + 1);
  const double r = std::sqrt(-2.0 * std::log(u1)), a = 2.0 * std::numbers::pi * u2;
  return {r * std::cos(a), r * std::sin(a)};
}
}  // namespace

double Normal(uint64_t seed, uint64_t stream, uint64_t k) {
  const auto [even, odd] = NormalPair(StreamKey(seed, stream), k / 2);
  return k % 2 ? odd : even;
}

double Stream::Normal() {
  // the pair's second output is kept for the next call: one logarithm per two draws
  if (counter_ % 2 == 1 && has_spare_) {
    has_spare_ = false;
    ++counter_;
    return spare_;
  }
  const auto [even, odd] = NormalPair(key_, counter_ / 2);
  const bool second = counter_ % 2 == 1;
  ++counter_;
  if (!second) {
    spare_ = odd;
    has_spare_ = true;
    return even;
  }
  return odd;
}

bool SampleClock::Due(double time) {
  // time set back (a state restored without mj_resetData): start again from there
  if (started_ && time + 1e-9 * period_ < last_) Reset();
  if (!started_) {
    started_ = true;
    start_ = time;
    next_ = 0;
  }
  // instants k period after the start; a relative tolerance absorbs the rounding of time
  const double instant = start_ + static_cast<double>(next_) * period_;
  if (time + 1e-9 * period_ < instant) return false;
  // the next instant after `time` (a step longer than the period skips instants)
  next_ = static_cast<uint64_t>(std::floor((time - start_) / period_ + 1e-9)) + 1;
  last_ = time;
  return true;
}

void SampleClock::Push(double time, const Reading& values) {
  if (count_ == ring_.size()) {  // full: a larger ring, the pending samples first in order
    std::vector<Sample> larger(std::max<size_t>(4, 2 * ring_.size()));
    for (size_t i = 0; i < count_; ++i) larger[i] = ring_[(head_ + i) % ring_.size()];
    ring_ = std::move(larger);
    head_ = 0;
  }
  Sample& s = ring_[(head_ + count_) % ring_.size()];
  s.time = time;
  s.values = values;
  ++count_;
}

const Reading* SampleClock::Deliver(double time) {
  const double due = time - latency_ + 1e-9 * period_;
  while (count_ > 0 && ring_[head_].time <= due) {
    held_ = ring_[head_].values;
    has_held_ = true;
    head_ = (head_ + 1) % ring_.size();
    --count_;
  }
  return has_held_ ? &held_ : nullptr;
}

double Quantise(double x, double resolution) {
  if (!(resolution > 0)) return x;
  return resolution * std::round(x / resolution);
}

double AxisState::Sample(const AxisNoise& n, double period, double truth, Stream* s) {
  // a term that is off draws nothing; √period is kept from the last sample (the same number)
  if (period != period_) period_ = period, root_period_ = std::sqrt(period);
  const double white = n.white_density > 0 ? n.white_density / root_period_ * s->Normal() : 0.0;
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
