// Copyright Nereid authors.
// MuJoCo's transmission stage (mj_transmission) for the common marine model, where every
// actuator is a site transmission without a reference site (a thruster on its site): the
// same lengths (0) and sparse moments bit for bit, from each site's chain of dofs alone,
// without MuJoCo's two dense 3 x nv Jacobians and their products per actuator (6.9k of the
// BlueROV2 Heavy's 30k instructions per step for its 8 thrusters). Internal to libnereid.
#ifndef NEREID_SRC_SITE_TRANSMISSION_H_
#define NEREID_SRC_SITE_TRANSMISSION_H_

#include <vector>

#include <mujoco/mujoco.h>

namespace nereid {

// True when m has actuators (nactuator, not nu: an actuator may take 0 or several controls)
// and each one is a site transmission without a reference site.
bool PlainSiteTransmissions(const mjModel* m);

// mj_transmission(m, d) of MuJoCo 3.14 (engine_core_smooth.c) when PlainSiteTransmissions(m)
// holds, with sleeping disabled: actuator_length, moment_rownnz, moment_rowadr,
// moment_colind and actuator_moment, the same operations in the same order on each moment
// entry (wrench = site frame x gear; the Jacobian column of each dof in the site's chain,
// cdof's linear part plus its angular part x (site - subtree com); projected onto the
// wrench, translation then rotation, each skipping zero wrench components as
// mju_mulMatTVec does; exact zeros left out of the sparse row). One difference, on purpose:
// with a NaN or infinite gear (refused at load; written into the model afterwards) MuJoCo's
// dense product puts 0 x NaN = NaN into every dof's column and writes the row past the room
// its compiler sized for it; here the row keeps the site's chain. `chain` is scratch
// space. Compiled without contracting a * b + c into fused multiply-adds
// (src/CMakeLists.txt), as MuJoCo's own build is.
void SiteTransmission(const mjModel* m, mjData* d, std::vector<int>* chain);

}  // namespace nereid

#endif  // NEREID_SRC_SITE_TRANSMISSION_H_
