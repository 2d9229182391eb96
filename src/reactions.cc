// Copyright Nereid authors.
#include "nereid/reactions.h"

#include <string>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/mujoco_log.h"
#include "nereid/plugins.h"

namespace nereid {
namespace {

// a wrench as [force; torque about the world origin], so that wrenches add across bodies
Vec6 AboutOrigin(const Vec3& force, const Vec3& torque, const Vec3& point) {
  Vec6 w;
  w << force, torque + point.cross(force);
  return w;
}

}  // namespace

std::vector<JointReaction> JointReactions(Simulation& sim, const std::vector<int>& joints) {
  const mjModel* m = sim.model();
  mjData* d = sim.data();
  std::string error;
  if (!CallMuJoCo([&] { mj_rnePostConstraint(m, d); }, nullptr, &error)) {
    throw MuJoCoError(sim.source() + ": MuJoCo error in mj_rnePostConstraint: " + error);
  }
  // body forces MuJoCo's Newton-Euler pass does not see
  std::vector<Vec6> extra(static_cast<size_t>(m->nbody), Vec6::Zero());
  for (int i = 0; i < m->nplugin; ++i) {
    PluginWrench w;
    if (LastPluginWrench(m, d, i, &w)) extra[static_cast<size_t>(w.body)] += AboutOrigin(w.force, w.torque, w.point);
  }
  for (const AddedMassBody& block : sim.added_mass_bodies()) {
    // -M_A (J qacc), body frame at the origin: the added-mass inertia in d->M
    const Mat3 R = BodyRotation(d, block.body);
    Vec6 a;
    if (block.free_dof >= 0) {
      const mjtNum* qacc = d->qacc + block.free_dof;
      a << R.transpose() * Vec3(qacc[0], qacc[1], qacc[2]), qacc[3], qacc[4], qacc[5];
    } else {
      Eigen::Matrix<double, 6, Eigen::Dynamic> J(6, static_cast<Eigen::Index>(block.dofs.size()));
      BodyJacobian(m, d, block.body, block.dofs, &J);
      Eigen::VectorXd qacc(static_cast<Eigen::Index>(block.dofs.size()));
      for (size_t k = 0; k < block.dofs.size(); ++k) qacc[static_cast<Eigen::Index>(k)] = d->qacc[block.dofs[k]];
      a = J * qacc;
    }
    const Vec6 w = -block.added_mass * a;
    extra[static_cast<size_t>(block.body)] +=
        AboutOrigin(R * w.head<3>(), R * w.tail<3>(), BodyPosition(d, block.body));
  }
  for (int a = 0; a < static_cast<int>(m->nactuator); ++a) {
    // thrusters: a force (and reaction torque) along the gear, in the site frame
    if (m->actuator_trntype[a] != mjTRN_SITE || m->actuator_trnid[2 * a + 1] >= 0) continue;
    const int s = m->actuator_trnid[2 * a];
    const Mat3 Rs = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->site_xmat + 9 * s);
    const mjtNum* gear = m->actuator_gear + 6 * m->actuator_outadr[a];  // gear and force: per force output
    const double f = d->actuator_force[m->actuator_outadr[a]];
    const Vec3 point(d->site_xpos[3 * s], d->site_xpos[3 * s + 1], d->site_xpos[3 * s + 2]);
    extra[static_cast<size_t>(m->site_bodyid[s])] +=
        AboutOrigin(Rs * Vec3(gear[0], gear[1], gear[2]) * f, Rs * Vec3(gear[3], gear[4], gear[5]) * f, point);
  }
  for (int b = static_cast<int>(m->nbody) - 1; b > 0; --b) {
    extra[static_cast<size_t>(m->body_parentid[b])] += extra[static_cast<size_t>(b)];
  }

  std::vector<JointReaction> out;
  out.reserve(joints.size());
  for (int j : joints) {
    const int b = m->jnt_bodyid[j];
    // MuJoCo's interaction force: [torque; force] about the subtree centre of mass of the root
    const mjtNum* c = d->cfrc_int + 6 * b;
    const mjtNum* com = d->subtree_com + 3 * m->body_rootid[b];
    const Vec6 mujoco = AboutOrigin(Vec3(c[3], c[4], c[5]), Vec3(c[0], c[1], c[2]), Vec3(com[0], com[1], com[2]));
    const Vec6 total = mujoco - extra[static_cast<size_t>(b)];
    const Vec3 anchor(d->xanchor[3 * j], d->xanchor[3 * j + 1], d->xanchor[3 * j + 2]);
    JointReaction r;
    r.force = total.head<3>();
    r.torque = total.tail<3>() - anchor.cross(r.force);
    out.push_back(r);
  }
  return out;
}

}  // namespace nereid
