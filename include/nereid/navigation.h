// Copyright Nereid authors.
// A vehicle's navigation filter as a small class over Eigen (physics/navigation.cc): an
// error-state Kalman filter (ESKF) that integrates an IMU and corrects itself with a DVL's
// velocity, a pressure sensor's depth, a heading and acoustic position fixes. The model
// and its Jacobians follow J. Solà, "Quaternion kinematics for the error-state Kalman
// filter" (2017, arXiv:1711.02508), section 5 (local, body-frame attitude error), and
// J. Farrell, "Aided Navigation" (2008), ch. 11-12 for the aiding sensors; Fossen (2021)
// ch. 13 describes the same filter for marine craft.
//
// State. The filter's frame is the IMU's (its site): nominal x = (p, v, q, b_a, b_g) with
// p, v the IMU's world position and velocity, q the world-from-IMU attitude, b_a, b_g the
// accelerometer and gyro biases; the error δx = (δp, δv, δθ, δb_a, δb_g) (15), with the
// true attitude q ⊗ Exp(δθ).
//
// Propagation (Solà eqs. 260 and 269, Euler over one step h with the IMU's specific force
// f and rate ω, each held since its last sample):
//     a = R (f - b_a) + g,   p += v h + a h²/2,   v += a h,   q = q ⊗ Exp((ω - b_g) h)
//     F = I + [0 I 0 0 0; 0 0 -R[f-b_a]x -R 0; 0 0 -[ω-b_g]x 0 -I; 0...] h (first order)
//     Q = diag(0, σ_a² h, σ_g² h, σ_ba² h, σ_bg² h)
// with σ_a, σ_g the white noise densities (plus the quantisation's variance step²/12 per
// sample of period T, i.e. step² T/12 per unit time), σ_ba, σ_bg the bias random walks.
//
// Updates (Joseph form, P = (I-KH) P (I-KH)ᵀ + K R Kᵀ; δx injected and reset, Solà 6.2-6.3):
//   DVL (bottom lock only): z = C_dᵀ (Rᵀ v + (ω - b_g) × r_d), r_d the DVL's lever arm and C_d
//       its rotation in the IMU frame; H_v = C_dᵀRᵀ, H_θ = C_dᵀ[Rᵀv]x, H_bg = C_dᵀ[r_d]x;
//       covariance σ_b² (DᵀD)⁻¹ for the beams D at the predicted speed (σ_b = σ0 + k_v|v| +
//       k_r range).
//   depth: z = -(p + R r_p)_z; H_p = -e_zᵀ, H_θ = e_zᵀ R [r_p]x; variance (σ_p² + step²/12)/(ρg)².
//   heading: z = atan2(R₁₀, R₀₀) of the IMU's x axis, innovation wrapped to (-π, π].
//   acoustic fix: z = p + R r_u (the transponder), covariance J diag(σ_ρ², σ_a², σ_a²) Jᵀ
//       from the range/bearing/elevation noise. A fix taken at t_s arrives `latency` later:
//       its innovation is formed against the nominal state at t_s, kept in a buffer of past
//       states, and applied as a correction now with the present covariance (the error is
//       taken as unchanged over the latency: the delayed-measurement approximation of
//       Farrell 2008 sec. 12.4 without the cross covariance, accurate while the latency is
//       short beside the time the position error takes to change; 0.3 s by default).
// NEES = δxᵀ P⁻¹ δx over (δp, δv, δθ) (9 degrees of freedom) against the truth.
#ifndef NEREID_NAVIGATION_H_
#define NEREID_NAVIGATION_H_

#include <deque>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "nereid/frames.h"

namespace nereid::nav {

using Mat15 = Eigen::Matrix<double, 15, 15>;
using Vec15 = Eigen::Matrix<double, 15, 1>;
using Quat = Eigen::Quaterniond;

// Offsets of the error state's blocks.
inline constexpr int kP = 0, kV = 3, kTheta = 6, kBa = 9, kBg = 12;

// The IMU's noise, as nereid.imu's keys (plugins/imu/README.md) define it.
struct ImuNoise {
  double accel_density = 0, accel_walk = 0, accel_resolution = 0, accel_turn_on = 0;
  double gyro_density = 0, gyro_walk = 0, gyro_resolution = 0, gyro_turn_on = 0;
  double period = 0.01;  // s, 1/rate
};

struct NavState {
  double time = 0;
  Vec3 p = Vec3::Zero(), v = Vec3::Zero();
  Quat q = Quat::Identity();  // world from IMU
  Vec3 ba = Vec3::Zero(), bg = Vec3::Zero();
};

// Exp of a rotation vector as a unit quaternion (Solà eq. 101), exact near zero.
Quat ExpQuat(const Vec3& theta);
// The rotation vector of a unit quaternion (Log), |angle| <= π.
Vec3 LogQuat(const Quat& q);
inline Mat3 Skew(const Vec3& a) {
  Mat3 s;
  s << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return s;
}
// The heading of a frame's x axis in the world's horizontal plane, from +x towards +y (as
// nereid.imu's heading), and its Jacobian in the local attitude error δθ.
double Heading(const Mat3& R);
Eigen::RowVector3d HeadingJacobian(const Mat3& R);
// Covariance of a fix x = origin + ρ (cos ε cos β, cos ε sin β, sin ε) from independent
// range, bearing and elevation noise (first order).
Mat3 SphericalFixCovariance(double range, double bearing, double elevation, double sigma_range,
                            double sigma_angle);
// The least-squares velocity covariance of a Janus DVL per unit beam variance: (DᵀD)⁻¹.
Mat3 DvlGeometry(const std::vector<Vec3>& beams);

// The nominal state carried h seconds ahead with the IMU's specific force f and rate w
// (Solà eq. 260; the covariance untouched): what Propagate does to the state.
NavState PropagateNominal(const NavState& x, const Vec3& f, const Vec3& w, double h, const Vec3& gravity);

class ErrorStateKf {
 public:
  ErrorStateKf(const NavState& x0, const Mat15& P0, const ImuNoise& imu, const Vec3& gravity);

  // Integrates the nominal state and the covariance over h seconds with the IMU's
  // specific force f and rate w (IMU frame), as held since their last sample.
  void Propagate(const Vec3& f, const Vec3& w, double h);

  // Each update returns the normalised innovation squared (NIS), or a negative number
  // when the innovation covariance is not positive definite (the update is skipped).
  // v_sensor: the DVL's velocity in its frame; C: the DVL frame's rotation in the IMU
  // frame; r: its position in the IMU frame; w: the gyro's present reading.
  double UpdateVelocity(const Vec3& v_sensor, const Mat3& C, const Vec3& r, const Vec3& w, const Mat3& cov);
  // depth (m, positive down) of a point at r (IMU frame)
  double UpdateDepth(double depth, const Vec3& r, double variance);
  double UpdateHeading(double heading, double variance);
  // a world position fix of the point at r (IMU frame), taken at `sample_time`: the
  // innovation is formed against the buffered state nearest that time (see the header).
  double UpdatePosition(const Vec3& fix, const Vec3& r, const Mat3& cov, double sample_time);

  const NavState& state() const { return x_; }
  const Mat15& covariance() const { return P_; }
  // The state buffered for delayed fixes: `history_seconds` of past nominal states.
  void set_history_seconds(double s) { history_seconds_ = s; }

 private:
  double Update(const Eigen::Ref<const Eigen::VectorXd>& innovation, const Eigen::Ref<const Eigen::MatrixXd>& H,
                const Eigen::Ref<const Eigen::MatrixXd>& R);
  NavState x_;
  Mat15 P_;
  ImuNoise imu_;
  Vec3 g_;
  std::deque<NavState> history_;
  double history_seconds_ = 2.0;
};

// The 9-dof NEES of an estimate against the truth (IMU frame's p, v, attitude) under the
// filter's covariance P: e = (p̂ - p, v̂ - v, Log(q̂⁻¹ q)) so that the truth is q̂ ⊗ Exp(δθ).
double Nees(const NavState& estimate, const Mat15& P, const Vec3& p, const Vec3& v, const Quat& q);

// Dead reckoning's closed form: the standard deviation of one horizontal position axis
// after time t when each of n = t/T velocity samples of period T carries independent
// white noise σ_v and the position integrates them: σ_p(t) = σ_v √(T t).
inline double DeadReckoningSigma(double sigma_v, double period, double t) {
  return sigma_v * std::sqrt(period * t);
}

}  // namespace nereid::nav

#endif  // NEREID_NAVIGATION_H_
