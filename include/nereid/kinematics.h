// Copyright Nereid authors.
// Body-frame kinematics from MuJoCo's com-based quantities (cdof, cdof_dot, cvel), used
// by the added-mass terms. Generalised vectors are Fossen-ordered [linear; angular], in
// the body frame, at the body origin (xpos), for any body: a free vehicle or a link.
#ifndef NEREID_KINEMATICS_H_
#define NEREID_KINEMATICS_H_

#include <cmath>
#include <numbers>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/frames.h"

namespace nereid {

// std::remainder(angle, 2π), an angle in [-π, π], bit for bit, without the library call
// where |angle| < 2π (the readings' headings and bearings): there the quotient rounds to 0
// or ±1 (to 0 at |angle| = π, ties to even), and angle ∓ 2π is exact (Sterbenz's lemma).
inline double WrapAngle(double angle) {
  constexpr double kPi = std::numbers::pi, kTwoPi = 2 * std::numbers::pi;
  const double a = std::abs(angle);
  if (a <= kPi) return angle;
  if (a < kTwoPi) return angle > 0 ? angle - kTwoPi : angle + kTwoPi;
  return std::remainder(angle, kTwoPi);
}

// World-from-body rotation and world position of the body frame (d->xmat, d->xpos).
inline Mat3 BodyRotation(const mjData* d, int body) {
  return Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->xmat + 9 * body);
}
inline Vec3 BodyPosition(const mjData* d, int body) {
  return Vec3(d->xpos[3 * body], d->xpos[3 * body + 1], d->xpos[3 * body + 2]);
}
// The same for a site (d->site_xmat, d->site_xpos).
inline Mat3 SiteRotation(const mjData* d, int site) {
  return Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->site_xmat + 9 * site);
}
inline Vec3 SitePosition(const mjData* d, int site) {
  return Vec3(d->site_xpos[3 * site], d->site_xpos[3 * site + 1], d->site_xpos[3 * site + 2]);
}

// MuJoCo's mass matrix d->M is lower-triangular CSR (M_rownnz, M_rowadr, M_colind): calls
// f(col, adr) for each entry MuJoCo stores in `row` (col <= row, d->M[adr]).
template <typename F>
void ForEachMassEntry(const mjModel* m, int row, F&& f) {
  const int begin = m->M_rowadr[row], end = begin + m->M_rownnz[row];
  for (int adr = begin; adr < end; ++adr) f(m->M_colind[adr], adr);
}
// The address in d->M of entry (row, col), col <= row, or -1 if MuJoCo does not store it
// (a "simple" body keeps only its diagonal).
inline int MassEntryAddress(const mjModel* m, int row, int col) {
  int found = -1;
  ForEachMassEntry(m, row, [&](int c, int adr) { if (c == col) found = adr; });
  return found;
}

// The dofs that move `body`, from the body's own last dof to the root, in decreasing
// order (MuJoCo's dof_parentid chain). Empty for a body welded to the world.
std::vector<int> BodyDofChain(const mjModel* m, int body);

// Body-frame Jacobian J (6 x chain.size()) with nu = J qvel[chain]: column k is the
// body-frame [linear; angular] velocity of the body origin per unit qvel[chain[k]].
// Needs mj_comPos (cdof) to have run.
void BodyJacobian(const mjModel* m, const mjData* d, int body, const std::vector<int>& chain,
                  Eigen::Matrix<double, 6, Eigen::Dynamic>* J);

// Body-frame velocity nu = [v; w] of the body origin. Needs mj_comVel (cvel).
Vec6 BodyVelocity(const mjModel* m, const mjData* d, int body);

// d/dt(nu) with qacc = 0, i.e. Jdot qvel in body coordinates: the part of the body-frame
// acceleration that comes from velocities alone. d/dt(nu) = J qacc + this. For a free
// body it is [-w x v; 0]. Needs mj_comVel (cvel, cdof_dot).
Vec6 BodyBiasAcceleration(const mjModel* m, const mjData* d, int body,
                          const std::vector<int>& chain);

// mj_objectVelocity and mj_objectAcceleration on a site (6D [angular; linear] at the
// site, site axes when `local`) computed from qvel and qacc along the dofs that move the
// site's body, without MuJoCo's cvel, mj_subtreeVel or cacc (mj_rnePostConstraint): the
// spatial velocity is sum cdof qvel (needs mj_comPos only, so it holds at the position
// stage), the spatial acceleration -gravity + sum (cdof_dot qvel + cdof qacc) as
// mj_rnePostConstraint's forward pass (needs mj_comVel and qacc). Zero on a body welded to
// the world, as MuJoCo's. No allocation: the sensor plugins call them at sample instants.
void SiteVelocity(const mjModel* m, const mjData* d, int site, bool local, mjtNum res[6]);
void SiteAcceleration(const mjModel* m, const mjData* d, int site, bool local, mjtNum res[6]);
// The world velocity of the point p fixed to `body`, from qvel (position stage suffices);
// zero for the world and bodies welded to it.
Vec3 BodyPointVelocity(const mjModel* m, const mjData* d, int body, const Vec3& p);

// The first dof of `body` if the body moves by one free joint (a vehicle), else -1.
int FreeJointDof(const mjModel* m, int body);

// Adds the generalised force of a world-frame force f (at world point p) and torque t on
// `body` to qfrc: mj_applyFT, with a direct path for a free-joint body (free_dof >= 0),
// whose dofs are the world-frame translation of the body origin and the body-frame
// rotation: qfrc[lin] += f, qfrc[ang] += R^T (t + (p - x_body) x f).
void ApplyWrench(const mjModel* m, mjData* d, int body, int free_dof, const Vec3& f,
                 const Vec3& t, const Vec3& p, mjtNum* qfrc);

}  // namespace nereid

#endif  // NEREID_KINEMATICS_H_
