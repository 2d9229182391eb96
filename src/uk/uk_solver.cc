// Copyright Nereid authors.
#include "uk/uk_solver.h"

#include <algorithm>
#include <stdexcept>

#include <Eigen/Cholesky>
#include <Eigen/SVD>

namespace nereid::uk {

Eigen::MatrixXd PseudoInverse(const Eigen::MatrixXd& X, double rtol) {
  if (X.size() == 0) return Eigen::MatrixXd::Zero(X.cols(), X.rows());
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(X, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const Eigen::VectorXd& s = svd.singularValues();
  const double cutoff = rtol * (s.size() ? s(0) : 0.0);
  Eigen::VectorXd inv = Eigen::VectorXd::Zero(s.size());
  for (Eigen::Index i = 0; i < s.size(); ++i) {
    if (s(i) > cutoff && s(i) > 0) inv(i) = 1.0 / s(i);
  }
  return svd.matrixV() * inv.asDiagonal() * svd.matrixU().transpose();
}

DenseSolution SolveDense(const Eigen::MatrixXd& M, const Eigen::MatrixXd& A,
                         const Eigen::VectorXd& b, const Eigen::VectorXd& a, double rtol) {
  const Eigen::Index n = M.rows();
  if (M.cols() != n || A.cols() != n || a.size() != n || b.size() != A.rows()) {
    throw std::invalid_argument("uk::SolveDense: sizes of M, A, b and a do not match");
  }
  Eigen::LLT<Eigen::MatrixXd> llt(M);
  if (llt.info() != Eigen::Success) {
    throw std::invalid_argument("uk::SolveDense: M is not symmetric positive definite");
  }
  // B = A L^-T  <=>  B^T = L^-1 A^T
  const Eigen::MatrixXd Bt = llt.matrixL().solve(A.transpose());
  const Eigen::MatrixXd Bplus = PseudoInverse(Bt.transpose(), rtol);
  const Eigen::VectorXd y = Bplus * (b - A * a);
  DenseSolution s;
  s.qacc = a + llt.matrixU().solve(y);  // L^-T y
  s.force = llt.matrixL() * y;          // M (qacc - a) = L L^T L^-T y = L y
  s.lambda = PseudoInverse(A.transpose(), rtol) * s.force;
  return s;
}

void BlockSolver::SetStructure(int nbody, const std::vector<Link>& links) {
  links_ = links;
  pairs_.clear();
  std::vector<std::vector<int>> by_body(static_cast<size_t>(nbody));
  for (int k = 0; k < static_cast<int>(links.size()); ++k) {
    by_body[static_cast<size_t>(links[static_cast<size_t>(k)].body1)].push_back(k);
    by_body[static_cast<size_t>(links[static_cast<size_t>(k)].body2)].push_back(k);
  }
  for (int t = 0; t < nbody; ++t) {
    const std::vector<int>& ks = by_body[static_cast<size_t>(t)];
    for (int k : ks) {
      for (int l : ks) {
        if (l > k) continue;
        const Link& lk = links[static_cast<size_t>(k)];
        const Link& ll = links[static_cast<size_t>(l)];
        pairs_.push_back({k, l, t, lk.body1 == t, ll.body1 == t});
      }
    }
  }
  triplets_.clear();
  triplets_.reserve(pairs_.size() * 36 + links.size() * 6);
  const auto n = static_cast<Eigen::Index>(6 * links.size());
  Sreg_.resize(n, n);
  analysed_ = false;
}

void BlockSolver::Factor(const std::vector<Mat6>& W, const std::vector<Mat6>& J1,
                         const std::vector<Mat6>& J2, double regularisation) {
  triplets_.clear();
  double max_diag = 0;
  for (const Pair& p : pairs_) {
    const Mat6& Jk = p.k_first ? J1[static_cast<size_t>(p.k)] : J2[static_cast<size_t>(p.k)];
    const Mat6& Jl = p.l_first ? J1[static_cast<size_t>(p.l)] : J2[static_cast<size_t>(p.l)];
    const Mat6 block = Jk * W[static_cast<size_t>(p.body)] * Jl.transpose();
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) {
        if (p.k == p.l && j > i) continue;  // lower triangle only
        triplets_.emplace_back(6 * p.k + i, 6 * p.l + j, block(i, j));
      }
    }
    if (p.k == p.l) max_diag = std::max(max_diag, block.diagonal().maxCoeff());
  }
  // the diagonal blocks get contributions from both bodies; bound by the sum
  eps_ = regularisation * std::max(2 * max_diag, 1e-300);
  for (Eigen::Index i = 0; i < Sreg_.rows(); ++i) triplets_.emplace_back(i, i, eps_);
  Sreg_.setFromTriplets(triplets_.begin(), triplets_.end());
  if (!analysed_) {
    ldlt_.analyzePattern(Sreg_);
    analysed_ = true;
  }
  ldlt_.factorize(Sreg_);
}

void BlockSolver::Solve(const Eigen::VectorXd& r, Eigen::VectorXd* lambda, int refinements) const {
  *lambda = ldlt_.solve(r);
  for (int i = 0; i < refinements; ++i) {
    // residual against S = Sreg - eps I
    Eigen::VectorXd res = r - Sreg_.selfadjointView<Eigen::Lower>() * (*lambda) + eps_ * (*lambda);
    *lambda += ldlt_.solve(res);
  }
}

}  // namespace nereid::uk
