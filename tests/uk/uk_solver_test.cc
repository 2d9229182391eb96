// Copyright Nereid authors.
// The UK solver's math against closed forms, the seed's symmetric-square-root form, and
// the dense SVD pseudo-inverse (rank-deficient A included).
#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Eigenvalues>
#include <doctest/doctest.h>

#include "uk/uk_solver.h"

namespace nereid::uk {
namespace {

TEST_SUITE("uk_solver") {

TEST_CASE("point mass on the line y = 0: closed form") {
  const double m = 2.5, g = 9.81, fx = 1.0;
  Eigen::MatrixXd M = m * Eigen::MatrixXd::Identity(2, 2);
  Eigen::MatrixXd A(1, 2);
  A << 0, 1;
  Eigen::VectorXd b = Eigen::VectorXd::Zero(1);
  Eigen::VectorXd a(2);
  a << fx / m, -g;
  const DenseSolution s = SolveDense(M, A, b, a);
  CHECK(std::abs(s.qacc(0) - fx / m) < 1e-14);
  CHECK(std::abs(s.qacc(1)) < 1e-14);
  CHECK(std::abs(s.force(1) - m * g) < 1e-12);  // the normal force carries the weight
  CHECK(std::abs(s.lambda(0) - m * g) < 1e-12);
}

TEST_CASE("pendulum point mass: centripetal and tangential acceleration") {
  // x^2 + y^2 = l^2 -> A = [x y], b = -(vx^2 + vy^2); gravity -g in y
  const double m = 1.3, g = 9.81, l = 0.8, th = 0.4, w = 1.7;
  const double x = l * std::sin(th), y = -l * std::cos(th);
  const double vx = l * w * std::cos(th), vy = l * w * std::sin(th);
  Eigen::MatrixXd M = m * Eigen::MatrixXd::Identity(2, 2);
  Eigen::MatrixXd A(1, 2);
  A << x, y;
  Eigen::VectorXd b(1);
  b << -(vx * vx + vy * vy);
  Eigen::VectorXd a(2);
  a << 0, -g;
  const DenseSolution s = SolveDense(M, A, b, a);
  // closed form: thetaddot = -(g/l) sin th; radial acceleration -l w^2
  const double thdd = -(g / l) * std::sin(th);
  const double ax = l * thdd * std::cos(th) - l * w * w * std::sin(th);
  const double ay = l * thdd * std::sin(th) + l * w * w * std::cos(th);
  CHECK(std::abs(s.qacc(0) - ax) < 1e-12);
  CHECK(std::abs(s.qacc(1) - ay) < 1e-12);
}

TEST_CASE("redundant rows: same acceleration and force, minimum-norm multipliers") {
  std::mt19937 rng(7);
  std::normal_distribution<double> n01;
  const int n = 8;
  Eigen::MatrixXd R(n, n);
  for (int i = 0; i < n * n; ++i) R.data()[i] = n01(rng);
  const Eigen::MatrixXd M = R * R.transpose() + n * Eigen::MatrixXd::Identity(n, n);
  Eigen::MatrixXd A0(3, n);
  for (int i = 0; i < 3 * n; ++i) A0.data()[i] = n01(rng);
  Eigen::VectorXd b0(3), a(n);
  for (int i = 0; i < 3; ++i) b0(i) = n01(rng);
  for (int i = 0; i < n; ++i) a(i) = n01(rng);
  // 5 rows, rank 3: row 3 repeats row 0, row 4 = row 1 + 2 row 2 (consistent b)
  Eigen::MatrixXd A(5, n);
  A << A0, A0.row(0), A0.row(1) + 2 * A0.row(2);
  Eigen::VectorXd b(5);
  b << b0, b0(0), b0(1) + 2 * b0(2);
  const DenseSolution full = SolveDense(M, A0, b0, a);
  const DenseSolution red = SolveDense(M, A, b, a);
  CHECK((full.qacc - red.qacc).norm() < 1e-10);
  CHECK((full.force - red.force).norm() < 1e-10);
  CHECK((A * red.qacc - b).norm() < 1e-10);
  // the duplicated row shares the load equally (minimum norm)
  CHECK(std::abs(red.lambda(0) - red.lambda(3)) < 1e-9);
  // Gauss's principle: among all qacc with A qacc = b, (qacc - a)^T M (qacc - a) is least
  Eigen::MatrixXd N = A.fullPivLu().kernel();
  const double best = (red.qacc - a).dot(M * (red.qacc - a));
  for (int k = 0; k < N.cols(); ++k) {
    const Eigen::VectorXd other = red.qacc + 1e-3 * N.col(k);
    CHECK((other - a).dot(M * (other - a)) > best);
  }
}

TEST_CASE("Cholesky factor equals the seed's symmetric square root (eq. 18)") {
  std::mt19937 rng(3);
  std::normal_distribution<double> n01;
  const int n = 6;
  Eigen::MatrixXd R(n, n);
  for (int i = 0; i < n * n; ++i) R.data()[i] = n01(rng);
  const Eigen::MatrixXd M = R * R.transpose() + Eigen::MatrixXd::Identity(n, n);
  Eigen::MatrixXd A(4, n);
  for (int i = 0; i < 4 * n; ++i) A.data()[i] = n01(rng);
  A.row(3) = A.row(0) - A.row(2);  // rank deficient
  Eigen::VectorXd a(n), b = A * Eigen::VectorXd::Random(n);
  for (int i = 0; i < n; ++i) a(i) = n01(rng);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(M);
  const Eigen::MatrixXd Mih = es.operatorInverseSqrt();
  const Eigen::VectorXd seed = a + Mih * PseudoInverse(A * Mih) * (b - A * a);
  CHECK((SolveDense(M, A, b, a).qacc - seed).norm() < 1e-10);
}

TEST_CASE("block-sparse solver equals the dense pseudo-inverse, chain and redundant links") {
  std::mt19937 rng(11);
  std::normal_distribution<double> n01;
  using Mat6 = BlockSolver::Mat6;
  for (const bool loop : {false, true}) {
    const int nbody = 5;
    std::vector<BlockSolver::Link> links;
    for (int i = 0; i + 1 < nbody; ++i) links.push_back({i, i + 1});
    if (loop) links.push_back({0, 1});  // a second, identical link 0-1: S is singular
    std::vector<Mat6> W(nbody), J1(links.size()), J2(links.size());
    for (Mat6& w : W) {
      Mat6 R = Mat6::Random();
      w = R * R.transpose() + Mat6::Identity();
    }
    for (size_t k = 0; k < links.size(); ++k) {
      J1[k] = Mat6::Random();
      J2[k] = Mat6::Random();
    }
    if (loop) {
      J1.back() = J1[0];
      J2.back() = J2[0];
    }
    const int nc = 6 * static_cast<int>(links.size());
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(nc, 6 * nbody);
    Eigen::MatrixXd Winv = Eigen::MatrixXd::Zero(6 * nbody, 6 * nbody);
    for (int t = 0; t < nbody; ++t) Winv.block<6, 6>(6 * t, 6 * t) = W[static_cast<size_t>(t)];
    for (size_t k = 0; k < links.size(); ++k) {
      A.block<6, 6>(6 * static_cast<int>(k), 6 * links[k].body1) = J1[k];
      A.block<6, 6>(6 * static_cast<int>(k), 6 * links[k].body2) = J2[k];
    }
    const Eigen::MatrixXd S = A * Winv * A.transpose();
    // consistent right-hand side (in the range of S)
    Eigen::VectorXd y(nc);
    for (int i = 0; i < nc; ++i) y(i) = n01(rng);
    const Eigen::VectorXd r = S * y;
    BlockSolver solver;
    solver.SetStructure(nbody, links);
    CHECK(solver.has_cycle() == loop);  // one refinement for the chain, two for the loop
    solver.Factor(W, J1, J2, 1e-10);
    Eigen::VectorXd lambda;
    solver.Solve(r, &lambda);
    const Eigen::VectorXd dense = PseudoInverse(S, 1e-10) * r;
    const Eigen::VectorXd f_block = A.transpose() * lambda, f_dense = A.transpose() * dense;
    INFO("loop = " << loop);
    CHECK((f_block - f_dense).norm() < 1e-8 * f_dense.norm());  // the constraint force
    CHECK((S * lambda - r).norm() < 1e-8 * r.norm());
  }
}

}  // TEST_SUITE

}  // namespace
}  // namespace nereid::uk
