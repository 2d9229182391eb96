// Copyright Nereid authors.
// Body-frame kinematics from MuJoCo's com-based quantities (cdof, cdof_dot, cvel), used
// by the added-mass terms. Generalised vectors are Fossen-ordered [linear; angular], in
// the body frame, at the body origin (xpos), for any body: a free vehicle or a link.
#ifndef NEREID_KINEMATICS_H_
#define NEREID_KINEMATICS_H_

#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/frames.h"

namespace nereid {

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

}  // namespace nereid

#endif  // NEREID_KINEMATICS_H_
