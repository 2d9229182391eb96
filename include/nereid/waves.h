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

#include <cstdint>
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

}  // namespace nereid::waves

#endif  // NEREID_WAVES_H_
