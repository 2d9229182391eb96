// Copyright Nereid authors.
#include "nereid/kinematics.h"

namespace nereid {
namespace {

// MuJoCo's spatial vectors are [angular; linear] in world orientation, about the subtree
// centre of mass of the body's root (d->subtree_com[body_rootid]).
Vec3 Ang(const mjtNum* s) { return Vec3(s[0], s[1], s[2]); }
Vec3 Lin(const mjtNum* s) { return Vec3(s[3], s[4], s[5]); }

Vec3 OffsetFromRootCom(const mjModel* m, const mjData* d, int body) {
  const mjtNum* c = d->subtree_com + 3 * m->body_rootid[body];
  const mjtNum* p = d->xpos + 3 * body;
  return Vec3(p[0] - c[0], p[1] - c[1], p[2] - c[2]);
}

}  // namespace

std::vector<int> BodyDofChain(const mjModel* m, int body) {
  std::vector<int> chain;
  int b = body;
  while (b > 0 && m->body_dofnum[b] == 0) b = m->body_parentid[b];
  if (b <= 0) return chain;
  for (int dof = m->body_dofadr[b] + m->body_dofnum[b] - 1; dof >= 0; dof = m->dof_parentid[dof]) {
    chain.push_back(dof);
  }
  return chain;
}

void BodyJacobian(const mjModel* m, const mjData* d, int body, const std::vector<int>& chain,
                  Eigen::Matrix<double, 6, Eigen::Dynamic>* J) {
  const Mat3 R = BodyRotation(d, body);
  const Vec3 r = OffsetFromRootCom(m, d, body);
  J->resize(6, static_cast<Eigen::Index>(chain.size()));
  for (size_t k = 0; k < chain.size(); ++k) {
    const mjtNum* cdof = d->cdof + 6 * chain[k];
    const Vec3 w = Ang(cdof);
    const Vec3 v = Lin(cdof) + w.cross(r);
    const auto col = static_cast<Eigen::Index>(k);
    J->col(col).head<3>() = R.transpose() * v;
    J->col(col).tail<3>() = R.transpose() * w;
  }
}

Vec6 BodyVelocity(const mjModel* m, const mjData* d, int body) {
  const Mat3 R = BodyRotation(d, body);
  const mjtNum* cvel = d->cvel + 6 * body;
  const Vec3 w = Ang(cvel);
  const Vec3 v = Lin(cvel) + w.cross(OffsetFromRootCom(m, d, body));
  Vec6 nu;
  nu << R.transpose() * v, R.transpose() * w;
  return nu;
}

Vec6 BodyBiasAcceleration(const mjModel* m, const mjData* d, int body,
                          const std::vector<int>& chain) {
  // spatial bias acceleration: sum of cdof_dot * qvel along the chain (mj_rne, qacc = 0)
  Eigen::Matrix<double, 6, 1> s = Eigen::Matrix<double, 6, 1>::Zero();
  for (int dof : chain) {
    s += Eigen::Map<const Eigen::Matrix<double, 6, 1>>(d->cdof_dot + 6 * dof) * d->qvel[dof];
  }
  const Mat3 R = BodyRotation(d, body);
  const Vec3 r = OffsetFromRootCom(m, d, body);
  const mjtNum* cvel = d->cvel + 6 * body;
  const Vec3 w = Ang(cvel);
  const Vec3 v = Lin(cvel) + w.cross(r);      // world velocity of the body origin
  const Vec3 alpha = s.head<3>();
  // classical acceleration of the origin = spatial linear part shifted to it + w x v
  const Vec3 a = s.tail<3>() + alpha.cross(r) + w.cross(v);
  const Vec3 w_b = R.transpose() * w;
  const Vec3 v_b = R.transpose() * v;
  Vec6 out;
  out << R.transpose() * a - w_b.cross(v_b), R.transpose() * alpha;
  return out;
}

namespace {

// Calls f(dof) for every dof that moves `body` (its weld root's and their ancestors').
template <typename F>
void ForEachChainDof(const mjModel* m, int body, F&& f) {
  const int b = m->body_weldid[body];
  if (b <= 0 || m->body_dofnum[b] == 0) return;
  for (int dof = m->body_dofadr[b] + m->body_dofnum[b] - 1; dof >= 0; dof = m->dof_parentid[dof]) f(dof);
}

// MuJoCo's com-based spatial velocity of `body` (cvel) from cdof and qvel.
void ChainVelocity(const mjModel* m, const mjData* d, int body, mjtNum out[6]) {
  mju_zero(out, 6);
  ForEachChainDof(m, body, [&](int dof) { mju_addToScl(out, d->cdof + 6 * dof, d->qvel[dof], 6); });
}

// Whether the body moves at all (MuJoCo's objects on dof-less bodies read zero).
bool Moves(const mjModel* m, int body) { return m->body_dofnum[m->body_weldid[body]] != 0; }

}  // namespace

void SiteVelocity(const mjModel* m, const mjData* d, int site, bool local, mjtNum res[6]) {
  const int body = m->site_bodyid[site];
  if (!Moves(m, body)) {
    mju_zero(res, 6);
    return;
  }
  mjtNum cvel[6];
  ChainVelocity(m, d, body, cvel);
  mju_transformSpatial(res, cvel, 0, d->site_xpos + 3 * site, d->subtree_com + 3 * m->body_rootid[body],
                       local ? d->site_xmat + 9 * site : nullptr);
}

void SiteAcceleration(const mjModel* m, const mjData* d, int site, bool local, mjtNum res[6]) {
  const int body = m->site_bodyid[site];
  if (!Moves(m, body)) {
    mju_zero(res, 6);
    return;
  }
  const int root = m->body_weldid[body];
  if (const int dof = FreeJointDof(m, root); dof >= 0) {
    // a free body (a vehicle): the classical acceleration of the site's point from the free
    // joint's own terms, a = a_o + alpha x r + w x (w x r) with the origin's acceleration a_o
    // (world), w = R w_b and alpha = R dw_b/dt (the joint's angular terms are body-frame,
    // and R dw_b/dt + dR/dt w_b = R dw_b/dt since dR/dt w_b = R (w_b x w_b) = 0); the same
    // reading as the general chain below (tests/sensors: MuJoCo's accelerometer to 1e-12)
    const Mat3 R = Eigen::Map<const Eigen::Matrix<mjtNum, 3, 3, Eigen::RowMajor>>(d->xmat + 9 * root);
    const Vec3 w = R * Vec3::Map(d->qvel + dof + 3), alpha = R * Vec3::Map(d->qacc + dof + 3);
    const Vec3 r = Vec3::Map(d->site_xpos + 3 * site) - Vec3::Map(d->xpos + 3 * root);
    Vec3 a = Vec3::Map(d->qacc + dof) + alpha.cross(r) + w.cross(w.cross(r));
    if (!(m->opt.disableflags & mjDSBL_GRAVITY)) a -= Vec3::Map(m->opt.gravity);
    if (local) {
      const auto S = Eigen::Map<const Eigen::Matrix<mjtNum, 3, 3, Eigen::RowMajor>>(d->site_xmat + 9 * site);
      Vec3::Map(res) = S.transpose() * alpha;
      Vec3::Map(res + 3) = S.transpose() * a;
    } else {
      Vec3::Map(res) = alpha;
      Vec3::Map(res + 3) = a;
    }
    return;
  }
  // cacc as mj_rnePostConstraint: the world's is -gravity, each dof adds cdof_dot qvel + cdof qacc
  mjtNum cacc[6] = {0, 0, 0, 0, 0, 0};
  if (!(m->opt.disableflags & mjDSBL_GRAVITY)) mju_scl3(cacc + 3, m->opt.gravity, -1);
  ForEachChainDof(m, body, [&](int dof) {
    mju_addToScl(cacc, d->cdof_dot + 6 * dof, d->qvel[dof], 6);
    mju_addToScl(cacc, d->cdof + 6 * dof, d->qacc[dof], 6);
  });
  const mjtNum* com = d->subtree_com + 3 * m->body_rootid[body];
  const mjtNum* pos = d->site_xpos + 3 * site;
  const mjtNum* rot = local ? d->site_xmat + 9 * site : nullptr;
  mju_transformSpatial(res, cacc, 0, pos, com, rot);
  // as mj_objectAcceleration: acc_tran += vel_rot x vel_tran of the point
  mjtNum vel[6], correction[3];
  mju_transformSpatial(vel, d->cvel + 6 * body, 0, pos, com, rot);
  mju_cross(correction, vel, vel + 3);
  mju_addTo3(res + 3, correction);
}

Vec3 BodyPointVelocity(const mjModel* m, const mjData* d, int body, const Vec3& p) {
  if (body <= 0 || !Moves(m, body)) return Vec3::Zero();
  mjtNum cvel[6], v[6];
  ChainVelocity(m, d, body, cvel);
  mju_transformSpatial(v, cvel, 0, p.data(), d->subtree_com + 3 * m->body_rootid[body], nullptr);
  return Vec3(v[3], v[4], v[5]);
}

int FreeJointDof(const mjModel* m, int body) {
  if (m->body_jntnum[body] != 1) return -1;
  const int j = m->body_jntadr[body];
  return m->jnt_type[j] == mjJNT_FREE ? m->jnt_dofadr[j] : -1;
}

void ApplyWrench(const mjModel* m, mjData* d, int body, int free_dof, const Vec3& f,
                 const Vec3& t, const Vec3& p, mjtNum* qfrc) {
  if (free_dof < 0) {
    mj_applyFT(m, d, f.data(), t.data(), p.data(), body, qfrc);
    return;
  }
  const Mat3 R = BodyRotation(d, body);
  const Vec3 moment = R.transpose() * (t + (p - BodyPosition(d, body)).cross(f));
  for (int i = 0; i < 3; ++i) {
    qfrc[free_dof + i] += f[i];
    qfrc[free_dof + 3 + i] += moment[i];
  }
}

}  // namespace nereid
