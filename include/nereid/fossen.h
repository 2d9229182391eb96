// Copyright Nereid authors.
// Fossen's marine-craft terms as small pure functions.
//
// All quantities are in one body frame, generalised vectors ordered [linear; angular]
// (nu = [v; w]), wrenches [force; moment]. References: T. I. Fossen, Handbook of Marine
// Craft Hydrodynamics and Motion Control (2011), sections 6.3-6.4 and 7.5; the seed
// documents 000 (eqs. 1-7) and 002 (section 3.1) use the same forms.
#ifndef NEREID_FOSSEN_H_
#define NEREID_FOSSEN_H_

#include <cmath>

#include <Eigen/Core>

#include "nereid/frames.h"

namespace nereid::fossen {

// The skew-symmetric matrix S(a) with S(a) b = a x b.
inline Mat3 Skew(const Vec3& a) {
  Mat3 S;
  S << 0, -a.z(), a.y(),
       a.z(), 0, -a.x(),
       -a.y(), a.x(), 0;
  return S;
}

// C_A(nu) nu, the Coriolis-centripetal wrench of the added mass M_A (Fossen 2011,
// eq. 6.43 written as a product with nu):
//   p1 = A11 v + A12 w,  p2 = A21 v + A22 w,
//   C_A(nu) nu = [ w x p1 ; v x p1 + w x p2 ].
// The moment v x p1 contains the Munk moment. nu^T C_A(nu) nu = 0 for symmetric M_A.
// The hydrodynamic wrench on the body is the negative of this.
inline Vec6 AddedMassCoriolis(const Mat6& M_A, const Vec6& nu) {
  const Vec3 v = nu.head<3>();
  const Vec3 w = nu.tail<3>();
  const Vec6 p = M_A * nu;
  const Vec3 p1 = p.head<3>();
  const Vec3 p2 = p.tail<3>();
  Vec6 c;
  c << w.cross(p1), v.cross(p1) + w.cross(p2);
  return c;
}

// D(nu) nu = D_l nu + diag(d_q) (|nu| o nu), linear plus diagonal quadratic damping with
// positive magnitudes (Fossen 2011, eq. 6.62 and 6.70). The damping wrench on the body is
// the negative of this.
inline Vec6 Damping(const Mat6& D_l, const Vec6& d_q, const Vec6& nu) {
  return D_l * nu + d_q.cwiseProduct(nu.cwiseAbs().cwiseProduct(nu));
}

// H(r): velocity transformation from a point O to a point P = O + r on the same body,
// nu_P = H(r) nu_O, i.e. v_P = v_O + w x r. Wrenches transform back with H(r)^T:
// a wrench tau_P acting at P equals tau_O = H(r)^T tau_P about O (Fossen 2011, eq. 7.12).
inline Mat6 Transport(const Vec3& r) {
  Mat6 H = Mat6::Identity();
  H.topRightCorner<3, 3>() = -Skew(r);
  return H;
}

// An inertia-like matrix given about P = O + r, expressed about O: H(r)^T M_P H(r).
inline Mat6 ShiftToOrigin(const Mat6& M_P, const Vec3& r) {
  const Mat6 H = Transport(r);
  return H.transpose() * M_P * H;
}

// Largest asymmetry |A - A^T| relative to the largest entry (0 for the zero matrix).
inline double RelativeAsymmetry(const Mat6& A) {
  const double scale = A.cwiseAbs().maxCoeff();
  if (scale == 0) return 0;
  return (A - A.transpose()).cwiseAbs().maxCoeff() / scale;
}

// Smallest eigenvalue of the symmetric part of A (physics/fossen.cc: the eigensolver's
// templates cost each including source several seconds of compile time).
double MinSymmetricEigenvalue(const Mat6& A);

// Closed form of the free decay (m + X_udot) du/dt = -X_u u - X_uu |u| u from u(0) = u0,
// with M = m + X_udot > 0, X_u >= 0, X_uu >= 0.
inline double FreeDecayVelocity(double M, double X_u, double X_uu, double u0, double t) {
  const double s = u0 >= 0 ? 1.0 : -1.0;
  const double a = std::abs(u0);
  if (X_u == 0) return s * a / (1 + X_uu * a * t / M);
  const double e = std::exp(X_u * t / M);
  return s * X_u * a / ((X_u + X_uu * a) * e - X_uu * a);
}

}  // namespace nereid::fossen

#endif  // NEREID_FOSSEN_H_
