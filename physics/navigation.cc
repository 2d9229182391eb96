// Copyright Nereid authors.
#include "nereid/navigation.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

#include "nereid/kinematics.h"

namespace nereid::nav {
namespace {

// Clone times match within this (relative, 1 s at least): the navigator names a fix's
// sample time as the time it cloned at, both read from the same clock
double CloneTolerance(double time) { return 1e-9 * std::max(1.0, std::abs(time)); }

// M = (M + Mᵀ)/2, exactly symmetric: evaluated into a temporary first (in place, the
// expression would read entries it has already overwritten)
template <class Matrix>
void Symmetrize(Matrix* M) {
  *M = (0.5 * (*M + M->transpose())).eval();
}

}  // namespace

Quat ExpQuat(const Vec3& theta) {
  const double a = theta.norm();
  if (a < 1e-8) {
    // second-order series: cos(a/2) ~ 1 - a²/8, sin(a/2)/a ~ 1/2 - a²/48
    const Vec3 xyz = theta * (0.5 - a * a / 48.0);
    return Quat(1.0 - a * a / 8.0, xyz.x(), xyz.y(), xyz.z()).normalized();
  }
  const Vec3 xyz = theta * (std::sin(0.5 * a) / a);
  return Quat(std::cos(0.5 * a), xyz.x(), xyz.y(), xyz.z());
}

Vec3 LogQuat(const Quat& q_in) {
  Quat q = q_in.normalized();
  if (q.w() < 0) q.coeffs() = -q.coeffs();  // the shorter way round
  const Vec3 xyz = q.vec();
  const double s = xyz.norm();
  if (s < 1e-12) return 2.0 * xyz;
  return xyz * (2.0 * std::atan2(s, q.w()) / s);
}

double Heading(const Mat3& R) { return std::atan2(R(1, 0), R(0, 0)); }

Eigen::RowVector3d HeadingJacobian(const Mat3& R) {
  // R' = R (I + [δθ]x): the first column changes by R (δθ x e_x) = R (0, δθz, -δθy)
  const double n = R(0, 0) * R(0, 0) + R(1, 0) * R(1, 0);
  Eigen::RowVector3d J;
  J << 0.0, -(R(0, 0) * R(1, 2) - R(1, 0) * R(0, 2)) / n, (R(0, 0) * R(1, 1) - R(1, 0) * R(0, 1)) / n;
  return J;
}

Mat3 SphericalFixCovariance(double range, double bearing, double elevation, double sigma_range,
                            double sigma_angle) {
  const double cb = std::cos(bearing), sb = std::sin(bearing), ce = std::cos(elevation),
               se = std::sin(elevation);
  Mat3 J;
  J.col(0) << ce * cb, ce * sb, se;
  J.col(1) << -range * ce * sb, range * ce * cb, 0.0;
  J.col(2) << -range * se * cb, -range * se * sb, range * ce;
  const Vec3 var(sigma_range * sigma_range, sigma_angle * sigma_angle, sigma_angle * sigma_angle);
  return J * var.asDiagonal() * J.transpose();
}

Mat3 DvlGeometry(const std::vector<Vec3>& beams) {
  Mat3 DtD = Mat3::Zero();
  for (const Vec3& b : beams) DtD += b * b.transpose();
  return DtD.inverse();
}

NavState PropagateNominal(const NavState& x, const Vec3& f, const Vec3& w, double h, const Vec3& gravity) {
  NavState y = x;
  const Vec3 a = x.q.toRotationMatrix() * (f - x.ba) + gravity;
  y.p += x.v * h + 0.5 * a * h * h;
  y.v += a * h;
  y.q = (x.q * ExpQuat((w - x.bg) * h)).normalized();
  y.time += h;
  return y;
}

ErrorStateKf::ErrorStateKf(const NavState& x0, const MatN& P0, const ImuNoise& imu, const Vec3& gravity,
                           double current_walk)
    : x_(x0), P_(P0), imu_(imu), g_(gravity), current_walk_(current_walk) {
  history_.push_back(x_);
}

void ErrorStateKf::Propagate(const Vec3& f, const Vec3& w, double h) {
  if (!(h > 0)) return;
  const Mat3 R = x_.q.toRotationMatrix();
  const Vec3 fa = f - x_.ba, wa = w - x_.bg;
  // the error state's transition (Solà eq. 269, first order in h)
  MatN F = MatN::Identity();
  F.block<3, 3>(kP, kV) = Mat3::Identity() * h;
  F.block<3, 3>(kV, kTheta) = -R * Skew(fa) * h;
  F.block<3, 3>(kV, kBa) = -R * h;
  F.block<3, 3>(kTheta, kTheta) = ExpQuat(wa * h).toRotationMatrix().transpose();
  F.block<3, 3>(kTheta, kBg) = -Mat3::Identity() * h;
  // white noise densities, the quantisation's variance per unit time added (step² T / 12)
  const double T = imu_.period;
  const double qa = imu_.accel_density * imu_.accel_density + imu_.accel_resolution * imu_.accel_resolution * T / 12;
  const double qg = imu_.gyro_density * imu_.gyro_density + imu_.gyro_resolution * imu_.gyro_resolution * T / 12;
  P_ = F * P_ * F.transpose();
  if (!clones_.empty()) X_ = F * X_;  // the clones stay: Cov(δx, y) follows the state
  for (int i = 0; i < 3; ++i) {
    P_(kV + i, kV + i) += qa * h;
    P_(kTheta + i, kTheta + i) += qg * h;
    P_(kBa + i, kBa + i) += imu_.accel_walk * imu_.accel_walk * h;
    P_(kBg + i, kBg + i) += imu_.gyro_walk * imu_.gyro_walk * h;
    P_(kC + i, kC + i) += current_walk_ * current_walk_ * h;
  }
  Symmetrize(&P_);
  x_ = PropagateNominal(x_, f, w, h, g_);  // the nominal state (Solà eq. 260)
  history_.push_back(x_);
  while (history_.size() > 2 && history_.front().time < x_.time - history_seconds_) history_.pop_front();
}

double ErrorStateKf::Update(const Eigen::Ref<const Eigen::VectorXd>& y, const Eigen::Ref<const Eigen::MatrixXd>& H,
                            const Eigen::Ref<const Eigen::MatrixXd>& Rn) {
  const Eigen::MatrixXd S = H * P_ * H.transpose() + Rn;
  const Eigen::LLT<Eigen::MatrixXd> llt(S);
  if (llt.info() != Eigen::Success) return -1;
  const Eigen::MatrixXd S_inverse = llt.solve(Eigen::MatrixXd::Identity(S.rows(), S.cols()));
  const Eigen::MatrixXd K = P_ * H.transpose() * S_inverse;
  const VecN dx = K * y;
  const MatN IKH = MatN::Identity() - K * H;
  // the clones (the augmented state's update, H zero on them): gain Xᵀ Hᵀ S⁻¹, then
  // Y -= K_y H X and X = (I - K H) X, from X before the update
  Eigen::VectorXd dy;
  if (!clones_.empty()) {
    const Eigen::MatrixXd Ky = X_.transpose() * H.transpose() * S_inverse;
    dy = Ky * y;
    Y_ -= Ky * (H * X_);
    Symmetrize(&Y_);
    X_ = IKH * X_;
  }
  P_ = IKH * P_ * IKH.transpose() + K * Rn * K.transpose();  // Joseph form
  Inject(dx);
  if (!clones_.empty()) InjectClones(dy);
  return y.dot(llt.solve(y));
}

void ErrorStateKf::Inject(const VecN& dx) {
  // inject the error into the nominal state (Solà eq. 283)
  x_.p += dx.segment<3>(kP);
  x_.v += dx.segment<3>(kV);
  x_.q = (x_.q * ExpQuat(dx.segment<3>(kTheta))).normalized();
  x_.ba += dx.segment<3>(kBa);
  x_.bg += dx.segment<3>(kBg);
  x_.c += dx.segment<3>(kC);
  // reset: G = I - [δθ/2]x on the attitude block (Solà eq. 287)
  MatN G = MatN::Identity();
  G.block<3, 3>(kTheta, kTheta) -= Skew(0.5 * dx.segment<3>(kTheta));
  P_ = G * P_ * G.transpose();
  Symmetrize(&P_);
  if (!clones_.empty()) X_ = G * X_;
  if (!history_.empty()) history_.back() = x_;
}

void ErrorStateKf::InjectClones(const Eigen::VectorXd& dy) {
  const auto n = static_cast<Eigen::Index>(6 * clones_.size());
  Eigen::MatrixXd G = Eigen::MatrixXd::Identity(n, n);
  for (size_t c = 0; c < clones_.size(); ++c) {
    const auto o = static_cast<Eigen::Index>(6 * c);
    const Vec3 dtheta = dy.segment<3>(o + 3);
    clones_[c].p += dy.segment<3>(o);
    clones_[c].q = (clones_[c].q * ExpQuat(dtheta)).normalized();
    G.block<3, 3>(o + 3, o + 3) -= Skew(0.5 * dtheta);
  }
  X_ = X_ * G.transpose();
  Y_ = G * Y_ * G.transpose();
  Symmetrize(&Y_);
}

void ErrorStateKf::ClonePose(double time) {
  // full: this sample goes without a clone (its fix falls back), and the pending ones keep
  // theirs (evicting the oldest instead would leave no fix a clone once rate x latency
  // reaches the limit)
  if (static_cast<int>(clones_.size()) == kMaxClones) return;
  const auto n = static_cast<Eigen::Index>(6 * clones_.size());
  // y = J δx with J selecting δp and δθ: Cov(δx, y) = P Jᵀ, Cov(y) = J P Jᵀ, and with the
  // clones kept before, Cov(y_old, y) = X_oldᵀ Jᵀ
  Eigen::Matrix<double, kN, 6> PJ;
  PJ << P_.middleCols<3>(kP), P_.middleCols<3>(kTheta);
  Eigen::Matrix<double, 6, 6> JPJ;
  JPJ << PJ.middleRows<3>(kP), PJ.middleRows<3>(kTheta);
  Eigen::MatrixXd JX(6, n);
  if (n > 0) JX << X_.middleRows(kP, 3), X_.middleRows(kTheta, 3);
  X_.conservativeResize(kN, n + 6);
  X_.rightCols(6) = PJ;
  Eigen::MatrixXd Y(n + 6, n + 6);
  if (n > 0) {
    Y.topLeftCorner(n, n) = Y_;
    Y.topRightCorner(n, 6) = JX.transpose();
    Y.bottomLeftCorner(6, n) = JX;
  }
  Y.bottomRightCorner(6, 6) = 0.5 * (JPJ + JPJ.transpose());
  Y_ = std::move(Y);
  clones_.push_back({time, x_.p, x_.q});
}

Eigen::MatrixXd ErrorStateKf::AugmentedCovariance() const {
  const auto n = static_cast<Eigen::Index>(6 * clones_.size());
  Eigen::MatrixXd A(kN + n, kN + n);
  A.topLeftCorner(kN, kN) = P_;
  if (n > 0) {
    A.topRightCorner(kN, n) = X_;
    A.bottomLeftCorner(n, kN) = X_.transpose();
    A.bottomRightCorner(n, n) = Y_;
  }
  return A;
}

int ErrorStateKf::FindClone(double time) const {
  for (size_t c = 0; c < clones_.size(); ++c) {
    if (std::abs(clones_[c].time - time) <= CloneTolerance(time)) return static_cast<int>(c);
  }
  return -1;
}

void ErrorStateKf::EraseClone(int index) {
  const auto n = static_cast<Eigen::Index>(6 * clones_.size()), o = static_cast<Eigen::Index>(6 * index);
  const Eigen::Index after = n - o - 6;
  // shift the later clones' columns (and rows of Y) over the erased ones
  X_.middleCols(o, after) = X_.rightCols(after).eval();
  X_.conservativeResize(kN, n - 6);
  Y_.middleCols(o, after) = Y_.rightCols(after).eval();
  Y_.middleRows(o, after) = Y_.bottomRows(after).eval();
  Y_.conservativeResize(n - 6, n - 6);
  clones_.erase(clones_.begin() + index);
}

void ErrorStateKf::DropClone(double time) {
  while (!clones_.empty() && clones_.front().time <= time + CloneTolerance(time)) EraseClone(0);
}

double ErrorStateKf::UpdateVelocity(const Vec3& v_sensor, const Mat3& C, const Vec3& r, const Vec3& w,
                                    const Mat3& cov) {
  return UpdateDvl(v_sensor, C, r, w, cov, false);
}

double ErrorStateKf::UpdateWaterVelocity(const Vec3& v_sensor, const Mat3& C, const Vec3& r, const Vec3& w,
                                         const Mat3& cov) {
  return UpdateDvl(v_sensor, C, r, w, cov, true);
}

double ErrorStateKf::UpdateDvl(const Vec3& v_sensor, const Mat3& C, const Vec3& r, const Vec3& w, const Mat3& cov,
                               bool water) {
  const Mat3 R = x_.q.toRotationMatrix();
  // the velocity over the bottom, or through the water (less the current), in the IMU frame
  const Vec3 v_body = R.transpose() * (water ? Vec3(x_.v - x_.c) : x_.v);
  const Vec3 predicted = C.transpose() * (v_body + (w - x_.bg).cross(r));
  Eigen::Matrix<double, 3, kN> H = Eigen::Matrix<double, 3, kN>::Zero();
  H.block<3, 3>(0, kV) = C.transpose() * R.transpose();
  H.block<3, 3>(0, kTheta) = C.transpose() * Skew(v_body);
  H.block<3, 3>(0, kBg) = C.transpose() * Skew(r);
  if (water) H.block<3, 3>(0, kC) = -C.transpose() * R.transpose();
  return Update(v_sensor - predicted, H, cov);
}

double ErrorStateKf::UpdateDepth(double depth, const Vec3& r, double variance) {
  const Mat3 R = x_.q.toRotationMatrix();
  const double predicted = -(x_.p + R * r).z();
  Eigen::Matrix<double, 1, kN> H = Eigen::Matrix<double, 1, kN>::Zero();
  H(0, kP + 2) = -1;
  H.block<1, 3>(0, kTheta) = (R * Skew(r)).row(2);
  Eigen::Matrix<double, 1, 1> y(depth - predicted), Rn(variance);
  return Update(y, H, Rn);
}

double ErrorStateKf::UpdateHeading(double heading, double variance) {
  const Mat3 R = x_.q.toRotationMatrix();
  Eigen::Matrix<double, 1, kN> H = Eigen::Matrix<double, 1, kN>::Zero();
  H.block<1, 3>(0, kTheta) = HeadingJacobian(R);
  Eigen::Matrix<double, 1, 1> y(WrapAngle(heading - Heading(R))), Rn(variance);
  return Update(y, H, Rn);
}

double ErrorStateKf::UpdatePosition(const Vec3& fix, const Vec3& r, const Mat3& cov, double sample_time) {
  if (const int c = FindClone(sample_time); c >= 0) {
    const double nis = UpdatePositionFromClone(fix, r, cov, c);
    DropClone(sample_time);  // this clone and any older one
    return nis;
  }
  DropClone(sample_time);
  // without a clone: the buffered nominal state nearest the sample's time
  const NavState* past = &history_.back();
  double best = std::abs(past->time - sample_time);
  for (const NavState& s : history_) {
    const double gap = std::abs(s.time - sample_time);
    if (gap < best) best = gap, past = &s;
  }
  const Mat3 R_past = past->q.toRotationMatrix();
  const Vec3 predicted = past->p + R_past * r;
  const Mat3 R = x_.q.toRotationMatrix();
  Eigen::Matrix<double, 3, kN> H = Eigen::Matrix<double, 3, kN>::Zero();
  H.block<3, 3>(0, kP) = Mat3::Identity();
  H.block<3, 3>(0, kTheta) = -R * Skew(r);
  return Update(fix - predicted, H, cov);
}

double ErrorStateKf::UpdatePositionFromClone(const Vec3& fix, const Vec3& r, const Mat3& cov, int c) {
  const PoseClone& clone = clones_[static_cast<size_t>(c)];
  const Mat3 Rc = clone.q.toRotationMatrix();
  const Vec3 innovation = fix - (clone.p + Rc * r);
  Eigen::Matrix<double, 3, 6> Hy;
  Hy << Mat3::Identity(), -Rc * Skew(r);
  const auto o = static_cast<Eigen::Index>(6 * c);
  const Mat3 S = Hy * Y_.block(o, o, 6, 6) * Hy.transpose() + cov;
  const Eigen::LLT<Mat3> llt(S);
  if (llt.info() != Eigen::Success) return -1;
  // the augmented state's gain: its rows for the state (K) and for the clones (K_y)
  const Mat3 S_inverse = llt.solve(Mat3::Identity());
  const Eigen::Matrix<double, kN, 3> K = X_.middleCols(o, 6) * Hy.transpose() * S_inverse;
  const Eigen::MatrixXd Ky = Y_.middleCols(o, 6) * Hy.transpose() * S_inverse;
  P_ -= K * S * K.transpose();
  Symmetrize(&P_);
  X_ -= K * S * Ky.transpose();
  Y_ -= Ky * S * Ky.transpose();
  Symmetrize(&Y_);
  const Eigen::VectorXd dy = Ky * innovation;
  Inject(K * innovation);
  InjectClones(dy);
  return innovation.dot(llt.solve(innovation));
}

double Nees(const NavState& e, const MatN& P, const Vec3& p, const Vec3& v, const Quat& q) {
  Eigen::Matrix<double, 9, 1> err;
  err << p - e.p, v - e.v, LogQuat(e.q.conjugate() * q);
  const Eigen::Matrix<double, 9, 9> P9 = P.topLeftCorner<9, 9>();
  return err.dot(P9.ldlt().solve(err));
}

}  // namespace nereid::nav
