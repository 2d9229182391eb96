// Copyright Nereid authors.
// The one Fossen term with a body of its own (include/nereid/fossen.h keeps the others
// inline): the definiteness check, an eigensolver.
#include "nereid/fossen.h"

#include <Eigen/Eigenvalues>

namespace nereid::fossen {

double MinSymmetricEigenvalue(const Mat6& A) {
  const Mat6 S = 0.5 * (A + A.transpose());
  Eigen::SelfAdjointEigenSolver<Mat6> eig(S, Eigen::EigenvaluesOnly);
  return eig.eigenvalues().minCoeff();
}

}  // namespace nereid::fossen
