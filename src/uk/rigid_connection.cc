// Copyright Nereid authors.
#include "uk/rigid_connection.h"

#include <cmath>

namespace nereid::uk {

ConnectionGeometry WeldGeometry(const double* eq_data) {
  ConnectionGeometry g;
  g.r2 = Vec3(eq_data[0], eq_data[1], eq_data[2]);
  g.r1 = Vec3(eq_data[3], eq_data[4], eq_data[5]);
  g.q_rel = Quat(eq_data[6], eq_data[7], eq_data[8], eq_data[9]).normalized();
  return g;
}

FreeBodyState ReadFreeBody(const double* qpos, const double* qvel, int qposadr, int dofadr) {
  FreeBodyState s;
  const double* x = qpos + qposadr;
  s.p = Vec3(x[0], x[1], x[2]);
  s.q = Quat(x[3], x[4], x[5], x[6]);
  s.q.normalize();
  s.R = s.q.toRotationMatrix();
  const double* v = qvel + dofadr;
  s.v = Vec3(v[0], v[1], v[2]);
  s.w = Vec3(v[3], v[4], v[5]);
  return s;
}

Vec3 RotationVector(const Quat& q_in) {
  Quat q = q_in;
  if (q.w() < 0) q.coeffs() = -q.coeffs();
  const Vec3 u = q.vec();
  const double s = u.norm();
  if (s < 1e-12) return 2.0 * u;  // first order; exact to O(angle^3)
  const double angle = 2.0 * std::atan2(s, q.w());
  return u * (angle / s);
}

ConnectionRows EvaluateConnection(const ConnectionGeometry& g, const FreeBodyState& b1,
                                  const FreeBodyState& b2) {
  ConnectionRows r;
  const Vec3 a1 = b1.R * g.r1, a2 = b2.R * g.r2;  // world offsets of s from each origin
  // position loop closure (eqs. 19-26), velocities [v (world); w (body)]:
  //   c = p1 + R1 r1 - p2 - R2 r2
  //   cdot = v1 - R1 S(r1) w1 - v2 + R2 S(r2) w2
  //   cddot = vdot1 - R1 S(r1) wdot1 + R1 (w1 x (w1 x r1)) - (same for 2)
  r.J1.setZero();
  r.J2.setZero();
  r.J1.topLeftCorner<3, 3>().setIdentity();
  r.J1.topRightCorner<3, 3>() = -b1.R * Skew(g.r1);
  r.J2.topLeftCorner<3, 3>() = -Mat3::Identity();
  r.J2.topRightCorner<3, 3>() = b2.R * Skew(g.r2);
  // relative orientation (eqs. 20, 27-38): R1 R_rel R2^T = I; its derivative is
  // w1(world) - w2(world) = R1 w1 - R2 w2, and d/dt(R w) = R wdot (w x w = 0), so the
  // second derivative is R1 wdot1 - R2 wdot2 = 0 with no velocity term. These are the
  // three independent rows of the seed's 4-row quaternion form (eq. 37), whose scalar row
  // is identically dependent on them for unit quaternions.
  r.J1.bottomRightCorner<3, 3>() = b1.R;
  r.J2.bottomRightCorner<3, 3>() = -b2.R;
  r.bias.head<3>() = -b1.R * b1.w.cross(b1.w.cross(g.r1)) + b2.R * b2.w.cross(b2.w.cross(g.r2));
  r.bias.tail<3>().setZero();
  r.c.head<3>() = b1.p + a1 - b2.p - a2;
  const Quat e = b1.q * g.q_rel * b2.q.conjugate();  // world-frame error rotation
  r.c.tail<3>() = RotationVector(e);
  Vec6 v1, v2;
  v1 << b1.v, b1.w;
  v2 << b2.v, b2.w;
  r.cdot = r.J1 * v1 + r.J2 * v2;
  return r;
}

ConnectionGeometry CaptureGeometry(const FreeBodyState& b1, const FreeBodyState& b2,
                                   const Vec3& point_world) {
  ConnectionGeometry g;
  g.r1 = b1.R.transpose() * (point_world - b1.p);
  g.r2 = b2.R.transpose() * (point_world - b2.p);
  g.q_rel = b1.q.conjugate() * b2.q;
  g.q_rel.normalize();
  return g;
}

}  // namespace nereid::uk
