// Copyright Nereid authors.
// The set of UK rigid connections of a model: found from the MJCF ("uk:" welds),
// enforced on d->qacc after MuJoCo's forward dynamics, projected after each step, and
// connected (impulsively) or released at run time.
#ifndef NEREID_SRC_UK_CONSTRAINT_SET_H_
#define NEREID_SRC_UK_CONSTRAINT_SET_H_

#include <memory>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <mujoco/mujoco.h>

#include "nereid/uk.h"
#include "uk/rigid_connection.h"
#include "uk/uk_solver.h"

namespace nereid::uk {

// The "uk:" welds of a model, validated: returns their equality ids. Throws ConfigError
// naming the source, the weld and the offending value (a body welded to itself or to the
// world, a body without a free joint).
std::vector<int> FindUKWelds(const mjModel* m, const std::string& source);

class ConstraintSet {
 public:
  // Takes over the "uk:" welds of m: they are deactivated in MuJoCo (eq_active0 and
  // d->eq_active) and enforced here. nullptr if the model has none.
  static std::unique_ptr<ConstraintSet> Create(mjModel* m, mjData* d, const std::string& source,
                                               const UKOptions& options);

  // Active flags back to the model's declaration (after mj_resetData).
  void Reset(const mjModel* m, mjData* d);
  // d->qacc <- UK-constrained acceleration (d->qacc must hold the unconstrained one);
  // adds the constraint force to d->qfrc_constraint. Call after mj_forwardSkip.
  void Apply(const mjModel* m, mjData* d);
  // Post-step projection of qpos and qvel (UKOptions::project).
  void Project(const mjModel* m, mjData* d);
  // Connects `name` (d->M must be current: call after a forward pass). capture: the
  // connection's relative pose becomes the current one (the connection point stays the
  // weld's anchor on body2), so the bodies dock where they are; else the declared pose is
  // kept and stabilisation pulls the bodies together. The velocities are projected
  // impulsively (M-orthogonally) onto the constraint: linear and angular momentum are
  // conserved. Throws ConfigError for an unknown name.
  void Connect(const mjModel* m, mjData* d, const std::string& name, bool capture);
  void Release(const std::string& name);

  std::vector<ConnectionReport> Reports(const mjModel* m, const mjData* d) const;
  int Find(const std::string& name) const;  // index or -1
  const UKOptions& options() const { return options_; }

 private:
  struct Connection {
    std::string name;
    int equality = -1;
    int body[2] = {-1, -1};
    int tree[2] = {-1, -1};  // index into trees_
    int qposadr[2] = {-1, -1}, dofadr[2] = {-1, -1};
    ConnectionGeometry geometry, declared;
    bool active = false, active0 = false;
    Vec6 lambda = Vec6::Zero();
  };
  struct Tree {
    int dofadr = 0, dofnum = 0;   // MuJoCo tree dofs (free joint first)
    Eigen::MatrixXd Mt;           // dense tree block of M
    Eigen::MatrixXd X;            // M_t^-1 columns of the free dofs (dofnum x 6)
    Eigen::LLT<Eigen::MatrixXd> llt;  // of Mt; its storage is reused every step
    BlockSolver::Mat6 W = BlockSolver::Mat6::Zero();  // X's top 6 rows: (M^-1) block of the free dofs
  };

  ConstraintSet(std::string source, const UKOptions& options)
      : source_(std::move(source)), options_(options) {}
  void Rebuild();
  void UpdateMass(const mjModel* m, const mjData* d);
  // rows of every active connection at (qpos, qvel); fills J1_, J2_, rows_
  void Evaluate(const mjModel* m, const double* qpos, const double* qvel);
  // lambda = S^+ r over the active connections (block-sparse or dense)
  void SolveMultipliers(const mjModel* m, const mjData* d, const Eigen::VectorXd& r,
                        Eigen::VectorXd* lambda);
  // dv (size nv, zero outside the trees) = M^-1 A^T lambda
  void ForceToVelocity(const Eigen::VectorXd& lambda, Eigen::VectorXd* dv) const;
  void ProjectVelocities(const mjModel* m, mjData* d);

  std::string source_;
  UKOptions options_;
  std::vector<Connection> connections_;
  std::vector<Tree> trees_;
  std::vector<int> active_;  // indices of active connections
  BlockSolver solver_;
  std::vector<BlockSolver::Mat6> J1_, J2_, W_;
  std::vector<ConnectionRows> rows_;
  Eigen::VectorXd r_, lambda_, dv_, lambda_scratch_;
  // per tree, scratch of UpdateMass and ForceToVelocity (sized in Rebuild: no allocation
  // per step)
  std::vector<char> used_;
  mutable std::vector<Vec6> tree_force_;
  bool structure_dirty_ = true;
};

}  // namespace nereid::uk

#endif  // NEREID_SRC_UK_CONSTRAINT_SET_H_
