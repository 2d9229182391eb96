// Copyright Nereid authors.
// The marine sensors' mathematics as pure functions (physics/sensors.cc): the random
// streams their noise comes from, the sample-and-hold clock with latency, the noise
// models (white noise, bias random walk, turn-on bias, scale factor, quantisation), the
// hydrostatic pressure, the DVL's Janus beam geometry and its velocity solve, and the
// Allan deviation the noise is checked with. The plugins (plugins/pressure, imu, dvl,
// acoustic, altimeter) adapt them to MuJoCo; docs/sensors.md describes the models.
#ifndef NEREID_SENSORS_H_
#define NEREID_SENSORS_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "nereid/frames.h"

namespace nereid::sensors {

// ---- random streams --------------------------------------------------------------------
// A counter-based generator: the k-th draw of a stream is a pure function of (seed,
// stream, k), so a sensor's noise is bitwise reproducible, independent of how often the
// pipeline calls it, and copied with its counter alone.
// SplitMix64's finaliser
constexpr uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
// A stream id from a sensor's name (FNV-1a), so that two sensors never share a stream.
uint64_t StreamId(std::string_view name);
// The key of stream `stream` under `seed`: draw k of the stream is Mix(key + k).
constexpr uint64_t StreamKey(uint64_t seed, uint64_t stream) { return Mix(seed ^ Mix(stream)); }
// Uniform in (0, 1) from draw k of the stream with key `key`: 53 random bits, shifted by
// half a step (never 0, never 1).
inline double UniformFromKey(uint64_t key, uint64_t k) {
  return (static_cast<double>(Mix(key + k) >> 11) + 0.5) * 0x1.0p-53;
}
// Uniform in (0, 1), and a standard normal, for draw k.
inline double Uniform(uint64_t seed, uint64_t stream, uint64_t k) {
  return UniformFromKey(StreamKey(seed, stream), k);
}
// A standard normal from draw k of the stream with key `key`: the ziggurat (Marsaglia and
// Tsang 2000, 256 boxes) on Mix(key + k), whose bits give the box, the sign and the
// abscissa; the rare draws that fall in a box's wedge or in the tail beyond r = 3.654 take
// further words Mix(Mix(key + k) + j), j = 1, 2, ... (physics/sensors.cc).
double NormalFromKey(uint64_t key, uint64_t k);
inline double Normal(uint64_t seed, uint64_t stream, uint64_t k) { return NormalFromKey(StreamKey(seed, stream), k); }

// A stream with a counter: each call takes the next draw. Its keys are computed once, so a
// draw costs one Mix (and, about once in a hundred normals, a few more).
class Stream {
 public:
  Stream() : Stream(0, 0) {}
  Stream(uint64_t seed, uint64_t stream) : key_(StreamKey(seed, stream)), uniform_key_(StreamKey(seed, ~stream)) {}
  // the same value as sensors::Normal(seed, stream, counter)
  double Normal() { return NormalFromKey(key_, counter_++); }
  // a stream of its own, so that it never reuses a normal draw's words
  double Uniform() { return UniformFromKey(uniform_key_, counter_++); }
  void Restart() { counter_ = 0; }
  uint64_t counter() const { return counter_; }

 private:
  uint64_t key_ = 0, uniform_key_ = 0, counter_ = 0;  // StreamKey(seed, stream), of ~stream
};

// ---- sampling clock --------------------------------------------------------------------
// A sensor's reading: its first `dim` entries (the DVL's 13 fields are the most).
inline constexpr int kMaxReading = 16;
using Reading = std::array<double, kMaxReading>;

// Sample-and-hold at `rate` (Hz) from time `start`, delivered `latency` seconds after it
// was taken. Due(t) is true once per sample instant (k / rate after start; a call at the
// same time again is not due); Push stores a sample taken at t; Deliver(t) returns the
// newest sample taken at or before t - latency (nullptr before the first). A time earlier
// than the last sample's (a state restored without a reset) restarts the clock there.
// The samples waiting for their latency sit in a ring that grows only while more of them
// are pending than ever before: no allocation per sample. Without latency a sample is
// held at once (it is delivered by the same call), without the ring.
class alignas(64) SampleClock {
 public:
  SampleClock() = default;
  SampleClock(double rate, double latency)
      : tolerance_(1e-9 * (1.0 / rate)), latency_(latency), period_(1.0 / rate) {}
  // (inline: the common calls, between sample instants and with nothing pending, decide
  // from a few comparisons; DueSlow and DeliverPending do the rest)
  bool Due(double time) { return !BeforeNextInstant(time) && DueSlow(time); }
  // Neither a sample due nor a pending one to deliver at `time` (after the clock started,
  // time not set back): the delivered reading is the one of the last call.
  bool Idle(double time) const { return BeforeNextInstant(time) && !Pending(time); }
  void Push(double time, const Reading& values) {
    if (latency_ == 0 && count_ == 0) {  // delivered at this call: held at once, no ring
      held_ = values;
      has_held_ = true;
      return;
    }
    PushPending(time, values);
  }
  const Reading* Deliver(double time) {
    if (Pending(time)) return DeliverPending(time);
    return has_held_ ? &held_ : nullptr;
  }
  void Reset() {
    started_ = false;
    next_ = 0;
    last_ = 0;
    head_ = count_ = 0;
    has_held_ = false;
  }
  double period() const { return period_; }
  double latency() const { return latency_; }

 private:
  struct Sample {
    double time = 0;
    Reading values{};
  };
  // running, time not set back, and the next sample instant not reached
  bool BeforeNextInstant(double time) const {
    return started_ && !(time + tolerance_ < last_) && time + tolerance_ < next_instant_;
  }
  // the oldest pending sample is due for delivery
  bool Pending(double time) const { return count_ > 0 && ring_[head_].time <= time - latency_ + tolerance_; }
  bool DueSlow(double time);
  void PushPending(double time, const Reading& values);
  const Reading* DeliverPending(double time);
  // What Idle reads comes first, in the clock's first cache line (the class is aligned to
  // one): an engine that checks every sensor's clock at every step touches one line per
  // sensor, which a batch of environments stepped in turn finds out of the caches.
  double tolerance_ = 0;      // 1e-9 period: absorbs the rounding of time
  double last_ = 0;           // the latest sample's time
  double next_instant_ = 0;   // the next sample instant's time, start_ + next_ period_
  size_t count_ = 0, head_ = 0;
  bool started_ = false;
  double latency_ = 0;
  std::vector<Sample> ring_;  // pending samples: count_ of them from head_, in time order
  double period_ = 0;
  double start_ = 0;          // the first sample's time
  uint64_t next_ = 0;         // index of the next sample instant
  Reading held_{};
  bool has_held_ = false;
};

// ---- noise models ----------------------------------------------------------------------
// One axis of an inertial sensor (IEEE Std 952 / 1293 terms): the reading of a sample of
// period T is y = (1 + s) x + b + b0 + q(σ_w / √T n), quantised to `resolution`, with
// white noise density σ_w, turn-on bias b0 (drawn once) and a bias random walk
// b_{k+1} = b_k + σ_b √T n_k.
struct AxisNoise {
  double white_density = 0;   // σ_w, units/√Hz
  double bias_walk = 0;       // σ_b, units/s/√Hz
  double turn_on_bias = 0;    // standard deviation of b0
  double scale_factor = 0;    // s, fraction
  double resolution = 0;      // quantisation step, 0: none
};
class AxisState {
 public:
  // b0 drawn from the stream
  void Start(const AxisNoise& n, Stream* s) {
    turn_on_ = n.turn_on_bias * s->Normal();
    bias_ = 0;
  }
  double Sample(const AxisNoise& n, double period, double truth, Stream* s);
  double bias() const { return bias_ + turn_on_; }

 private:
  double turn_on_ = 0, bias_ = 0;
  double period_ = 0, root_period_ = 0, inverse_root_period_ = 0;  // the last sample's period, √, 1/√
};
// x rounded to the nearest multiple of `resolution` (ties to even; unchanged when
// resolution <= 0). Inline, without a library call: q + 1.5·2^52 − 1.5·2^52 is q rounded to
// an integer (IEEE round to nearest, ties to even) for |q| < 2^51.
inline double Quantise(double x, double resolution) {
  if (!(resolution > 0)) return x;
  const double q = x / resolution;
  constexpr double kShift = 0x1.8p52;
  const double whole = std::abs(q) < 0x1p51 ? (q + kShift) - kShift : std::nearbyint(q);
  return resolution * whole;
}

// ---- pressure --------------------------------------------------------------------------
// Absolute pressure at depth below the free surface: p_atm + ρ g max(depth, 0), Pa.
double PressureAtDepth(double p_atm, double rho, double g, double depth);
// The depth a gauge infers from its pressure: (p - p_atm) / (ρ g), m.
double DepthFromPressure(double p_atm, double rho, double g, double p);

// ---- DVL -------------------------------------------------------------------------------
// The DVL's `status` field: no lock, bottom lock (three or more beams on a geom), water track
// (relative to the current, when no bottom is in range).
inline constexpr int kDvlNoLock = 0, kDvlBottomLock = 1, kDvlWaterTrack = 2;
// Unit beam directions in the DVL frame for a Janus array of `n` beams at `angle` (rad)
// from the boresight +z (the site's z axis, as MuJoCo's rangefinder), the first at azimuth
// `azimuth0` (rad) from +x, then every 2π/n.
std::vector<Vec3> JanusBeams(int n, double angle, double azimuth0);
// Radial velocity of beam `d`: the component of the DVL's velocity over the bottom along
// the beam (positive towards the bottom).
inline double RadialVelocity(const Vec3& velocity, const Vec3& d) { return d.dot(velocity); }
// The velocity that best explains the radial velocities of the beams with valid[i]
// (least squares, (DᵀD)⁻¹Dᵀr); false, and v untouched, with fewer than 3 valid beams
// or beams that do not span 3D.
bool SolveVelocity(const std::vector<Vec3>& beams, const std::vector<double>& radial,
                   const std::vector<bool>& valid, Vec3* v);
// Velocity of a point at lever arm r from a frame moving with v and ω (same frame).
inline Vec3 PointVelocity(const Vec3& v, const Vec3& omega, const Vec3& r) { return v + omega.cross(r); }
// Standard deviation of one beam's radial velocity: a floor, a part proportional to the
// speed along the beam, and one growing with the beam's range.
inline double BeamNoise(double floor, double per_speed, double per_range, double radial, double range) {
  return floor + per_speed * std::abs(radial) + per_range * range;
}

// ---- Allan deviation -------------------------------------------------------------------
// The overlapping Allan deviation of a rate record y (sample period dt) at cluster size m
// (τ = m dt), IEEE Std 952-1997 Annex C. White noise of density N gives N/√τ, a rate
// random walk of density K gives K √(τ/3).
double AllanDeviation(const std::vector<double>& y, double dt, int m);

}  // namespace nereid::sensors

#endif  // NEREID_SENSORS_H_
