// Copyright Nereid authors.
// Kinematics of a rigid connection between two free-joint bodies (seeds 000/001,
// Section 5): a position loop closure through a common point s plus a relative
// orientation fixed by quaternions, differentiated twice into
//   J1 qacc[body1 dofs] + J2 qacc[body2 dofs] = bias   (6 rows: 3 position, 3 orientation)
// in MuJoCo's free-joint velocities (world-frame linear velocity of the body origin,
// body-frame angular velocity). Poses are read straight from qpos (free bodies are
// top-level), so the kinematics needs no mj_kinematics call.
#ifndef NEREID_SRC_UK_RIGID_CONNECTION_H_
#define NEREID_SRC_UK_RIGID_CONNECTION_H_

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace nereid::uk {

using Vec3 = Eigen::Vector3d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat3 = Eigen::Matrix3d;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Quat = Eigen::Quaterniond;

// The geometry of one connection, in MuJoCo's weld convention (eq_data):
//   p1 + R1 r1 = p2 + R2 r2          (the common point s, eq. 19)
//   q2 = q1 (x) q_rel                (relative orientation, eq. 20)
// r1: the point in body1's frame (weld relpose position); r2: the point in body2's
// frame (weld anchor); q_rel: body2's orientation relative to body1 (weld relpose quat).
struct ConnectionGeometry {
  Vec3 r1 = Vec3::Zero();
  Vec3 r2 = Vec3::Zero();
  Quat q_rel = Quat::Identity();
};

// The geometry a MuJoCo weld declares in its eq_data (mjNEQDATA numbers: anchor on body2,
// relpose position and quaternion), the quaternion normalised.
ConnectionGeometry WeldGeometry(const double* eq_data);

// Pose and velocity of a free body, from qpos[adr..adr+7) and qvel[dof..dof+6).
struct FreeBodyState {
  Vec3 p;      // world position of the body origin
  Quat q;      // world-from-body orientation
  Mat3 R;
  Vec3 v;      // world linear velocity of the origin
  Vec3 w;      // body-frame angular velocity
};
FreeBodyState ReadFreeBody(const double* qpos, const double* qvel, int qposadr, int dofadr);

// One connection's rows at a state.
struct ConnectionRows {
  Mat6 J1, J2;  // d(c)/dt = J1 v1 + J2 v2 (rows 0-2 position, 3-5 world angular velocity)
  Vec6 bias;    // J1 vdot1 + J2 vdot2 = bias is c_ddot = 0 (before stabilisation)
  Vec6 c;       // position violation: s1 - s2 (m), rotation vector of q1 q_rel q2^* (rad)
  Vec6 cdot;    // J1 v1 + J2 v2
};
ConnectionRows EvaluateConnection(const ConnectionGeometry& g, const FreeBodyState& b1,
                                  const FreeBodyState& b2);

// The geometry that makes the connection hold exactly at the given poses, with the common
// point at `point_world` (e.g. the midpoint of the two origins).
ConnectionGeometry CaptureGeometry(const FreeBodyState& b1, const FreeBodyState& b2,
                                   const Vec3& point_world);

inline Mat3 Skew(const Vec3& x) {
  Mat3 S;
  S << 0, -x.z(), x.y(), x.z(), 0, -x.x(), -x.y(), x.x(), 0;
  return S;
}

// Rotation vector (axis * angle, angle in [0, pi]) of a unit quaternion.
Vec3 RotationVector(const Quat& q);

}  // namespace nereid::uk

#endif  // NEREID_SRC_UK_RIGID_CONNECTION_H_
