// Copyright Nereid authors.
// The added-mass blocks Nereid's engine puts into MuJoCo's joint-space inertia matrix
// (docs/design.md, "why added mass lives in the mass matrix"): where each block's entries
// live in d->M, and which bodies get one. Internal to libnereid.
#ifndef NEREID_SRC_ADDED_MASS_H_
#define NEREID_SRC_ADDED_MASS_H_

#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/simulation.h"

namespace nereid {

// Where each entry of J^T M_A J for `block->dofs` lives in MuJoCo's lower-triangular CSR
// d->M. False if MuJoCo did not store one of them (a "simple" body keeps only its diagonal).
bool FindInertiaEntries(const mjModel* m, AddedMassBody* block);

// At compile, before any mjData (so before the plugin objects): the bodies a hydrodynamics
// instance's <config> gives added mass, with their dofs (no M_A: the objects own it).
std::vector<AddedMassBody> AddedMassLayout(const mjModel* m);

}  // namespace nereid

#endif  // NEREID_SRC_ADDED_MASS_H_
