// Copyright Nereid authors.
// The added mass in MuJoCo's mass matrix: the blocks' layout and storage (src/added_mass.h),
// and the Simulation members that read M_A from the hydrodynamics instances and add
// J^T M_A J into d->M before MuJoCo factorises it.
#include "added_mass.h"

#include <algorithm>
#include <string>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/object_names.h"
#include "nereid/plugins.h"

namespace nereid {
namespace {

// Bodies whose added mass Nereid adds, with M_A summed over their hydrodynamics instances,
// read from the instances' objects in `d` (which own it); sources[k]: block k's M_A's.
std::vector<AddedMassBody> CollectAddedMass(const mjModel* m, const mjData* d,
                                            std::vector<std::vector<const Mat6*>>* sources) {
  std::vector<AddedMassBody> blocks;
  sources->clear();
  for (int instance : FindPluginInstances(m, kHydrodynamicsPlugin)) {
    const HydrodynamicsConfig* config = HydrodynamicsInUse(m, d, instance);
    if (!config || !config->has_added_mass()) continue;
    size_t k = 0;
    while (k < blocks.size() && blocks[k].body != config->body) ++k;
    if (k == blocks.size()) {
      AddedMassBody& block = blocks.emplace_back();
      block.body = config->body;
      block.dofs = BodyDofChain(m, config->body);
      block.free_dof = FreeJointDof(m, config->body);
      sources->emplace_back();
    }
    blocks[k].added_mass += config->added_mass;
    (*sources)[k].push_back(&config->added_mass);
  }
  return blocks;
}

}  // namespace

bool FindInertiaEntries(const mjModel* m, AddedMassBody* block) {
  block->entries.clear();
  const auto n = static_cast<int>(block->dofs.size());
  for (int a = 0; a < n; ++a) {
    for (int c = 0; c < n; ++c) {
      const int row = block->dofs[static_cast<size_t>(a)];
      const int col = block->dofs[static_cast<size_t>(c)];
      if (col > row) continue;
      const int index = MassEntryAddress(m, row, col);
      if (index < 0) return false;
      block->entries.push_back({a, c, index});
    }
  }
  return true;
}

std::vector<AddedMassBody> AddedMassLayout(const mjModel* m) {
  std::vector<AddedMassBody> blocks;
  for (int instance : FindPluginInstances(m, kHydrodynamicsPlugin)) {
    const HydrodynamicsConfig config = HydrodynamicsConfig::FromModel(m, instance);
    if (!config.has_added_mass()) continue;
    if (std::any_of(blocks.begin(), blocks.end(), [&](const AddedMassBody& b) { return b.body == config.body; })) continue;
    AddedMassBody& block = blocks.emplace_back();
    block.body = config.body;
    block.dofs = BodyDofChain(m, config.body);
  }
  return blocks;
}

void Simulation::FindAddedMass() {
  added_mass_ = CollectAddedMass(m_, d_, &added_mass_sources_);
  for (AddedMassBody& block : added_mass_) {
    if (!FindInertiaEntries(m_, &block)) {
      throw ConfigError(source_ + ": body " + QuotedNameOrId(m_, mjOBJ_BODY, block.body) +
                        " has no storage for its added-mass block in the mass matrix; set "
                        "simple=\"false\" on the body, or compile the model with Nereid "
                        "(Simulation::CompileFile; Python: nereid.load)");
    }
  }
}

void Simulation::ScaleHydrodynamics(double added_mass, double damping) {
  if (!(added_mass > 0) || !(damping > 0)) {
    throw ConfigError(source_ + ": hydrodynamic scale factors must be > 0 (got " +
                      std::to_string(added_mass) + ", " + std::to_string(damping) + ")");
  }
  for (int instance : hydrodynamics_instances_) {
    nereid::ScaleHydrodynamics(d_, instance, added_mass, damping);
  }
  ReadAddedMass();
}

void Simulation::ReadAddedMass() {
  for (size_t i = 0; i < added_mass_.size(); ++i) {
    Mat6& A = added_mass_[i].added_mass;
    A.setZero();
    for (const Mat6* source : added_mass_sources_[i]) A += *source;
  }
}

void Simulation::AddInertia() {
  ReadAddedMass();  // the hydrodynamics objects own M_A (scaled or not): read it every step
  for (size_t i = 0; i < added_mass_.size(); ++i) {
    const AddedMassBody& block = added_mass_[i];
    if (block.free_dof >= 0) {
      // a free body: nu = blockdiag(R^T, I) qvel, so K = [R A11 R^T, R A12; A21 R^T, A22]
      const Mat3 R = BodyRotation(d_, block.body);
      const Mat6& A = block.added_mass;
      Mat6 K;
      K.topLeftCorner<3, 3>().noalias() = R * A.topLeftCorner<3, 3>() * R.transpose();
      K.topRightCorner<3, 3>().noalias() = R * A.topRightCorner<3, 3>();
      K.bottomLeftCorner<3, 3>() = K.topRightCorner<3, 3>().transpose();
      K.bottomRightCorner<3, 3>() = A.bottomRightCorner<3, 3>();
      for (const AddedMassBody::Entry& e : block.entries) {
        d_->M[e.index] += K(block.dofs[e.row] - block.free_dof, block.dofs[e.col] - block.free_dof);
      }
      continue;
    }
    Eigen::Matrix<double, 6, Eigen::Dynamic>& J = jacobians_[i];  // sized once: no allocation
    Eigen::Matrix<double, 6, Eigen::Dynamic>& MJ = mass_jacobians_[i];
    Eigen::MatrixXd& K = inertias_[i];
    BodyJacobian(m_, d_, block.body, block.dofs, &J);
    MJ.noalias() = block.added_mass * J;
    K.noalias() = J.transpose() * MJ;
    for (const AddedMassBody::Entry& e : block.entries) d_->M[e.index] += K(e.row, e.col);
  }
}

}  // namespace nereid
