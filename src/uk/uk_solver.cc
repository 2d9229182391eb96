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
  const auto n = static_cast<Eigen::Index>(6 * links.size());
  rp_.resize(n);
  xp_.resize(n);
  residual_.resize(n);
  correction_.resize(n);
  // a cycle in the link graph (union-find over the bodies)
  std::vector<int> root(static_cast<size_t>(nbody));
  for (int t = 0; t < nbody; ++t) root[static_cast<size_t>(t)] = t;
  auto find = [&](int t) {
    while (root[static_cast<size_t>(t)] != t) t = root[static_cast<size_t>(t)] = root[static_cast<size_t>(root[static_cast<size_t>(t)])];
    return t;
  };
  has_cycle_ = false;
  for (const Link& link : links) {
    const int a = find(link.body1), b = find(link.body2);
    if (a == b) has_cycle_ = true;
    root[static_cast<size_t>(a)] = b;
  }
  // the lower-triangle entries Factor writes, in its order
  std::vector<std::pair<int, int>> entries;
  for (const Pair& p : pairs_) {
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) {
        if (p.k == p.l && j > i) continue;
        entries.emplace_back(6 * p.k + i, 6 * p.l + j);
      }
    }
  }
  for (int i = 0; i < n; ++i) entries.emplace_back(i, i);
  // the fill-reducing ordering of the pattern (AMD, as Eigen's default)
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(entries.size());
  for (const auto& [i, j] : entries) triplets.emplace_back(i, j, 1.0);
  Eigen::SparseMatrix<double> lower(n, n);
  lower.setFromTriplets(triplets.begin(), triplets.end());
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Lower> amd;
  amd.analyzePattern(lower);
  P_ = amd.permutationP();
  // P S P^T, upper triangle: entry (i, j) of S goes to (P(i), P(j))
  auto permuted = [&](int i, int j) {
    const int a = P_.indices()(i), b = P_.indices()(j);
    return std::make_pair(std::min(a, b), std::max(a, b));
  };
  triplets.clear();
  for (const auto& [i, j] : entries) {
    const auto [r, c] = permuted(i, j);
    triplets.emplace_back(r, c, 1.0);
  }
  Sp_.resize(n, n);
  Sp_.setFromTriplets(triplets.begin(), triplets.end());
  Sp_.makeCompressed();
  auto slot = [&](int i, int j) {
    const auto [r, c] = permuted(i, j);
    const int* begin = Sp_.innerIndexPtr() + Sp_.outerIndexPtr()[c];
    const int* end = Sp_.innerIndexPtr() + Sp_.outerIndexPtr()[c + 1];
    return static_cast<int>(std::lower_bound(begin, end, r) - Sp_.innerIndexPtr());
  };
  block_slot_.clear();
  diagonal_slot_.clear();
  for (size_t e = 0; e < entries.size(); ++e) {
    const int s = slot(entries[e].first, entries[e].second);
    (e + static_cast<size_t>(n) < entries.size() ? block_slot_ : diagonal_slot_).push_back(s);
  }
  ldlt_.analyzePattern(Sp_);
}

void BlockSolver::Factor(const std::vector<Mat6>& W, const std::vector<Mat6>& J1,
                         const std::vector<Mat6>& J2, double regularisation) {
  double* values = Sp_.valuePtr();
  std::fill(values, values + Sp_.nonZeros(), 0.0);
  double max_diag = 0;
  const int* slot = block_slot_.data();
  for (const Pair& p : pairs_) {
    const Mat6& Jk = p.k_first ? J1[static_cast<size_t>(p.k)] : J2[static_cast<size_t>(p.k)];
    const Mat6& Jl = p.l_first ? J1[static_cast<size_t>(p.l)] : J2[static_cast<size_t>(p.l)];
    const Mat6 block = Jk * W[static_cast<size_t>(p.body)] * Jl.transpose();
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) {
        if (p.k == p.l && j > i) continue;  // lower triangle only
        values[*slot++] += block(i, j);
      }
    }
    if (p.k == p.l) max_diag = std::max(max_diag, block.diagonal().maxCoeff());
  }
  // the diagonal blocks get contributions from both bodies; bound by the sum
  eps_ = regularisation * std::max(2 * max_diag, 1e-300);
  for (int s : diagonal_slot_) values[s] += eps_;
  ldlt_.factorize(Sp_);
}

void BlockSolver::Solve(const Eigen::VectorXd& r, Eigen::VectorXd* lambda, int refinements) const {
  rp_.noalias() = P_ * r;
  xp_ = ldlt_.solve(rp_);
  if (refinements < 0) refinements = has_cycle_ ? 2 : 1;
  for (int i = 0; i < refinements; ++i) {
    // residual against S = Sreg - eps I, in the permuted order
    residual_ = rp_ + eps_ * xp_;
    residual_.noalias() -= Sp_.selfadjointView<Eigen::Upper>() * xp_;
    correction_ = ldlt_.solve(residual_);
    xp_ += correction_;
  }
  lambda->resize(rp_.size());
  lambda->noalias() = P_.transpose() * xp_;
}

}  // namespace nereid::uk
