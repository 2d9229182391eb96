// Copyright Nereid authors.
// The Udwadia-Kalaba solution of A qacc = b for a system M qacc = Q (Gauss's principle of
// least constraint), pure Eigen math:
//   qacc = a + L^-T (A L^-T)^+ (b - A a),  M = L L^T,  a = M^-1 Q
// and the equivalent form used for the block-sparse path,
//   qacc = a + M^-1 A^T lambda,  lambda = (A M^-1 A^T)^+ (b - A a)
// (B^+ = B^T (B B^T)^+ for any B, with B = A L^-T). A may be rank deficient
// (redundant constraints); the constraint force A^T lambda is then still unique.
#ifndef NEREID_SRC_UK_UK_SOLVER_H_
#define NEREID_SRC_UK_UK_SOLVER_H_

#include <utility>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

namespace nereid::uk {

// Moore-Penrose pseudo-inverse by SVD; singular values below rtol * sigma_max are dropped.
Eigen::MatrixXd PseudoInverse(const Eigen::MatrixXd& X, double rtol = 1e-10);

struct DenseSolution {
  Eigen::VectorXd qacc;    // constrained acceleration
  Eigen::VectorXd force;   // generalised constraint force Q_c = M (qacc - a) = A^T lambda
  Eigen::VectorXd lambda;  // minimum-norm multipliers, one per row of A
};

// The dense reference: Cholesky M = L L^T and an SVD of A L^-T (eq. 18 of seed 001 with
// the Cholesky factor in place of the symmetric square root). Throws std::invalid_argument
// on mismatched sizes or a non-positive-definite M.
DenseSolution SolveDense(const Eigen::MatrixXd& M, const Eigen::MatrixXd& A,
                         const Eigen::VectorXd& b, const Eigen::VectorXd& a, double rtol = 1e-10);

// The block-sparse path. Unknowns are grouped in blocks of 6 (one per constrained body);
// a link (constraint of 6 rows) touches two blocks. With W_k the 6x6 block of M^-1 of
// body k (bodies in different kinematic trees do not couple in M), the Delassus matrix
// S = A M^-1 A^T is block sparse: S_kl = sum over shared bodies t of J_kt W_t J_lt^T.
// It is factorised by a sparse LDL^T of S + eps I, and lambda = S^+ r is obtained by
// iterated Tikhonov refinement, which converges to the minimum-norm solution for
// consistent r and keeps null-space components of r (redundant rows) from reaching the
// constraint force.
//
// Per structure (SetStructure), once: the pattern of S, its fill-reducing (AMD) ordering P,
// the symbolic analysis of P S P^T, and where each block entry lands in it. Per Factor, only
// the values are written in place and factorised numerically: no allocation, no
// re-permutation of the matrix. (A dense LLT of S measured slower, at 1 and 3 links too.)
class BlockSolver {
 public:
  using Mat6 = Eigen::Matrix<double, 6, 6>;
  struct Link { int body1, body2; };

  void SetStructure(int nbody, const std::vector<Link>& links);
  int nlink() const { return static_cast<int>(links_.size()); }
  // Assembles and factorises S from W (per body) and the links' Jacobian blocks.
  // regularisation: eps = regularisation * max(diag S).
  void Factor(const std::vector<Mat6>& W, const std::vector<Mat6>& J1,
              const std::vector<Mat6>& J2, double regularisation);
  // lambda (6 per link) for S lambda = r. refinements < 0: the structure's default, 1 when
  // the links form no cycle (S is then non-singular for full-rank links, and one step
  // takes the Tikhonov error from eps cond(S) to its square), 2 when they do (redundant
  // rows: the iteration converges to the minimum-norm solution).
  void Solve(const Eigen::VectorXd& r, Eigen::VectorXd* lambda, int refinements = -1) const;
  bool has_cycle() const { return has_cycle_; }
  double eps() const { return eps_; }

 private:
  struct Pair { int k, l, body; bool k_first, l_first; };  // block (k, l), k >= l, via body
  std::vector<Link> links_;
  std::vector<Pair> pairs_;
  // P S P^T + eps I, upper triangle (the layout Eigen's natural-ordering LDL^T reads
  // without a copy)
  Eigen::SparseMatrix<double> Sp_;
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> P_;
  // value index in Sp_ of each lower-triangle entry of each pair's block, in Factor's
  // order, then of each diagonal entry (for eps)
  std::vector<int> block_slot_, diagonal_slot_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Upper, Eigen::NaturalOrdering<int>> ldlt_;
  mutable Eigen::VectorXd rp_, xp_, residual_, correction_;  // Solve's scratch, permuted order
  double eps_ = 0;
  bool has_cycle_ = false;
};

}  // namespace nereid::uk

#endif  // NEREID_SRC_UK_UK_SOLVER_H_
