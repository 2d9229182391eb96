// Copyright Nereid authors.
// A vehicle's navigation filter as a small class over Eigen (physics/navigation.cc): an
// error-state Kalman filter (ESKF) that integrates an IMU and corrects itself with a DVL's
// velocity, a pressure sensor's depth, a heading and acoustic position fixes. The model
// and its Jacobians follow J. Solà, "Quaternion kinematics for the error-state Kalman
// filter" (2017, arXiv:1711.02508), section 5 (local, body-frame attitude error), and
// J. Farrell, "Aided Navigation" (2008), ch. 11-12 for the aiding sensors; Fossen (2021)
// ch. 13 describes the same filter for marine craft.
//
// State. The filter's frame is the IMU's (its site): nominal x = (p, v, q, b_a, b_g, c) with
// p, v the IMU's world position and velocity, q the world-from-IMU attitude, b_a, b_g the
// accelerometer and gyro biases, c the water's velocity (the current, world frame, what a
// DVL's water track is relative to); the error δx = (δp, δv, δθ, δb_a, δb_g, δc) (18), with
// the true attitude q ⊗ Exp(δθ).
//
// Propagation (Solà eqs. 260 and 269, Euler over one step h with the IMU's specific force
// f and rate ω, each held since its last sample):
//     a = R (f - b_a) + g,   p += v h + a h²/2,   v += a h,   q = q ⊗ Exp((ω - b_g) h)
//     F = I + [0 I 0 0 0 0; 0 0 -R[f-b_a]x -R 0 0; 0 0 -[ω-b_g]x 0 -I 0; 0...] h (first order)
//     Q = diag(0, σ_a² h, σ_g² h, σ_ba² h, σ_bg² h, σ_c² h)
// with σ_a, σ_g the white noise densities (plus the quantisation's variance step²/12 per
// sample of period T, i.e. step² T/12 per unit time), σ_ba, σ_bg the bias random walks and
// σ_c the current's (a random walk: c does not change in the nominal propagation).
//
// Updates (Joseph form, P = (I-KH) P (I-KH)ᵀ + K R Kᵀ; δx injected and reset, Solà 6.2-6.3):
//   DVL bottom lock: z = C_dᵀ (Rᵀ v + (ω - b_g) × r_d), r_d the DVL's lever arm and C_d
//       its rotation in the IMU frame; H_v = C_dᵀRᵀ, H_θ = C_dᵀ[Rᵀv]x, H_bg = C_dᵀ[r_d]x;
//       covariance σ_b² (DᵀD)⁻¹ for the beams D at the predicted speed (σ_b = σ0 + k_v|v| +
//       k_r range).
//   DVL water track: the same through the water, v - c for v: H_v = C_dᵀRᵀ, H_c = -C_dᵀRᵀ,
//       H_θ = C_dᵀ[Rᵀ(v - c)]x, H_bg = C_dᵀ[r_d]x (the bottom-lock model with the
//       velocity relative to the water); with bottom lock or fixes besides, c becomes
//       observable.
//   depth: z = -(p + R r_p)_z; H_p = -e_zᵀ, H_θ = e_zᵀ R [r_p]x; variance (σ_p² + step²/12)/(ρg)².
//   heading: z = atan2(R₁₀, R₀₀) of the IMU's x axis, innovation wrapped to (-π, π].
//   acoustic fix: z = p + R r_u (the transponder), covariance J diag(σ_ρ², σ_a², σ_a²) Jᵀ
//       from the range/bearing/elevation noise. A fix taken at t_s arrives `latency` later.
//       Stochastic cloning (S. Roumeliotis and J. Burdick, "Stochastic cloning: a
//       generalized framework for processing relative state measurements", ICRA 2002):
//       at t_s the filter keeps a clone y = (δp, δθ) of the pose error (ClonePose) with its
//       nominal pose; the covariance grows by Cov(δx, y) = X and Cov(y) = Y. Propagation
//       maps X to F X; every update corrects the clones too (gain Xᵀ Hᵀ S⁻¹, their nominal
//       poses injected and reset like the state's); the fix then updates against the
//       clone, z = p_s + R_s r_u, H_y = [I, -R_s [r_u]x], with the gains X H_yᵀ S⁻¹ and
//       Y H_yᵀ S⁻¹, S = H_y Y H_yᵀ + R (the augmented covariance less K S Kᵀ, not the
//       Joseph form), and the clone is dropped. For a linear system this is
//       the update the fix would have made at t_s followed by every later step (tests/
//       sensors); the error's change over the latency and its correlation with the updates
//       in between are carried. A fix without a clone (taken before the filter started, or
//       beyond kMaxClones pending) falls back to the approximation of Farrell 2008 sec.
//       12.4: its innovation against the buffered nominal state nearest t_s, applied with
//       the present covariance.
// NEES = δxᵀ P⁻¹ δx over (δp, δv, δθ) (9 degrees of freedom) against the truth.
#ifndef NEREID_NAVIGATION_H_
#define NEREID_NAVIGATION_H_

#include <deque>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "nereid/frames.h"

namespace nereid::nav {

// Offsets of the error state's blocks, and its size.
inline constexpr int kP = 0, kV = 3, kTheta = 6, kBa = 9, kBg = 12, kC = 15, kN = 18;

using MatN = Eigen::Matrix<double, kN, kN>;
using VecN = Eigen::Matrix<double, kN, 1>;
using Quat = Eigen::Quaterniond;

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
  Vec3 c = Vec3::Zero();  // the current (world), m/s
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
  // current_walk: σ_c, the current's random walk density (m/s/√s)
  ErrorStateKf(const NavState& x0, const MatN& P0, const ImuNoise& imu, const Vec3& gravity,
               double current_walk = 0);

  // Integrates the nominal state and the covariance over h seconds with the IMU's
  // specific force f and rate w (IMU frame), as held since their last sample.
  void Propagate(const Vec3& f, const Vec3& w, double h);

  // Each update returns the normalised innovation squared (NIS), or a negative number
  // when the innovation covariance is not positive definite (the update is skipped).
  // v_sensor: the DVL's velocity in its frame; C: the DVL frame's rotation in the IMU
  // frame; r: its position in the IMU frame; w: the gyro's present reading.
  double UpdateVelocity(const Vec3& v_sensor, const Mat3& C, const Vec3& r, const Vec3& w, const Mat3& cov);
  // the same through the water (a DVL's water track): v_sensor relative to the current
  double UpdateWaterVelocity(const Vec3& v_sensor, const Mat3& C, const Vec3& r, const Vec3& w, const Mat3& cov);
  // depth (m, positive down) of a point at r (IMU frame)
  double UpdateDepth(double depth, const Vec3& r, double variance);
  double UpdateHeading(double heading, double variance);
  // a world position fix of the point at r (IMU frame), taken at `sample_time`: against
  // the clone kept at that time (ClonePose), which it consumes, or without one against
  // the buffered state nearest that time (see the header).
  double UpdatePosition(const Vec3& fix, const Vec3& r, const Mat3& cov, double sample_time);
  // Keeps the present pose error as a clone for a fix sampled now, at `time` (the time
  // UpdatePosition will name); with kMaxClones pending it keeps none (that fix falls back).
  void ClonePose(double time);
  // Drops the clone kept at `time` (a fix that arrived invalid), and any older one.
  void DropClone(double time);
  static constexpr int kMaxClones = 16;
  int clones() const { return static_cast<int>(clones_.size()); }
  // The covariance of the state's error and the clones' together, kN + 6 clones() square
  // (the clones in the order they were kept, each (δp, δθ)), and clone i's time and pose.
  Eigen::MatrixXd AugmentedCovariance() const;
  double clone_time(int i) const { return clones_.at(static_cast<size_t>(i)).time; }
  Vec3 clone_position(int i) const { return clones_.at(static_cast<size_t>(i)).p; }
  Quat clone_attitude(int i) const { return clones_.at(static_cast<size_t>(i)).q; }

  const NavState& state() const { return x_; }
  const MatN& covariance() const { return P_; }
  // The state buffered for delayed fixes: `history_seconds` of past nominal states.
  void set_history_seconds(double s) { history_seconds_ = s; }

 private:
  struct PoseClone {
    double time = 0;
    Vec3 p = Vec3::Zero();
    Quat q = Quat::Identity();
  };
  double Update(const Eigen::Ref<const Eigen::VectorXd>& innovation, const Eigen::Ref<const Eigen::MatrixXd>& H,
                const Eigen::Ref<const Eigen::MatrixXd>& R);
  // injects the clones' errors dy (6 per clone) into their nominal poses and resets them:
  // X <- X G_yᵀ, Y <- G_y Y G_yᵀ
  void InjectClones(const Eigen::VectorXd& dy);
  // injects the state's error dx into its nominal state and resets it: P <- G P Gᵀ, X <- G X
  void Inject(const VecN& dx);
  double UpdatePositionFromClone(const Vec3& fix, const Vec3& r, const Mat3& cov, int clone);
  // a DVL velocity over the bottom, or (water) through the water
  double UpdateDvl(const Vec3& v_sensor, const Mat3& C, const Vec3& r, const Vec3& w, const Mat3& cov, bool water);
  int FindClone(double time) const;
  void EraseClone(int index);
  NavState x_;
  MatN P_;
  ImuNoise imu_;
  Vec3 g_;
  double current_walk_ = 0;
  std::deque<NavState> history_;
  double history_seconds_ = 2.0;
  std::vector<PoseClone> clones_;
  Eigen::MatrixXd X_;  // kN x 6n: Cov(δx, y) of the state's and the clones' errors
  Eigen::MatrixXd Y_;  // 6n x 6n: Cov(y), the clones' errors
};

// The 9-dof NEES of an estimate against the truth (IMU frame's p, v, attitude) under the
// filter's covariance P: e = (p̂ - p, v̂ - v, Log(q̂⁻¹ q)) so that the truth is q̂ ⊗ Exp(δθ).
double Nees(const NavState& estimate, const MatN& P, const Vec3& p, const Vec3& v, const Quat& q);

// Dead reckoning's closed form: the standard deviation of one horizontal position axis
// after time t when each of n = t/T velocity samples of period T carries independent
// white noise σ_v and the position integrates them: σ_p(t) = σ_v √(T t).
inline double DeadReckoningSigma(double sigma_v, double period, double t) {
  return sigma_v * std::sqrt(period * t);
}

}  // namespace nereid::nav

#endif  // NEREID_NAVIGATION_H_
