// Copyright Nereid authors.
// Joint reaction wrenches with Nereid's full physics: the force and moment a joint's parent
// body exerts on its child body through the joint (constraint and motor together), as in
// a Newton-Euler formulation of a vehicle-manipulator system (seed 003 section 4).
//
// MuJoCo's Newton-Euler pass (mj_rnePostConstraint, d->cfrc_int) knows the bodies' own
// inertia, gravity, contacts and xfrc_applied; it does not see body forces that reach the
// dynamics as generalised forces or through the mass matrix. Nereid adds them per body
// and sums them over each subtree: the plugins' passive wrenches (hydrodynamics, buoyancy
// and Froude-Krylov: LastPluginWrench), the added-mass inertia -M_A J qacc that Nereid's
// engine holds in d->M, and site-transmission actuators (thrusters).
#ifndef NEREID_REACTIONS_H_
#define NEREID_REACTIONS_H_

#include <vector>

#include "nereid/frames.h"
#include "nereid/simulation.h"

namespace nereid {

struct JointReaction {
  Vec3 force = Vec3::Zero();   // on the child body, world frame, N
  Vec3 torque = Vec3::Zero();  // about the joint anchor (d->xanchor), world frame, N m
};

// The reactions at `joints` (joint ids) for the state of the last forward pass
// (Simulation::Forward or a step's). Runs mj_rnePostConstraint on the simulation's data.
// Throws MuJoCoError if MuJoCo raises a fatal error.
std::vector<JointReaction> JointReactions(Simulation& sim, const std::vector<int>& joints);

}  // namespace nereid

#endif  // NEREID_REACTIONS_H_
