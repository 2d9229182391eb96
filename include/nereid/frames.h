// Copyright Nereid authors.
// The one place where SNAME/Fossen notation meets MuJoCo.
//
// Papers publish hydrodynamic coefficients in SNAME notation: body frame x forward,
// y starboard, z down (FRD); generalised vectors ordered nu = [u v w p q r] (linear,
// then angular). Nereid's MuJoCo vehicle bodies are x forward, y port, z up (FLU): the
// two frames differ by a rotation of 180 degrees about x, T = diag(1, -1, -1), applied to
// both the linear and the angular parts. A diagonal coefficient is unchanged by the
// conversion; an off-diagonal coupling term changes sign when exactly one of its two
// indices is in {v, w, q, r}. See docs/conventions.md.
#ifndef NEREID_FRAMES_H_
#define NEREID_FRAMES_H_

#include <string_view>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "nereid/names.h"

namespace nereid {

using Vec3 = Eigen::Vector3d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat3 = Eigen::Matrix3d;
using Mat6 = Eigen::Matrix<double, 6, 6>;

// The body frame in which a plugin's coefficients and points are written.
enum class BodyFrame { kFRD, kFLU };

inline constexpr std::array<Named<BodyFrame>, 2> kBodyFrameNames{{{BodyFrame::kFRD, "frd"}, {BodyFrame::kFLU, "flu"}}};
// Parses "frd" or "flu"; returns false for anything else.
inline bool ParseBodyFrame(std::string_view text, BodyFrame* frame) { return ParseName(kBodyFrameNames, text, frame); }

// The rotation from the given frame to MuJoCo's FLU body frame is diagonal: its signs,
// (1, -1, -1) from FRD. The same turn takes NED to Nereid's world (z up).
inline Vec3 FrameSigns(BodyFrame frame) {
  return frame == BodyFrame::kFRD ? Vec3(1, -1, -1) : Vec3(1, 1, 1);
}
// The signs for a [linear; angular] 6-vector or the rows of a 6 x n map.
inline Vec6 FrameSigns6(BodyFrame frame) {
  Vec6 s;
  s << FrameSigns(frame), FrameSigns(frame);
  return s;
}

// The rotation from the given frame to MuJoCo's FLU body frame (its own inverse).
inline Mat3 FrameToMujoco(BodyFrame frame) { return FrameSigns(frame).asDiagonal(); }

// A point or a 3-vector written in `frame`, expressed in MuJoCo's body frame.
inline Vec3 ToMujoco(const Vec3& x, BodyFrame frame) { return FrameToMujoco(frame) * x; }

// A 6-vector [linear; angular] written in `frame`, expressed in MuJoCo's body frame.
inline Vec6 ToMujoco(const Vec6& x, BodyFrame frame) {
  const Mat3 T = FrameToMujoco(frame);
  Vec6 y;
  y << T * x.head<3>(), T * x.tail<3>();
  return y;
}

// A 6x6 coefficient matrix (mass-like or damping-like, mapping [lin; ang] velocity or
// acceleration to [force; moment]) written in `frame`, expressed in MuJoCo's body frame:
// T6 A T6 with T6 = blockdiag(T, T).
inline Mat6 ToMujoco(const Mat6& A, BodyFrame frame) {
  Mat6 T6 = Mat6::Zero();
  T6.topLeftCorner<3, 3>() = FrameToMujoco(frame);
  T6.bottomRightCorner<3, 3>() = FrameToMujoco(frame);
  return T6 * A * T6;
}

}  // namespace nereid

#endif  // NEREID_FRAMES_H_
