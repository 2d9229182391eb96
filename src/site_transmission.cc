// Copyright Nereid authors.
#include "site_transmission.h"

namespace nereid {

bool PlainSiteTransmissions(const mjModel* m) {
  if (m->nactuator == 0) return false;
  for (int i = 0; i < static_cast<int>(m->nactuator); ++i) {
    if (m->actuator_trntype[i] != mjTRN_SITE || m->actuator_trnid[2 * i + 1] != -1 || m->actuator_outnum[i] != 1) {
      return false;
    }
  }
  return true;
}

void SiteTransmission(const mjModel* m, mjData* d, std::vector<int>* chain) {
  chain->resize(static_cast<size_t>(m->nv));
  for (int i = 0; i < static_cast<int>(m->nactuator); ++i) {
    const int out = m->actuator_outadr[i];
    const int adr = out == 0 ? 0 : d->moment_rowadr[out - 1] + d->moment_rownnz[out - 1];
    d->moment_rowadr[out] = adr;
    d->actuator_length[out] = 0;
    const int site = m->actuator_trnid[2 * i];
    const mjtNum* gear = m->actuator_gear + 6 * out;
    const mjtNum* R = d->site_xmat + 9 * site;
    // the gear in the world frame, as mji_mulMatVec3
    mjtNum w[6];
    for (int k = 0; k < 2; ++k) {
      for (int r = 0; r < 3; ++r) w[3 * k + r] = R[3 * r] * gear[3 * k] + R[3 * r + 1] * gear[3 * k + 1] + R[3 * r + 2] * gear[3 * k + 2];
    }
    // the site's dofs, increasing (mj_jac walks them from the last one to the root)
    const int body = m->body_weldid[m->site_bodyid[site]];
    int n = 0;
    if (m->body_dofnum[body] > 0) {
      for (int j = m->body_dofadr[body] + m->body_dofnum[body] - 1; j >= 0; j = m->dof_parentid[j]) (*chain)[n++] = j;
    }
    const mjtNum* point = d->site_xpos + 3 * site;
    const mjtNum* com = d->subtree_com + 3 * m->body_rootid[m->site_bodyid[site]];
    const mjtNum offset[3] = {point[0] - com[0], point[1] - com[1], point[2] - com[2]};
    int nnz = 0;
    for (int c = n - 1; c >= 0; --c) {
      const int j = (*chain)[c];
      const mjtNum* cdof = d->cdof + 6 * j;
      // the Jacobian's column j: translation cdof_lin + cdof_ang x offset (mji_cross), rotation cdof_ang
      const mjtNum jp[3] = {cdof[3] + (cdof[1] * offset[2] - cdof[2] * offset[1]),
                            cdof[4] + (cdof[2] * offset[0] - cdof[0] * offset[2]),
                            cdof[5] + (cdof[0] * offset[1] - cdof[1] * offset[0])};
      // mju_mulMatTVec: from zero, row by row, a zero wrench component skipped; then the sum
      mjtNum translation = 0, rotation = 0;
      for (int r = 0; r < 3; ++r) {
        if (w[r]) translation = translation + jp[r] * w[r];
      }
      for (int r = 0; r < 3; ++r) {
        if (w[3 + r]) rotation = rotation + cdof[r] * w[3 + r];
      }
      const mjtNum moment = translation + rotation;
      if (moment) {
        d->actuator_moment[adr + nnz] = moment;
        d->moment_colind[adr + nnz] = j;
        ++nnz;
      }
    }
    d->moment_rownnz[out] = nnz;
  }
}

}  // namespace nereid
