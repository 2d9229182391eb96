// Copyright Nereid authors.
#include "uk/constraint_set.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <Eigen/Cholesky>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/object_names.h"

namespace nereid {

namespace uk {
namespace {

int FreeDof(const mjModel* m, int body) {
  if (m->body_jntnum[body] < 1) return -1;
  const int j = m->body_jntadr[body];
  return m->jnt_type[j] == mjJNT_FREE ? m->jnt_dofadr[j] : -1;
}

}  // namespace

std::vector<int> FindUKWelds(const mjModel* m, const std::string& source) {
  std::vector<int> welds;
  for (int i = 0; i < m->neq; ++i) {
    const char* n = mj_id2name(m, mjOBJ_EQUALITY, i);
    if (!n || std::string_view(n).substr(0, kUKWeldPrefix.size()) != kUKWeldPrefix) continue;
    const std::string where = source + ": <weld name=\"" + n + "\">: ";
    if (m->eq_type[i] != mjEQ_WELD) {
      throw ConfigError(where + "the \"uk:\" prefix marks a weld for UK, but this equality is "
                        "not a <weld> (only rigid connections are supported)");
    }
    if (m->eq_objtype[i] != mjOBJ_BODY) {
      throw ConfigError(where + "UK connections join bodies; site-based welds are not supported");
    }
    const int b1 = m->eq_obj1id[i], b2 = m->eq_obj2id[i];
    if (b1 == b2) {
      throw ConfigError(where + "body1 and body2 are the same body '" + NameOrId(m, mjOBJ_BODY, b1) +
                        "': a body cannot be connected to itself");
    }
    for (const auto& [attr, b] : {std::pair{"body1", b1}, std::pair{"body2", b2}}) {
      if (b == 0) {
        throw ConfigError(where + attr + " is the world; UK connections join two free bodies "
                          "(use a MuJoCo weld to fix a body to the world)");
      }
      if (FreeDof(m, b) < 0 || m->body_jntnum[b] != 1) {
        throw ConfigError(where + attr + "=\"" + NameOrId(m, mjOBJ_BODY, b) +
                          "\" does not move by exactly one free joint; UK connections are "
                          "supported between free-joint bodies only");
      }
    }
    welds.push_back(i);
  }
  return welds;
}

std::unique_ptr<ConstraintSet> ConstraintSet::Create(mjModel* m, mjData* d,
                                                     const std::string& source,
                                                     const UKOptions& options) {
  const std::vector<int> welds = FindUKWelds(m, source);
  if (welds.empty()) return nullptr;
  if (!(options.regularisation > 0) || options.projection_iterations < 0 ||
      !(options.projection_tolerance > 0)) {
    throw ConfigError(source + ": UK options: regularisation and projection_tolerance must be "
                      "> 0 and projection_iterations >= 0");
  }
  std::unique_ptr<ConstraintSet> set(new ConstraintSet(source, options));
  auto tree_of = [&](int body) {
    const int dof = FreeDof(m, body);
    const int t = m->dof_treeid[dof];
    for (size_t i = 0; i < set->trees_.size(); ++i) {
      if (set->trees_[i].dofadr == m->tree_dofadr[t]) return static_cast<int>(i);
    }
    Tree tree;
    tree.dofadr = m->tree_dofadr[t];
    tree.dofnum = m->tree_dofnum[t];
    tree.Mt.resize(tree.dofnum, tree.dofnum);
    tree.X.resize(tree.dofnum, 6);
    // sizes the factor's storage and gives it a defined state (Eigen leaves a fresh LLT's
    // `info` unset, and the Tree is copied into the vector)
    tree.llt.compute(Eigen::MatrixXd::Identity(tree.dofnum, tree.dofnum));
    set->trees_.push_back(tree);
    return static_cast<int>(set->trees_.size()) - 1;
  };
  for (int eq : welds) {
    Connection c;
    c.name = mj_id2name(m, mjOBJ_EQUALITY, eq);
    c.equality = eq;
    c.declared = WeldGeometry(m->eq_data + mjNEQDATA * eq);
    c.geometry = c.declared;
    for (int s = 0; s < 2; ++s) {
      c.body[s] = s == 0 ? m->eq_obj1id[eq] : m->eq_obj2id[eq];
      c.tree[s] = tree_of(c.body[s]);
      c.dofadr[s] = FreeDof(m, c.body[s]);
      c.qposadr[s] = m->jnt_qposadr[m->body_jntadr[c.body[s]]];
    }
    c.active0 = m->eq_active0[eq] != 0;
    c.active = c.active0;
    set->connections_.push_back(c);
    // MuJoCo no longer enforces it
    m->eq_active0[eq] = 0;
    d->eq_active[eq] = 0;
  }
  return set;
}

int ConstraintSet::Find(const std::string& name) const {
  for (size_t i = 0; i < connections_.size(); ++i) {
    if (connections_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

void ConstraintSet::Reset(const mjModel*, mjData* d) {
  for (Connection& c : connections_) {
    c.active = c.active0;
    c.geometry = c.declared;
    c.lambda.setZero();
    d->eq_active[c.equality] = 0;
  }
  structure_dirty_ = true;
}

void ConstraintSet::Rebuild() {
  active_.clear();
  std::vector<BlockSolver::Link> links;
  for (size_t i = 0; i < connections_.size(); ++i) {
    if (!connections_[i].active) continue;
    active_.push_back(static_cast<int>(i));
    links.push_back({connections_[i].tree[0], connections_[i].tree[1]});
  }
  solver_.SetStructure(static_cast<int>(trees_.size()), links);
  const size_t n = active_.size();
  J1_.assign(n, BlockSolver::Mat6::Zero());
  J2_.assign(n, BlockSolver::Mat6::Zero());
  rows_.assign(n, ConnectionRows{});
  W_.assign(trees_.size(), BlockSolver::Mat6::Zero());
  used_.assign(trees_.size(), 0);
  for (int k : active_) {
    used_[static_cast<size_t>(connections_[static_cast<size_t>(k)].tree[0])] = 1;
    used_[static_cast<size_t>(connections_[static_cast<size_t>(k)].tree[1])] = 1;
  }
  tree_force_.assign(trees_.size(), Vec6::Zero());
  r_.resize(static_cast<Eigen::Index>(6 * n));
  lambda_.setZero(static_cast<Eigen::Index>(6 * n));
  structure_dirty_ = false;
}

void ConstraintSet::UpdateMass(const mjModel* m, const mjData* d) {
  for (size_t t = 0; t < trees_.size(); ++t) {
    if (!used_[t]) continue;
    Tree& tree = trees_[t];
    // the tree's block of d->M (lower-triangular CSR rows; trees do not couple)
    tree.Mt.setZero();
    for (int i = 0; i < tree.dofnum; ++i) {
      const int row = tree.dofadr + i;
      ForEachMassEntry(m, row, [&](int c, int adr) {
        const int col = c - tree.dofadr;
        if (col < 0 || col > i) return;
        tree.Mt(i, col) = d->M[adr];
        tree.Mt(col, i) = d->M[adr];
      });
    }
    if (tree.dofnum == 6) {  // a lone free body: fixed-size 6x6 algebra, X = W
      const Eigen::LLT<BlockSolver::Mat6> llt(tree.Mt);
      tree.W = llt.solve(BlockSolver::Mat6::Identity());
      tree.X = tree.W;
    } else {
      tree.llt.compute(tree.Mt);
      tree.X.setZero();
      tree.X.topRows<6>().setIdentity();
      tree.llt.solveInPlace(tree.X);
      tree.W = tree.X.topRows<6>();
    }
    W_[t] = tree.W;
  }
}

void ConstraintSet::Evaluate(const mjModel*, const double* qpos, const double* qvel) {
  for (size_t i = 0; i < active_.size(); ++i) {
    const Connection& c = connections_[static_cast<size_t>(active_[i])];
    const FreeBodyState b1 = ReadFreeBody(qpos, qvel, c.qposadr[0], c.dofadr[0]);
    const FreeBodyState b2 = ReadFreeBody(qpos, qvel, c.qposadr[1], c.dofadr[1]);
    rows_[i] = EvaluateConnection(c.geometry, b1, b2);
    J1_[i] = rows_[i].J1;
    J2_[i] = rows_[i].J2;
  }
}

void ConstraintSet::SolveMultipliers(const mjModel* m, const mjData* d,
                                     const Eigen::VectorXd& r, Eigen::VectorXd* lambda) {
  if (!options_.dense) {
    solver_.Factor(W_, J1_, J2_, options_.regularisation);
    solver_.Solve(r, lambda);
    return;
  }
  // reference path: A (6 n x nv) and M dense, S = A M^-1 A^T, lambda = S^+ r (SVD)
  const int nv = static_cast<int>(m->nv);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(r.size(), nv);
  for (size_t i = 0; i < active_.size(); ++i) {
    const Connection& c = connections_[static_cast<size_t>(active_[i])];
    A.block<6, 6>(6 * static_cast<Eigen::Index>(i), c.dofadr[0]) += J1_[i];
    A.block<6, 6>(6 * static_cast<Eigen::Index>(i), c.dofadr[1]) += J2_[i];
  }
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> M(nv, nv);
  mj_fullM(m, d, M.data());
  const Eigen::MatrixXd MinvAt = Eigen::MatrixXd(M).llt().solve(A.transpose());
  *lambda = PseudoInverse(A * MinvAt, options_.regularisation) * r;
}

void ConstraintSet::ForceToVelocity(const Eigen::VectorXd& lambda, Eigen::VectorXd* dv) const {
  // per tree: Q = sum_k J_k^T lambda_k on the free dofs; dv_tree = X Q
  std::vector<Vec6>& Q = tree_force_;
  std::fill(Q.begin(), Q.end(), Vec6::Zero());
  for (size_t i = 0; i < active_.size(); ++i) {
    const Connection& c = connections_[static_cast<size_t>(active_[i])];
    const Vec6 l = lambda.segment<6>(6 * static_cast<Eigen::Index>(i));
    Q[static_cast<size_t>(c.tree[0])] += J1_[i].transpose() * l;
    Q[static_cast<size_t>(c.tree[1])] += J2_[i].transpose() * l;
  }
  for (size_t t = 0; t < trees_.size(); ++t) {
    if (!used_[t]) continue;
    const Tree& tree = trees_[t];
    if (tree.dofnum == 6) {
      dv->segment<6>(tree.dofadr) = tree.W * Q[t];
    } else {
      dv->segment(tree.dofadr, tree.dofnum) = tree.X * Q[t];
    }
  }
}

void ConstraintSet::Apply(const mjModel* m, mjData* d) {
  if (structure_dirty_) Rebuild();
  if (active_.empty()) return;
  UpdateMass(m, d);
  Evaluate(m, d->qpos, d->qvel);
  const double omega = options_.baumgarte_omega;
  const double alpha = omega > 0 ? 2 * options_.baumgarte_zeta * omega : 0.0;
  const double beta = omega > 0 ? omega * omega : 0.0;
  for (size_t i = 0; i < active_.size(); ++i) {
    const Connection& c = connections_[static_cast<size_t>(active_[i])];
    const ConnectionRows& rows = rows_[i];
    Eigen::Map<const Vec6> a1(d->qacc + c.dofadr[0]), a2(d->qacc + c.dofadr[1]);
    r_.segment<6>(6 * static_cast<Eigen::Index>(i)) =
        rows.bias - alpha * rows.cdot - beta * rows.c - rows.J1 * a1 - rows.J2 * a2;
  }
  SolveMultipliers(m, d, r_, &lambda_);
  dv_.setZero(m->nv);
  ForceToVelocity(lambda_, &dv_);
  for (int i = 0; i < m->nv; ++i) d->qacc[i] += dv_[i];
  for (size_t i = 0; i < active_.size(); ++i) {
    Connection& c = connections_[static_cast<size_t>(active_[i])];
    c.lambda = lambda_.segment<6>(6 * static_cast<Eigen::Index>(i));
    const Vec6 q1 = J1_[i].transpose() * c.lambda, q2 = J2_[i].transpose() * c.lambda;
    for (int k = 0; k < 6; ++k) {
      d->qfrc_constraint[c.dofadr[0] + k] += q1[k];
      d->qfrc_constraint[c.dofadr[1] + k] += q2[k];
    }
  }
}

void ConstraintSet::ProjectVelocities(const mjModel* m, mjData* d) {
  Evaluate(m, d->qpos, d->qvel);
  for (size_t i = 0; i < active_.size(); ++i) {
    r_.segment<6>(6 * static_cast<Eigen::Index>(i)) = rows_[i].cdot;
  }
  SolveMultipliers(m, d, r_, &lambda_scratch_);
  dv_.setZero(m->nv);
  ForceToVelocity(lambda_scratch_, &dv_);
  for (int i = 0; i < m->nv; ++i) d->qvel[i] -= dv_[i];
}

void ConstraintSet::Project(const mjModel* m, mjData* d) {
  if (!options_.project || structure_dirty_ || active_.empty()) return;
  // W_ holds M^-1 blocks from the last force evaluation (within one step of this state)
  for (int it = 0; it < options_.projection_iterations; ++it) {
    Evaluate(m, d->qpos, d->qvel);
    double worst = 0;
    for (size_t i = 0; i < active_.size(); ++i) {
      r_.segment<6>(6 * static_cast<Eigen::Index>(i)) = rows_[i].c;
      worst = std::max(worst, rows_[i].c.cwiseAbs().maxCoeff());
    }
    if (worst < options_.projection_tolerance) break;
    SolveMultipliers(m, d, r_, &lambda_scratch_);
    dv_.setZero(m->nv);
    ForceToVelocity(lambda_scratch_, &dv_);
    dv_ = -dv_;
    mj_integratePos(m, d->qpos, dv_.data(), 1.0);
  }
  ProjectVelocities(m, d);
}

void ConstraintSet::Connect(const mjModel* m, mjData* d, const std::string& name, bool capture) {
  const int k = Find(name);
  if (k < 0) {
    std::string names;
    for (const Connection& c : connections_) names += (names.empty() ? "" : ", ") + c.name;
    throw ConfigError(source_ + ": no UK connection named '" + Excerpt(name) + "' (the model has: " +
                      names + ")");
  }
  Connection& c = connections_[static_cast<size_t>(k)];
  if (capture) {
    const FreeBodyState b1 = ReadFreeBody(d->qpos, d->qvel, c.qposadr[0], c.dofadr[0]);
    const FreeBodyState b2 = ReadFreeBody(d->qpos, d->qvel, c.qposadr[1], c.dofadr[1]);
    c.geometry = CaptureGeometry(b1, b2, b2.p + b2.R * c.declared.r2);
  }
  c.active = true;
  Rebuild();
  UpdateMass(m, d);
  ProjectVelocities(m, d);  // the impulse: M dv = -A^T lambda, internal to the assembly
}

void ConstraintSet::Release(const std::string& name) {
  const int k = Find(name);
  if (k < 0) throw ConfigError(source_ + ": no UK connection named '" + Excerpt(name) + "'");
  connections_[static_cast<size_t>(k)].active = false;
  connections_[static_cast<size_t>(k)].lambda.setZero();
  structure_dirty_ = true;
}

std::vector<ConnectionReport> ConstraintSet::Reports(const mjModel*, const mjData* d) const {
  std::vector<ConnectionReport> out;
  for (const Connection& c : connections_) {
    ConnectionReport r;
    r.name = c.name;
    r.equality = c.equality;
    r.body1 = c.body[0];
    r.body2 = c.body[1];
    r.active = c.active;
    const FreeBodyState b1 = ReadFreeBody(d->qpos, d->qvel, c.qposadr[0], c.dofadr[0]);
    const FreeBodyState b2 = ReadFreeBody(d->qpos, d->qvel, c.qposadr[1], c.dofadr[1]);
    const ConnectionRows rows = EvaluateConnection(c.geometry, b1, b2);
    r.point = b2.p + b2.R * c.geometry.r2;
    r.position_error = rows.c.head<3>().norm();
    r.angle_error = rows.c.tail<3>().norm();
    if (c.active) {
      r.force = c.lambda.head<3>();
      r.torque = c.lambda.tail<3>();
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace uk
}  // namespace nereid
