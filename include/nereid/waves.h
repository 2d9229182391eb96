// Copyright Nereid authors.
// Linear (Airy) surface waves: a regular wave or an irregular sea sampled from a JONSWAP or
// Pierson-Moskowitz spectrum, in deep water or water of finite depth (docs/waves.md). World
// frame is MuJoCo's: z up, the mean free surface at z = 0, the seabed at z = -depth. A
// wave of direction beta travels towards (cos beta, sin beta, 0).
//
// A sea is a sum of components i of amplitude a_i, angular frequency w_i, wave number k_i
// (w_i^2 = g k_i tanh(k_i h)), direction beta_i and phase phi_i:
//   theta_i = k_i (x cos beta_i + y sin beta_i) - w_i t + phi_i
//   eta     = sum a_i cos theta_i
//   u_h     = sum a_i w_i C_i(z) cos theta_i   (along beta_i),  C = cosh k(z+h) / sinh kh
//   w       = sum a_i w_i S_i(z) sin theta_i,                     S = sinh k(z+h) / sinh kh
// (deep water: C = S = e^{kz}); the acceleration is the local derivative du/dt (linear
// theory leaves out the convective term, second order in the wave steepness). Above the
// mean surface the kinematics are those at z = 0 (constant extrapolation); below the
// seabed those at the seabed.
#ifndef NEREID_WAVES_H_
#define NEREID_WAVES_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nereid/frames.h"

namespace nereid::waves {

constexpr double kGravity = 9.81;             // m/s^2, as the models' <option gravity>
constexpr double kBreakingSteepness = 1.0 / 7;  // H / L above which a wave breaks (Michell)
constexpr int kMaxComponents = 1024;          // an irregular sea's components: at most
constexpr int kDefaultComponents = 64;

// The wave number k (rad/m) of angular frequency w (rad/s) in water of depth h (m):
// w^2 = g k tanh(k h), solved by Newton's method from Eckart's approximation to a
// relative residual below 1e-12; h <= 0 or infinite means deep water (k = w^2 / g).
double WaveNumber(double omega, double depth, double g = kGravity);

// The wave elevation, velocity and acceleration at one place and time.
struct Kinematics {
  double elevation = 0;              // m, of the free surface above (x, y)
  Vec3 velocity = Vec3::Zero();      // m/s, world
  Vec3 acceleration = Vec3::Zero();  // m/s^2, world: the local derivative du/dt
  // 1/s, world: du_i/dx_j, for the convective acceleration (u . grad) u = gradient * u
  // (second order, but steady: leaving it out lets a body that follows the water drift);
  // its z column is zero where the kinematics are extrapolated (above z = 0, below the seabed)
  Mat3 gradient = Mat3::Zero();
};

struct Component {
  double amplitude = 0;  // m
  double omega = 0;      // rad/s
  double k = 0;          // rad/m
  double direction = 0;  // rad
  double phase = 0;      // rad
  // cos and sin of the direction and sinh k h (finite depth), set by WaveField: computed
  // once, not at every evaluation
  double cos_direction = 1, sin_direction = 0, sinh_kh = 0;
};

enum class SpectrumKind { kJonswap, kPiersonMoskowitz };

// An irregular sea's parameters (docs/waves.md).
struct SeaState {
  SpectrumKind kind = SpectrumKind::kJonswap;
  double significant_height = 1;  // Hs, m
  double peak_period = 8;         // Tp, s
  double gamma = 3.3;             // JONSWAP peak enhancement, 1..7 (PM: 1)
  double direction = 0;           // mean direction, rad
  double spreading = 0;           // s of the cos^2s((beta - mean) / 2) spreading; 0: none
  int components = kDefaultComponents;
  std::uint64_t seed = 1;
  // the frequency band sampled, as multiples of the peak frequency: components equally
  // spaced in w over [low, high] w_p (their centres)
  double low = 0.5, high = 3.0;
};

// The factor that scales a sea state's spectral shape (PM's, times gamma^r for JONSWAP) so
// that its integral over 0 < w < infinity is Hs^2 / 16 (a numerical integral: compute it
// once per sea state).
double SpectralScale(const SeaState& sea);
// The one-sided spectral density S(w) (m^2 s/rad) of a sea state, with its SpectralScale.
double SpectralDensity(const SeaState& sea, double omega, double scale);

class WaveField {
 public:
  WaveField() = default;  // calm water
  // A regular wave of height H (crest to trough, m) and period T (s) travelling towards
  // `direction` (rad), crest at the origin at t = 0 (phase shifts it). depth <= 0: deep.
  static WaveField Regular(double height, double period, double direction, double depth, double phase = 0);
  // An irregular sea: sea.components components equally spaced in frequency, amplitudes
  // sqrt(2 S(w_i) dw), phases uniform in [0, 2 pi) and (with spreading) directions drawn
  // from the cos^2s law, all from a counter-based generator seeded by sea.seed (the same
  // sea on every machine).
  static WaveField Irregular(const SeaState& sea, double depth);
  // Any set of components (their k is recomputed from w and the depth).
  static WaveField FromComponents(std::vector<Component> components, double depth);

  // The first rule a regular wave or a sea state breaks, "" if none: period and heights
  // > 0, steepness H / L (Hs / L_p) at most 1/7, gamma in 1..7, spreading in 0..100,
  // components in 1..kMaxComponents, the band 0 < low < 1 < high <= 10.
  static std::string RegularRule(double height, double period, double depth);
  static std::string SeaStateRule(const SeaState& sea, double depth);

  bool calm() const { return components_.empty(); }
  double depth() const { return depth_; }  // <= 0: deep water
  const std::vector<Component>& components() const { return components_; }
  // 4 sqrt(sum a_i^2 / 2): the significant height of the sampled sea
  double SignificantHeight() const;

  double Elevation(double x, double y, double t) const;
  Kinematics At(const Vec3& p, double t) const;
  // At(p, t).velocity alone, bit for bit, without the acceleration and the gradient (for
  // readers of the velocity only: thrusters' inflow, tether segments)
  Vec3 Velocity(const Vec3& p, double t) const;
  // The absolute pressure at p (Pa) in linear wave theory: the hydrostatic pressure below
  // the mean surface plus each component's dynamic pressure with its depth attenuation,
  //   p = p_atm - rho g z + rho g sum a_i K_i(z) cos theta_i,
  //   K = cosh k(z+h) / cosh kh   (deep water: e^{kz}),
  // K taken at z = 0 above the mean surface (there p = p_atm + rho g (eta - z) under a
  // crest) and at the seabed below it; never below p_atm (a point above the surface).
  // Calm water: p_atm + rho g max(-z, 0). g is the model's gravity (the dispersion
  // relation uses kGravity).
  double Pressure(const Vec3& p, double t, double rho, double g, double p_atm) const;

 private:
  std::vector<Component> components_;
  double depth_ = 0;
};

// The waves at one point with their first derivatives in space, for a body whose parts
// (the hydrodynamics at its origin, the buoyancy at its centre of buoyancy, the thrusters'
// inflow at their sites) all take the sea from one evaluation at the body's origin.
struct LocalWaves {
  Vec3 point = Vec3::Zero();  // where it was taken, z clamped to the water column
  double seabed = -1e300;     // z of the waves' seabed (-1e300: deep water)
  Kinematics at;              // WaveField::At(point)
  double slope_x = 0, slope_y = 0;            // d eta / dx, d eta / dy
  Mat3 acceleration_gradient = Mat3::Zero();  // d a_i / d x_j, 1/s^2 (z column zero above the surface)
  // The kinematics at q to first order in k |q - point| (q's z clamped to the water column
  // as At clamps it; the gradient is held): the error is second order, (k r)^2 / 2 of a
  // component of wave number k at distance r (docs/waves.md "Cost"). At `point`, `at`.
  Kinematics Near(const Vec3& q) const;
  Vec3 VelocityNear(const Vec3& q) const;

 private:
  Vec3 Offset(const Vec3& q) const;  // q - point, q's z clamped to the water column
};

// Follows the sea at a moving point: each Sample from the last one by turning every
// component's phase through its small increment k (dx cos b + dy sin b) - w dt and scaling
// its depth factors by e^{+-k dz} (Taylor series, exact to rounding for increments up to
// kMaxIncrement rad), from scratch (as At) when an increment is larger, after kResync
// updates, at the first call and when the field changes. The result agrees with At and
// its derivatives to about 1e-13 of the sum of the components' magnitudes (tested), at a
// fraction of At's cost: no sine, cosine or exponential per component and step.
// One Tracker per point followed; not thread-safe (one per mjData).
class Tracker {
 public:
  static constexpr double kMaxIncrement = 0.1;  // rad (and k dz)
  static constexpr int kResync = 256;            // updates between exact evaluations

  const LocalWaves& Sample(const std::shared_ptr<const WaveField>& field, const Vec3& p, double t);
  int exact_evaluations() const { return exact_; }  // for tests: how often it started afresh

 private:
  void Rebuild();                       // the per-component constants of field_
  void Exact(const Vec3& p, double t);  // the state at p (z clamped) from scratch, as At
  // the sums at the state (advanced first by delta, dt: false if too far); physics/wave_tracker_pass.h
  bool Pass(bool advance, const Vec3& delta, double dt);

  std::shared_ptr<const WaveField> field_;
  bool valid_ = false, inside_ = true, one_direction_ = true;
  int updates_ = 0, exact_ = 0;
  double t_ = 0, k_max_ = 0, w_max_ = 0;
  Vec3 p_ = Vec3::Zero();  // the unclamped point of the last sample
  LocalWaves out_;
  // per component, padded to a multiple of 4 with silent ones: k cos b, k sin b, k, w,
  // cos b, sin b, a, a w, a w^2, a k, a w k, a w^2 k
  std::vector<double> kc_, ks_, k_, w_, cb_, sb_, a_, aw_, aw2_, ak_, awk_, aw2k_;
  std::vector<double> c_, s_, f_, g_;  // the state: cos, sin of the phase; depth factors F, G
};

}  // namespace nereid::waves

#endif  // NEREID_WAVES_H_
